import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// A signal and its copies: what GNU `timeout`, CI runners, systemd and Kubernetes send (the
/// process, then its process group) is one request to stop, and a run so bounded always writes
/// its partial report.
@Suite struct SignalRequestsTests {
    @Test func aCopyOfTheSameSignalArrivingAtOnceIsTheSameRequest() {
        var requests = SignalRequests(allowed: 1)
        #expect(requests.receive(SIGINT, at: 1_000_000_000) == .takeIn)
        #expect(requests.receive(SIGINT, at: 1_000_050_000) == .repeated, "50 µs later: the process group's copy")
        #expect(requests.receive(SIGINT, at: 1_200_000_000) == .repeated)
        #expect(requests.receive(SIGINT, at: 1_300_000_000) == .exitNow, "300 ms after the first: a second Ctrl-C")
    }

    @Test func anotherSignalIsAnotherRequestAtOnce() {
        var requests = SignalRequests(allowed: 1)
        #expect(requests.receive(SIGTERM, at: 5) == .takeIn)
        #expect(requests.receive(SIGINT, at: 6) == .exitNow)
    }

    @Test func theWindowCountsFromTheSignalTakenInNotFromItsCopies() {
        var requests = SignalRequests(allowed: 1)
        #expect(requests.receive(SIGHUP, at: 0) == .takeIn)
        // Copies every 100 ms do not stretch the first request forever.
        #expect(requests.receive(SIGHUP, at: 100_000_000) == .repeated)
        #expect(requests.receive(SIGHUP, at: 200_000_000) == .repeated)
        #expect(requests.receive(SIGHUP, at: 260_000_000) == .exitNow)
    }

    @Test func withMoreAllowedEachRequestIsTakenInUntilTheLast() {
        var requests = SignalRequests(allowed: 2)
        #expect(requests.receive(SIGINT, at: 0) == .takeIn)
        #expect(requests.receive(SIGINT, at: 1_000_000_000) == .takeIn)
        #expect(requests.receive(SIGINT, at: 2_000_000_000) == .exitNow)
    }

    /// The real coreutils `timeout`, which signals the child and then its process group, run
    /// again and again: every run ends with its partial report.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/timeout")))
    func aRunBoundedByTimeoutAlwaysWritesItsPartialReport() async throws {
        let bot = try executablePath()
        let plan = repositoryPath("plans/smoke.plan")
        var outcomes: [(signal: String, status: Int32, report: Bool, stderr: String)] = []
        // 24 runs, four at a time: a run lasts about two seconds.
        for batch in 0..<6 {
            var runs: [(String, TemporaryDirectory, ChildProcess)] = []
            for index in 0..<4 {
                let signal = (batch * 4 + index) % 3 == 2 ? "TERM" : "INT"
                let directory = try TemporaryDirectory()
                let run = try ChildProcess(
                    "/usr/bin/timeout",
                    [
                        "--preserve-status", "-s", signal, "2", bot, "run", plan, "--duration", "4s", "--respondents", "100000", "--out",
                        directory.path,
                    ])
                runs.append((signal, directory, run))
            }
            for (signal, directory, run) in runs {
                let status = await run.wait(seconds: 30)
                let report = FileManager.default.fileExists(atPath: directory.path + "/smoke-latest.json")
                outcomes.append((signal, status, report, run.standardError))
            }
        }
        // A run the signal met before it started (a machine so busy that starting took the whole
        // 2 s) has no report to write: it says nothing, and ends as the signal's default would.
        let started = outcomes.filter { $0.stderr.contains("running smoke against") }
        for outcome in outcomes {
            #expect(outcome.status == (outcome.signal == "INT" ? 130 : 143), "\(outcome.signal): \(outcome.stderr)")
            #expect(!outcome.stderr.contains("again: exiting without a report"), "\(outcome.stderr)")
        }
        for outcome in started { #expect(outcome.report, "SIG\(outcome.signal) left no report: \(outcome.stderr)") }
        #expect(outcomes.count == 24)
        #expect(started.count >= 20, "only \(started.count) of 24 runs started within 2 s: too busy a machine to tell")
    }
}
