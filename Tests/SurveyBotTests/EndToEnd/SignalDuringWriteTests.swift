import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// Signals that come while a report file is being written, caught in the act: the executable
/// runs under `strace -f`, which holds every `fsync` for 4 s, so that the temporary file is
/// there, unfinished, when the signal goes. strace's log says whether the process waited for
/// the write: an `fsync` it left by exiting has no result (`= ?`).
@Suite(.enabled(if: Installed.strace != nil, "strace is not installed: it holds the report write open (.ci/run installs it)"))
struct SignalDuringWriteTests {
    /// `survey-bot arguments` under strace, each `fsync` held 4 s and logged to `log`.
    private func heldWrites(_ arguments: [String], log: String) throws -> ChildProcess {
        try ChildProcess(
            Installed.strace!,
            ["-f", "-qq", "-o", log, "-e", "trace=fsync", "-e", "inject=fsync:delay_enter=4000000", executablePath()] + arguments)
    }

    /// The result of each `fsync` in strace's log, in order: `0`, or `?` for the one the process
    /// was inside when it exited.
    private func fsyncResults(_ log: String) throws -> [String] {
        try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line in
            // `PID fsync(5)   = 0`, or split in two around another thread's call: `PID fsync(5
            // <unfinished ...>` and `PID <... fsync resumed>) = 0`.
            guard line.contains("fsync"), let equals = line.range(of: " = ", options: .backwards) else { return nil }
            return line[equals.upperBound...].split(separator: " ").first.map(String.init)
        }
    }

    /// What `SignalsOnWrite` saw: the temporary file, and how long survey-bot lived after the last
    /// signal.
    struct Sighting: Sendable {
        var pid: Int32?
        var temporaryFile: String?
        var endedAfter: Duration?
    }

    /// On a thread of its own — on a busy machine the test's tasks may wait seconds for a thread,
    /// longer than a held write lasts — finds survey-bot under `tracer`, waits for a temporary
    /// file of `prefix` in `directory`, sends `signals` to survey-bot 600 ms apart (two SIGINTs
    /// within 250 ms are one request), and notes when it ends.
    private func signalOnWrite(_ tracer: ChildProcess, _ prefix: String, in directory: String, _ signals: [Int32]) async -> Sighting {
        let result = Mutex<Sighting?>(nil)
        let tracerPID = tracer.pid
        let thread = Thread {
            var sighting = Sighting()
            let deadline = ContinuousClock.now + .seconds(60)
            func running(_ pid: Int32) -> Bool {
                let state = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
                return state.map { $0.split(separator: ")").last?.split(separator: " ").first != "Z" } ?? false
            }
            // strace forks short-lived children of its own first, to probe the kernel.
            while sighting.pid == nil && ContinuousClock.now < deadline && running(tracerPID) {
                let children = (try? String(contentsOfFile: "/proc/\(tracerPID)/task/\(tracerPID)/children", encoding: .utf8)) ?? ""
                sighting.pid = children.split(separator: " ").compactMap { Int32($0) }.first { child in
                    (try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8)) == "survey-bot\n"
                }
                usleep(2_000)
            }
            if let pid = sighting.pid {
                while sighting.temporaryFile == nil && ContinuousClock.now < deadline && running(pid) {
                    sighting.temporaryFile = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).first {
                        $0.hasPrefix(prefix) && $0.contains(".tmp")
                    }
                    usleep(2_000)
                }
                if sighting.temporaryFile != nil {
                    for (index, signal) in signals.enumerated() {
                        if index > 0 { usleep(600_000) }
                        kill(pid, signal)
                    }
                    let sent = ContinuousClock.now
                    while running(pid) && ContinuousClock.now < sent + .seconds(20) { usleep(2_000) }
                    if !running(pid) { sighting.endedAfter = ContinuousClock.now - sent }
                }
            }
            result.withLock { $0 = sighting }
        }
        thread.start()
        _ = await eventually(within: 120) { result.withLock { $0 != nil } }
        return result.withLock { $0 } ?? Sighting()
    }

    /// The run is over and its report is being written when Ctrl-C comes twice. The second exits
    /// at once — not after the held `fsync` calls, 4 s each — and removes the temporary file it
    /// leaves; before, both waited for the write.
    @Test func aSecondSignalWhileTheReportIsWrittenExitsAndLeavesNoTemporaryFile() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "quick.plan",
            "name: quick\ntarget: builtin\nrespondents: 4\nconcurrency: 2\nanswers:\n  \"*\": yes\nreport:\n  formats: [json]\n")
        let reports = directory.path + "/reports"
        let log = directory.missing("strace.log")
        let run = try heldWrites(["run", plan, "--out", reports, "--quiet"], log: log)
        let sighting = await signalOnWrite(run, ".quick", in: reports, [SIGINT, SIGINT])
        #expect(sighting.temporaryFile != nil, "no temporary file seen: \(sighting) \(run.standardError)")
        #expect(sighting.endedAfter != nil, "\(sighting)")
        #expect(await run.wait(seconds: 30) == 130, "\(run.standardError)")
        // It exited inside a held fsync, not after the write it interrupted.
        let results = try fsyncResults(log)
        #expect(results.last == "?", "\(results)")
        #expect(run.standardError.contains("SIGINT again: exiting without a report"), "\(run.standardError)")
        let left = try FileManager.default.contentsOfDirectory(atPath: reports)
        #expect(left.allSatisfy { !$0.contains(".tmp") }, "\(left)")
    }

    /// `merge` has no partial report to write: the first signal while it writes removes the
    /// temporary file and exits 128 + the signal's number. Before, SIGTERM killed it and left
    /// the temporary file behind.
    @Test func aSignalWhileMergeWritesLeavesNoTemporaryFile() async throws {
        let directory = try TemporaryDirectory()
        let valid = try directory.write("valid.json", ReportFixtures.report().jsonText())
        let out = directory.path + "/merged"
        let log = directory.missing("strace.log")
        let merge = try heldWrites(["merge", valid, "--out", out + "/all.json"], log: log)
        let sighting = await signalOnWrite(merge, ".all.json", in: out, [SIGTERM])
        #expect(sighting.temporaryFile != nil, "no temporary file seen: \(sighting) \(merge.standardError)")
        #expect(sighting.endedAfter != nil, "\(sighting)")
        #expect(await merge.wait(seconds: 30) == 143, "\(merge.standardError)")
        // It exited inside the held fsync, not after the write it interrupted.
        let results = try fsyncResults(log)
        #expect(results.last == "?", "\(results)")
        #expect(merge.standardError.contains("SIGTERM: stopped before \(out)/all.json was written"), "\(merge.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
    }
}
