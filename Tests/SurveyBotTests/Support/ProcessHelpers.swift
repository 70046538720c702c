import Foundation
import Synchronization

/// Why an end-to-end test cannot run the executable.
struct MissingExecutable: Error, CustomStringConvertible {
    var description: String
}

/// The `survey-bot` executable in the build directory of the running test bundle.
///
/// SurveyBotTests depends on the `survey-bot` target (Package.swift), so whatever builds this
/// bundle — `swift test`, `swift build --build-tests`, `swift build --product
/// survey-botPackageTests` — first builds the executable from the same source into the same
/// directory. No other place is looked at: a `survey-bot` found elsewhere (`.build/debug`
/// beside a bundle built with another `--scratch-path`, say) may be from older source, and an
/// end-to-end test run against it would pass or fail for reasons that are not in the code.
func executablePath() throws(MissingExecutable) -> String {
    try builtExecutable.get()
}

private let builtExecutable: Result<String, MissingExecutable> = {
    // On Linux the test bundle is itself the running executable.
    guard let bundle = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
        return .failure(MissingExecutable(description: "cannot tell where the test bundle is: /proc/self/exe is unreadable"))
    }
    let directory = URL(fileURLWithPath: bundle).deletingLastPathComponent().path
    let path = directory + "/survey-bot"
    guard FileManager.default.isExecutableFile(atPath: path) else {
        return .failure(
            MissingExecutable(
                description: """
                    no survey-bot executable beside the test bundle \(bundle): building the tests builds it there \
                    (SurveyBotTests depends on the survey-bot target), so this bundle was built some other way; \
                    rebuild with `swift build --build-tests` rather than run an older survey-bot
                    """))
    }
    return .success(path)
}()

/// A child process of the real executable, with its output collected.
final class RunningTool: @unchecked Sendable {
    let process = Process()
    private final class Output: Sendable {
        let text = Mutex<(out: String, err: String)>(("", ""))
    }

    private let output = Output()
    private let outPipe = Pipe()
    private let errPipe = Pipe()

    /// Starts `executable` (by default the `survey-bot` built from this source) with `arguments`.
    init(_ arguments: [String], executable: String? = nil, directory: String? = nil, environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: try executable ?? executablePath())
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
