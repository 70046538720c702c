import Foundation
import Synchronization

@testable import SurveyTestSupport

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
///
/// Each pipe is read to its end by a thread of its own, so that `wait()` returns only once the
/// process has exited *and* everything it wrote has been read: no fixed pause that a busy
/// machine could outlast.
final class RunningTool: @unchecked Sendable {
    let process = Process()
    private final class Output: Sendable {
        /// Bytes, not text, until read: a chunk may end inside a multi-byte character.
        let bytes = Mutex<(out: [UInt8], err: [UInt8], openPipes: Int)>(([], [], 2))
        let exitedAt = Mutex<ContinuousClock.Instant?>(nil)
    }

    private let output = Output()
    /// When the process was started.
    let startedAt: ContinuousClock.Instant

    /// Starts `executable` (by default the `survey-bot` built from this source) with `arguments`.
    init(_ arguments: [String], executable: String? = nil, directory: String? = nil, environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: try executable ?? executablePath())
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = environment }
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        // Noted on Foundation's thread as the process ends, not when a test gets round to
        // asking: on a busy machine the test's own task may wait seconds for a thread.
        process.terminationHandler = { [output] _ in output.exitedAt.withLock { $0 = .now } }
        startedAt = .now
        try process.run()
        Self.drain(outPipe.fileHandleForReading, into: output) { $0.out += $1 }
        Self.drain(errPipe.fileHandleForReading, into: output) { $0.err += $1 }
    }

    /// Reads `handle` until its end on a thread of its own (a blocking read has no place on the
    /// cooperative pool), appending each chunk with `append`.
    private static func drain(
        _ handle: FileHandle, into output: Output,
        _ append: @escaping @Sendable (inout (out: [UInt8], err: [UInt8], openPipes: Int), [UInt8]) -> Void
    ) {
        let thread = Thread {
            // read(2) itself: it returns what the pipe holds as soon as it holds anything, and 0
            // only at the end, when every process holding the write end has exited.
            let fd = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                output.bytes.withLock { append(&$0, Array(buffer[..<count])) }
            }
            try? handle.close()
            output.bytes.withLock { $0.openPipes -= 1 }
        }
        thread.start()
    }

    /// When the process was seen to end; nil while it runs.
    var exitedAt: ContinuousClock.Instant? { output.exitedAt.withLock { $0 } }

    /// From start to end, once it ended.
    var lifetime: Duration? { exitedAt.map { $0 - startedAt } }

    var standardOutput: String { output.bytes.withLock { String(decoding: $0.out, as: UTF8.self) } }
    var standardError: String { output.bytes.withLock { String(decoding: $0.err, as: UTF8.self) } }

    /// Waits for the process to end, at most `seconds`, and for its output to be read; kills it
    /// after that. Returns the status.
    func wait(seconds: Double = 60) async -> Int32 {
        if await !eventually(within: seconds, { !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        // The pipes end when the last process holding them exits: at once, unless the tool left
        // a child behind, which the deadline bounds. The exit time is noted just after the exit.
        _ = await eventually(within: 10) { output.bytes.withLock { $0.openPipes == 0 } && exitedAt != nil }
        return process.terminationStatus
    }

    /// Waits until standard output contains `text`, at most `seconds`.
    func waitForOutput(_ text: String, seconds: Double = 20) async -> Bool {
        await eventually(within: seconds) { standardOutput.contains(text) }
    }

    /// Waits until standard error contains `text`, at most `seconds`.
    func waitForError(_ text: String, seconds: Double = 20) async -> Bool {
        await eventually(within: seconds) { standardError.contains(text) }
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// A test that stops early (a failed `#require`) leaves nothing running behind it.
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
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

/// Whether this process may mount a tmpfs in a private mount namespace.
let canMountPrivately: Bool = {
    guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
    probe.arguments = ["-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
}()
