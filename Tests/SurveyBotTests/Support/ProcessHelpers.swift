import Foundation
import Synchronization

/// The `survey-bot` executable built beside the tests.
func executablePath() -> String {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for candidate in [directory, directory.deletingLastPathComponent()] {
        let path = candidate.appendingPathComponent("survey-bot").path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return repositoryPath(".build/debug/survey-bot")
}

/// A child process of the real executable, with its output collected.
final class RunningTool: @unchecked Sendable {
    let process = Process()
    private final class Output: Sendable {
        let text = Mutex<(out: String, err: String)>(("", ""))
    }

    private let output = Output()
    private let outPipe = Pipe()
    private let errPipe = Pipe()

    init(_ arguments: [String], executable: String = executablePath(), directory: String? = nil, environment: [String: String]? = nil)
        throws
    {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = environment }
        process.standardOutput = outPipe
        process.standardError = errPipe
        outPipe.fileHandleForReading.readabilityHandler = { [output] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            output.text.withLock { $0.out += text }
        }
        errPipe.fileHandleForReading.readabilityHandler = { [output] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            output.text.withLock { $0.err += text }
        }
        try process.run()
    }

    var standardOutput: String { output.text.withLock { $0.out } }
    var standardError: String { output.text.withLock { $0.err } }

    /// Waits for the process to end, at most `seconds`; kills it after that. Returns the status.
    func wait(seconds: Double = 60) async -> Int32 {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while process.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning {
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        // Let the pipes drain.
        try? await Task.sleep(for: .milliseconds(50))
        outPipe.fileHandleForReading.readabilityHandler = nil
        errPipe.fileHandleForReading.readabilityHandler = nil
        return process.terminationStatus
    }

    /// Waits until standard output contains `text`, at most `seconds`.
    func waitForOutput(_ text: String, seconds: Double = 20) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if standardOutput.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }
}

/// `survey-bot serve --port 0` with `options`; returns the tool and the URL it listens on.
func startServer(_ options: [String]) async throws -> (RunningTool, String) {
    let server = try RunningTool(["serve", "--port", "0"] + options)
    guard await server.waitForOutput("\n") else {
        server.signal(SIGKILL)
        struct NoURL: Error {}
        throw NoURL()
    }
    let line = server.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
    return (server, String(line.dropFirst("listening on ".count)))
}
