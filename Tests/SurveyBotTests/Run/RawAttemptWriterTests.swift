import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport
@testable import SurveyWire

private func attempt(_ respondent: Int, status: Int? = 200, error: ErrorKind? = nil, reason: String? = nil) -> LoggedAttempt {
    LoggedAttempt(
        start: 1_500_000, respondent: respondent, step: .submit, attempt: 1, status: status, error: error, reason: reason,
        latency: 2_345_678, serviceTime: 1_000_400, bytes: 2)
}

/// Bytes written, and a gate that holds every write until it is opened.
private final class SlowSink: Sendable {
    let written = Mutex<[UInt8]>([])
    let writes = Atomic<Int>(0)
    let gate = DispatchSemaphore(value: 0)

    func write(_ bytes: UnsafeRawBufferPointer) -> (kept: Int, error: Int32?) {
        writes.add(1, ordering: .relaxed)
        gate.wait()
        gate.signal()
        written.withLock { $0.append(contentsOf: bytes) }
        return (bytes.count, nil)
    }

    var lines: [String] { written.withLock { String(decoding: $0, as: UTF8.self) }.split(separator: "\n").map(String.init) }
}

@Suite struct RawAttemptWriterTests {
    @Test func eachAttemptIsOneJSONLine() throws {
        var bytes: [UInt8] = []
        RawAttemptWriter.appendLine(attempt(7), startedAt: 1_795_000_000.25, to: &bytes)
        RawAttemptWriter.appendLine(attempt(8, status: nil, error: .timeout), startedAt: 1_795_000_000.25, to: &bytes)
        // A response whose body would not do: its status, its kind and why, escaped.
        RawAttemptWriter.appendLine(
            attempt(9, status: 200, error: .malformedResponse, reason: "question 1 has no integer \"id\""), startedAt: 1_795_000_000.25,
            to: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(
            text == #"""
                {"time":1795000000251,"respondent":7,"endpoint":"submit","attempt":1,"status":200,"latency_ms":2.346,"service_ms":1.000,"bytes":2}
                {"time":1795000000251,"respondent":8,"endpoint":"submit","attempt":1,"error":"timeout","latency_ms":2.346,"service_ms":1.000,"bytes":2}
                {"time":1795000000251,"respondent":9,"endpoint":"submit","attempt":1,"status":200,"error":"malformed_response","reason":"question 1 has no integer \"id\"","latency_ms":2.346,"service_ms":1.000,"bytes":2}

                """#)
        for line in text.split(separator: "\n") {
            #expect(throws: Never.self) { try JSONValue.parse(Array(line.utf8)).get() }
        }
    }

    /// A disk that cannot keep up: the writer is stuck in a write, the lanes fill, and the
    /// attempts after that are dropped and counted — offering them never waits. Once the disk
    /// comes back, every attempt is either a line or a drop.
    @Test func aSlowDiskDropsAndCountsWithoutSlowingTheRun() async throws {
        let sink = SlowSink()
        let log = AttemptLog(lanes: 2, capacity: 8)
        let writer = RawAttemptWriter(log: log, sink: { sink.write($0) }, path: "slow.jsonl", interval: 1_000)
        writer.begin(at: Date())
        log.offer(attempt(0), lane: 0)
        // The writer takes the first attempt and blocks in its write.
        #expect(await eventually { sink.writes.load(ordering: .relaxed) == 1 })
        let clock = ContinuousClock()
        let offering = clock.measure {
            for respondent in 1..<1_000 { log.offer(attempt(respondent), lane: respondent % 2) }
        }
        #expect(offering < .seconds(1), "offering waited for the disk: \(offering)")
        #expect(log.dropped == 999 - 16)
        sink.gate.signal()
        let outcome = await writer.finish()
        #expect(outcome == RawAttemptWriter.Outcome(lines: 17, dropped: 983, failure: nil))
        #expect(sink.lines.count == 17)
        #expect(writer.progress == (17, 983))
    }

    @Test func aFailedWriteDropsTheRestAndSaysWhy() async throws {
        let log = AttemptLog(lanes: 1)
        let calls = Atomic<Int>(0)
        let writer = RawAttemptWriter(
            log: log, sink: { calls.add(1, ordering: .relaxed).oldValue == 0 ? ($0.count, nil) : (0, ENOSPC) }, path: "full.jsonl",
            interval: 1_000)
        writer.begin(at: Date())
        log.offer(attempt(0), lane: 0)
        #expect(await eventually { calls.load(ordering: .relaxed) == 1 })
        for respondent in 1...5 { log.offer(attempt(respondent), lane: 0) }
        let outcome = await writer.finish()
        #expect(outcome.lines == 1 && outcome.dropped == 5)
        #expect(outcome.failure == "cannot write full.jsonl: no space left on device")
    }

    @Test func theRawFileIsEmptiedAndNeverALinkFIFOOrDirectory() throws {
        let directory = try TemporaryDirectory()
        let existing = try directory.write("old.jsonl", "old lines\n")
        let file = try RawFile.open(existing).get()
        let wrote = Array("new\n".utf8).withUnsafeBytes { file.write($0) }
        #expect(wrote.kept == 4 && wrote.error == nil)
        #expect(file.close() == nil)
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "new\n")

        let target = try directory.write("target", "keep me")
        let link = directory.missing("link.jsonl")
        #expect(symlink(target, link) == 0)
        let fifo = directory.missing("fifo.jsonl")
        #expect(mkfifo(fifo, 0o644) == 0)
        let cases: [(String, String)] = [
            (link, "is a symbolic link, not a file"), (fifo, "is a FIFO, not a file"), (directory.path, "is a directory"),
            ("/dev/null", "is a device, not a file"), (directory.missing("no/such.jsonl"), "no such file or directory"),
        ]
        for (path, reason) in cases {
            #expect(throws: FileError(action: "write", path: path, reason: reason)) { try RawFile.open(path).get() }
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me")
    }

    /// A disk that fills part way through a write: `write` takes `budget` bytes, in writes of
    /// at most 100 (short writes), then fails with `ENOSPC`.
    private static func fillingDisk(budget: Int) -> (Int32, UnsafeRawPointer, Int) -> Int {
        var left = budget
        return { fd, pointer, count in
            guard left > 0 else {
                errno = ENOSPC
                return -1
            }
            let n = Glibc.write(fd, pointer, min(count, left, 100))
            if n > 0 { left -= n }
            return n
        }
    }

    @Test func aWriteTheDiskCutsShortKeepsItsCompleteLinesAndTakesTheTornOneBack() throws {
        let directory = try TemporaryDirectory()
        let file = try RawFile.open(directory.path + "/raw.jsonl").get()
        var lines: [UInt8] = []
        for respondent in 0..<5 { RawAttemptWriter.appendLine(attempt(respondent), startedAt: 0, to: &lines) }
        let lineLength = lines.count / 5
        let first = lines.withUnsafeBytes { file.write($0) }
        #expect(first.kept == lines.count && first.error == nil)
        // Room for two lines and a half of the next five.
        let second = lines.withUnsafeBytes { file.write($0, using: Self.fillingDisk(budget: lineLength * 5 / 2)) }
        #expect(second.error == ENOSPC)
        #expect(second.kept == 2 * lineLength)
        #expect(file.close() == nil)
        let text = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        #expect(text.split(separator: "\n").count == 7)
        #expect(text.split(separator: "\n").allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil })
    }

    @Test func theLinesCountedAreTheLinesTheFileHoldsWhenTheDiskFills() async throws {
        let directory = try TemporaryDirectory()
        let file = try RawFile.open(directory.path + "/raw.jsonl").get()
        let log = AttemptLog(lanes: 1)
        let budget = Mutex(1_000)
        let writer = RawAttemptWriter(
            log: log,
            sink: { bytes in
                let left = budget.withLock { $0 }
                let result = file.write(bytes, using: Self.fillingDisk(budget: left))
                budget.withLock { $0 = max(0, left - bytes.count) }
                return result
            }, path: file.path, interval: 1_000)
        writer.begin(at: Date())
        for respondent in 0..<100 { log.offer(attempt(respondent), lane: 0) }
        let outcome = await writer.finish()
        #expect(file.close() == nil)
        let text = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(text.isEmpty || text.hasSuffix("\n"))
        #expect(outcome.lines == text.split(separator: "\n").count)
        #expect(outcome.lines > 0 && outcome.lines + outcome.dropped == 100)
        #expect(outcome.failure?.hasSuffix("no space left on device") == true)
    }
}
