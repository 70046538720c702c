import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A process a test starts — the `survey-bot` under test, or a peer such as `openssl` or nginx —
/// with its standard output and error collected, and standard input empty.
///
/// Each pipe is read to its end by a thread of its own, so that `wait()` returns only once the
/// process has exited *and* everything it wrote has been read: no fixed pause that a busy
/// machine could outlast. `stop()` kills it by its PID with SIGKILL (a child of the test process
/// inherits its blocked signal mask, SIGTERM included) and reaps it; so does `deinit`, for a
/// test that stops early (a failed `#require`), so that nothing is left running behind it.
final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    private final class Output: Sendable {
        /// Bytes, not text, until read: a chunk may end inside a multi-byte character.
        let bytes = Mutex<(out: [UInt8], err: [UInt8], openPipes: Int)>(([], [], 2))
        let exitedAt = Mutex<ContinuousClock.Instant?>(nil)
    }

    private let output = Output()
    /// When the process was started.
    let startedAt: ContinuousClock.Instant

    /// Starts `executable` with `arguments`, in `directory` and with `environment` when given
    /// (the test process's otherwise). With `closedStandardOutput`, its standard output is a pipe
    /// whose reader has gone before it writes anything, as in `survey-bot run … | head -0`.
    init(
        _ executable: String, _ arguments: [String], directory: String? = nil, environment: [String: String]? = nil,
        closedStandardOutput: Bool = false
    ) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        // Noted on Foundation's thread as the process ends, not when a test gets round to
        // asking: on a busy machine the test's own task may wait seconds for a thread.
        process.terminationHandler = { [output] _ in output.exitedAt.withLock { $0 = .now } }
        startedAt = .now
        try process.run()
        if closedStandardOutput {
            try outPipe.fileHandleForReading.close()
            output.bytes.withLock { $0.openPipes -= 1 }
        } else {
            Self.drain(outPipe.fileHandleForReading, into: output) { $0.out += $1 }
        }
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

    deinit { stop() }

    var pid: Int32 { process.processIdentifier }

    /// When the process was seen to end; nil while it runs.
    var exitedAt: ContinuousClock.Instant? { output.exitedAt.withLock { $0 } }

    /// From start to end, once it ended.
    var lifetime: Duration? { exitedAt.map { $0 - startedAt } }

    var standardOutput: String { output.bytes.withLock { String(decoding: $0.out, as: UTF8.self) } }
    var standardError: String { output.bytes.withLock { String(decoding: $0.err, as: UTF8.self) } }

    /// Everything it wrote so far: standard output, then standard error.
    var allOutput: String { output.bytes.withLock { String(decoding: $0.out + $0.err, as: UTF8.self) } }

    /// Whether it has exited and everything it wrote has been read.
    private var ended: Bool { !process.isRunning && output.bytes.withLock { $0.openPipes == 0 } }

    /// Waits for the process to end, at most `seconds`, and for its output to be read; kills it
    /// after that. Returns the status.
    func wait(seconds: Double = 60) async -> Int32 {
        if await !eventually(within: seconds, { !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
            _ = await eventually(within: 60) { !process.isRunning }
        }
        // The pipes end when the last process holding them exits: at once, unless the tool left
        // a child behind, which the deadline bounds. The exit time is noted just after the exit,
        // on Foundation's thread, and the pipes' readers are threads too: on a busy machine each
        // may wait seconds for a core.
        _ = await eventually(within: 60) { output.bytes.withLock { $0.openPipes == 0 } && exitedAt != nil }
        // Killed, yet not seen to exit within the bounds: no status to give.
        return process.isRunning ? -1 : process.terminationStatus
    }

    /// Waits until standard output contains `text`, at most `seconds`: like `eventually`'s, the
    /// default only stops a hung test (a process on a busy machine may take seconds to get going).
    func waitForOutput(_ text: String, seconds: Double = 120) async -> Bool {
        await eventually(within: seconds) { standardOutput.contains(text) }
    }

    /// Waits until standard error contains `text`, at most `seconds` (by default a hang's bound).
    func waitForError(_ text: String, seconds: Double = 120) async -> Bool {
        await eventually(within: seconds) { standardError.contains(text) }
    }

    /// The port a server prints once it listens, as `marker` then the number and a newline
    /// (`ACCEPT 127.0.0.1:41589`), waited for at most `seconds`; nil if it never printed it.
    func waitForPort(after marker: String, within seconds: Double = 60) async -> Int? {
        await waitFor(within: seconds) { process -> Int? in
            let output = process.allOutput
            guard let start = output.range(of: marker)?.upperBound, let end = output[start...].firstIndex(of: "\n") else { return nil }
            return Int(output[start..<end])
        }
    }

    /// Asks `probe` every 10 ms until it answers, the process has ended (and `probe` has seen
    /// all it wrote), or `seconds` have passed; nil unless it answered. The default bound only
    /// stops a hung test: what `probe` waits for is another process's doing, which a busy
    /// machine delays.
    func waitFor<T>(within seconds: Double = 120, _ probe: (ChildProcess) -> T?) async -> T? {
        var answer: T?
        _ = await eventually(within: seconds) {
            let ended = self.ended
            answer = probe(self)
            return answer != nil || ended
        }
        return answer
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Kills it by its PID and waits, 30 s at most, for Foundation to see it exit; does nothing
    /// the second time. Not `waitUntilExit()`: on a busy machine that was seen never to return
    /// for a child already killed, and a test's teardown calling it held one of the cooperative
    /// pool's threads — on two cores, half of them — so that every other test's scripted
    /// server, started in a task, waited for a thread until its client timed out.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<6000 where process.isRunning { usleep(5000) }
    }
}
