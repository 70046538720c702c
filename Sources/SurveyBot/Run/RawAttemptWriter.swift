import Foundation
import SurveyEngine
import SurveyJourney
import SurveyMetrics
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes every attempt of a run as one JSON line (`run --raw FILE.jsonl`), on a thread of its
/// own, from the run's `AttemptLog`.
///
/// Respondents only hand attempts to the log's bounded lanes; this thread takes them every
/// `interval`, formats them and writes them. When the disk cannot keep up the lanes fill and
/// the log drops what does not fit; when a write fails, the rest of the run's lines are
/// dropped: either way they are counted, in the report's `raw.dropped`, and the load never
/// waits for the file. The lines are those of docs/exports.md: no header, no path, and of a
/// body only a failure's excerpt, its secrets masked.
final class RawAttemptWriter: Sendable {
    /// Writes whole lines somewhere: how many bytes of them it kept — all, or when a write
    /// failed part way, those of the complete lines it wrote, a torn last line taken back —
    /// and the error number when it could not write them all.
    typealias Sink = @Sendable (UnsafeRawBufferPointer) -> (kept: Int, error: Int32?)

    /// What the writer did: lines written, lines dropped, and why writing stopped, if it did.
    struct Outcome: Sendable, Equatable {
        var lines: Int
        var dropped: Int
        /// `cannot write FILE: no space left on device`, when a write failed.
        var failure: String?
    }

    private struct State {
        var lines = 0
        /// Lines not written after a write failed.
        var lost = 0
        var failure: String?
        var stopping = false
        var finished: Outcome?
        var waiters: [CheckedContinuation<Outcome, Never>] = []
    }

    let log: AttemptLog
    private let sink: Sink
    private let path: String
    /// The wall clock when the run began, in seconds since the epoch, once known.
    private let startedAt = Mutex<Double?>(nil)
    private let interval: UInt32
    private let state = Mutex(State())

    /// A writer of `log`'s attempts into `sink`, its thread started at once; `path` names the
    /// file in errors. `interval` is how long the thread sleeps between two rounds, in
    /// microseconds. Nothing is taken from the log before `begin(at:)`.
    init(log: AttemptLog, sink: @escaping Sink, path: String, interval: UInt32 = 20_000) {
        self.log = log
        self.sink = sink
        self.path = path
        self.interval = interval
        let thread = Thread { [self] in self.loop() }
        thread.name = "survey-bot raw writer"
        thread.start()
    }

    /// Says when the run began (the report's `started_at`): each line's time is that plus the
    /// attempt's start.
    func begin(at date: Date) {
        startedAt.withLock { $0 = date.timeIntervalSince1970 }
    }

    /// Lines written and dropped so far: live figures for `--metrics-listen`.
    var progress: (lines: Int, dropped: Int) {
        let (lines, lost) = state.withLock { ($0.lines, $0.lost) }
        return (lines, lost + log.dropped)
    }

    /// Writes what is left in the log, stops the thread and says what was done. Call it once
    /// no attempt can be offered any more (the run has returned); a second call returns the
    /// same outcome.
    func finish() async -> Outcome {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Outcome? in
                if let finished = state.finished { return finished }
                state.stopping = true
                state.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    private func loop() {
        var spare: [LoggedAttempt] = []
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 16)
        while true {
            let stopping = state.withLock { $0.stopping }
            if let startedAt = startedAt.withLock({ $0 }) ?? (stopping ? 0 : nil) {
                for lane in 0..<log.laneCount {
                    log.drain(lane: lane, into: &spare)
                    write(spare, startedAt: startedAt, using: &bytes)
                }
            }
            // After a last round that began once no attempt could come any more: nothing is left.
            if stopping { break }
            usleep(interval)
        }
        let (outcome, waiters) = state.withLock { state in
            let outcome = Outcome(lines: state.lines, dropped: state.lost + log.dropped, failure: state.failure)
            state.finished = outcome
            defer { state.waiters = [] }
            return (outcome, state.waiters)
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    private func write(_ attempts: [LoggedAttempt], startedAt: Double, using bytes: inout [UInt8]) {
        guard !attempts.isEmpty else { return }
        if state.withLock({ $0.failure != nil }) {
            state.withLock { $0.lost += attempts.count }
            return
        }
        bytes.removeAll(keepingCapacity: true)
        for attempt in attempts { Self.appendLine(attempt, startedAt: startedAt, to: &bytes) }
        let (kept, error) = bytes.withUnsafeBytes { sink($0) }
        // The lines the file holds are those counted: a write the disk cut short still wrote
        // the complete lines before the cut.
        let written = error == nil ? attempts.count : bytes[..<min(kept, bytes.count)].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        state.withLock { state in
            if let error { state.failure = "cannot write \(path): \(FileAccess.reason(error))" }
            state.lines += written
            state.lost += attempts.count - written
        }
    }

    /// One attempt's line, with its newline:
    /// `{"time":1763924999123,"respondent":7,"endpoint":"submit","attempt":1,"status":200,"latency_ms":1.234,"service_ms":1.234,"bytes":2}`;
    /// `status` whenever a response came, `"error":"timeout"` when the attempt got no usable
    /// response, `"reason"` when its failure has more to say than its kind, and `"question"`
    /// (the id, as text) for an attempt of a step per question.
    static func appendLine(_ attempt: LoggedAttempt, startedAt: Double, to bytes: inout [UInt8]) {
        func append(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }
        func append(_ number: Int) {
            bytes.append(contentsOf: String(number).utf8)
        }
        func appendMilliseconds(_ nanoseconds: UInt64) {
            let micros = (nanoseconds + 500) / 1_000
            append(Int(micros / 1_000))
            bytes.append(UInt8(ascii: "."))
            let fraction = Int(micros % 1_000)
            if fraction < 100 { bytes.append(UInt8(ascii: "0")) }
            if fraction < 10 { bytes.append(UInt8(ascii: "0")) }
            append(fraction)
        }
        append(#"{"time":"#)
        append(Int((startedAt * 1_000).rounded()) + Int(attempt.start / 1_000_000))
        append(#","respondent":"#)
        append(attempt.respondent)
        // `endpoint`: the step's name, under the name steps had before journeys.
        append(#","endpoint":"#)
        bytes.append(contentsOf: JSONValue.quoted(attempt.step.name).utf8)
        append(#","attempt":"#)
        append(attempt.attempt)
        if let question = attempt.question {
            append(#","question":"#)
            bytes.append(contentsOf: JSONValue.quoted(question).utf8)
        }
        if let status = attempt.status {
            append(#","status":"#)
            append(status)
        }
        if let error = attempt.error ?? (attempt.status == nil ? .malformedResponse : nil) {
            append(#","error":""#)
            bytes.append(contentsOf: error.rawValue.utf8)
            bytes.append(UInt8(ascii: "\""))
        }
        if let reason = attempt.reason {
            append(#","reason":"#)
            bytes.append(contentsOf: JSONValue.quoted(reason).utf8)
        }
        append(#","latency_ms":"#)
        appendMilliseconds(attempt.latency)
        append(#","service_ms":"#)
        appendMilliseconds(attempt.serviceTime)
        append(#","bytes":"#)
        append(attempt.bytes)
        append("}\n")
    }
}

/// The file `--raw` writes into: opened once before the run, truncated, never through a link.
struct RawFile: Sendable {
    let path: String
    let fd: Int32

    /// Opens `path` for writing, creating or emptying it (`O_CREAT | O_TRUNC | O_NOFOLLOW`,
    /// mode 0644 less the umask): a symbolic link there is refused, never followed, and so is a
    /// directory, FIFO, socket or device — checked before it is opened and again once it is.
    static func open(_ path: String) -> Result<RawFile, FileError> {
        func failure(_ reason: String) -> Result<RawFile, FileError> {
            .failure(FileError(action: "write", path: path, reason: reason))
        }
        var status = stat()
        if lstat(path, &status) == 0 {
            if status.st_mode & S_IFMT == S_IFLNK { return failure("is a symbolic link, not a file") }
            if let refusal = FileAccess.refusal(mode: status.st_mode) { return failure(refusal) }
        }
        // Non-blocking, so that a FIFO swapped in since the check cannot hold the open.
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0o644)
        guard fd >= 0 else {
            return failure(errno == ELOOP ? "is a symbolic link, not a file" : FileAccess.reason(errno))
        }
        guard fstat(fd, &status) == 0 else {
            let reason = FileAccess.reason(errno)
            _ = Glibc.close(fd)
            return failure(reason)
        }
        if let refusal = FileAccess.refusal(mode: status.st_mode) {
            _ = Glibc.close(fd)
            return failure(refusal)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return .success(RawFile(path: path, fd: fd))
    }

    /// Writes all of `bytes`, whole lines, short writes continued: all of them kept, or, when a
    /// write fails part way (a full disk), the file cut back to the end of the last complete
    /// line, so that it never ends in a fragment; `kept` is then the bytes of the lines before
    /// it. `write` is the system's call; tests fail it part way.
    func write(
        _ bytes: UnsafeRawBufferPointer,
        using write: (Int32, UnsafeRawPointer, Int) -> Int = { Glibc.write($0, $1, $2) }
    ) -> (kept: Int, error: Int32?) {
        var offset = 0
        while offset < bytes.count {
            let count = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                let error = errno
                if error == EINTR { continue }
                let kept = bytes[..<offset].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
                if kept < offset {
                    // The file ends `offset - kept` bytes into a line: those are taken back.
                    let end = lseek(fd, 0, SEEK_CUR) - off_t(offset - kept)
                    if end >= 0, ftruncate(fd, end) == 0 { _ = lseek(fd, end, SEEK_SET) }
                }
                return (kept, error)
            }
            offset += count
        }
        return (bytes.count, nil)
    }

    /// Flushes the file to disk and closes it; returns the error number when the flush failed.
    func close() -> Int32? {
        let synced = fsync(fd)
        let error = errno
        _ = Glibc.close(fd)
        return synced == 0 ? nil : error
    }
}
