import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport

// The 2 s timeout is far above a loopback answer even on a busy machine, so that only the
// server's hangs time out and the report's timeouts can be checked against them one for one.
private let faultyPlan = """
    name: e2e
    target: http://127.0.0.1:1
    respondents: 40
    concurrency: 8
    timeout: 2s
    seed: 3
    answers:
      "*": yes
    retry:
      questions:
        attempts: 4
        backoff: constant
        initial: 5ms
        on: [5xx, timeout, connection, malformed]
      submit:
        attempts: 3
        backoff: constant
        initial: 5ms
        on: [400, 5xx, timeout, connection, malformed]
    report:
      formats: [json, markdown, junit]
    """

/// The real executable against the reference server on loopback, with faults on.
@Suite(.serialized) struct RunEndToEndTests {
    @Test func reportEqualsWhatTheServerSaw() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("e2e.plan", faultyPlan)
        let (server, url) = try await startServer([
            "--fail-rate", "20%", "--error-rate", "10%", "--reset-rate", "3%", "--malformed-rate", "3%", "--hang-rate", "1%",
            "--cold-start", "3", "--seed", "11",
        ])
        let run = try ChildProcess(surveyBot: ["run", plan, "--target", url, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 60)
        let stats = try await fetchStats(url)
        server.signal(SIGTERM)
        #expect(await server.wait() == 0)
        // The plan has no thresholds, so a run that ends and writes its report passes, whatever
        // the faults did to it: 1 would mean a failed threshold or a lost report.
        #expect(status == 0, "\(run.standardError)")
        let report = try RunReport.read(path: "\(directory.path)/e2e-latest.json")
        // Nothing lost, nothing counted twice: attempts and statuses match the server's count.
        for name in ["questions", "submit"] {
            let endpoint = try #require(report.stepReports[name])
            #expect(endpoint.attempts == stats.requests(name), "\(name)")
            let serverOutcomes = stats.endpoints[name] ?? [:]
            // Every status either side saw, the same count on both; and every other outcome the
            // server counts is a fault checked below, one for one with the report's errors.
            #expect(endpoint.status == serverOutcomes.filter { Int($0.key) != nil }, "\(name)")
            #expect(Set(serverOutcomes.keys.filter { Int($0) == nil }).isSubset(of: ["reset", "hang", "malformed"]), "\(name)")
            #expect(endpoint.errors["connection_reset", default: 0] == serverOutcomes["reset", default: 0], "\(name) resets")
            #expect(endpoint.errors["timeout", default: 0] == serverOutcomes["hang", default: 0], "\(name) hangs")
            #expect(endpoint.errors["malformed_response", default: 0] == serverOutcomes["malformed", default: 0], "\(name) malformed")
        }
        #expect(report.respondents.started == 40)
        #expect(
            report.respondents.started == report.respondents.completed + report.respondents.finishedWithUnanswered
                + report.respondents.abandoned)
        // How many retries depends on which respondent meets which of the server's seeded faults,
        // which depends on how the eight interleave; that there are some does not (20% of
        // submits fail, and each failure is retried).
        #expect(report.stepReports["submit"]!.retries > 0)
        #expect(FileManager.default.fileExists(atPath: "\(directory.path)/e2e-latest.md"))
        #expect(FileManager.default.fileExists(atPath: "\(directory.path)/e2e-latest.xml"))
    }

    @Test func firstSignalWritesAPartialReportAndExits130() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("slow.plan", faultyPlan.replacingOccurrences(of: "respondents: 40", with: "respondents: 100000"))
        let (server, url) = try await startServer(["--latency", "20ms"])
        // Each respondent thinks 5 s before each of its ten answers. The signal goes once the
        // server has seen all eight first respondents ask for their questions and one submit:
        // the run is under way (its signal handling too), and for the next 45 s none of the
        // eight can have finished its survey, nor a ninth have started — a window a machine busy
        // with other tests does not close, as 1 s of think time (9 s) might. The signal ends the
        // thinking at once: the test waits for the first submit, not for the think times after.
        let run = try ChildProcess(surveyBot: ["run", plan, "--target", url, "--out", directory.path, "--quiet", "--set", "think=5s"])
        let underWay = try await eventually {
            let stats = try await fetchStats(url)
            return stats.requests("questions") >= 8 && stats.requests("submit") >= 1
        }
        #expect(underWay, "the run never got going: \(run.standardError)")
        let sentAt = ContinuousClock.now
        run.signal(SIGINT)
        let status = await run.wait(seconds: 30)
        let stopped = try #require(run.exitedAt) - sentAt
        let stats = try await fetchStats(url)
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)
        #expect(status == 130, "\(run.standardError)")
        // Thinking respondents notice the stop within 50 ms and the attempts in flight end
        // within 20 ms: well under a second on a quiet machine. The bound is generous for a
        // busy one and still far below the 45 s any of the eight would need to finish its survey.
        #expect(stopped < .seconds(15), "stopped \(stopped) after the signal")
        let report = try RunReport.read(path: "\(directory.path)/e2e-latest.json")
        #expect(report.interrupted)
        #expect(report.respondents.started == 8, "\(report.respondents)")
        #expect(report.respondents.abandonedReasons == ["interrupted": 8], "\(report.respondents)")
        // Their answers so far are kept, one for one with what the server accepted: the partial
        // report is a true account.
        #expect(report.answers.submitted == report.stepReports["submit"]?.succeeded)
        #expect(report.answers.submitted == stats.endpoints["submit"]?["200"])
        #expect(report.stepReports["submit"]?.attempts == stats.requests("submit"))
        #expect(report.answers.submitted > 0)
    }

    @Test func secondSignalExitsAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("slow.plan", faultyPlan.replacingOccurrences(of: "respondents: 40", with: "respondents: 100000"))
        let (server, url) = try await startServer(["--hang-rate", "100%"])
        // Every request hangs for the 60 s timeout: after the first signal the run would wait for
        // them, so only the second can end it within the 20 s this test waits.
        let run = try ChildProcess(surveyBot: ["run", plan, "--target", url, "--out", directory.path, "--quiet", "--set", "timeout=60s"])
        let underWay = try await eventually { try await fetchStats(url).requests("questions") >= 1 }
        #expect(underWay, "the run never got going: \(run.standardError)")
        run.signal(SIGINT)
        // The second signal only after the first was taken in, or the two could arrive as one.
        #expect(await run.waitForError("SIGINT: stopping"), "\(run.standardError)")
        // A person's second Ctrl-C: later than a copy of the first could come (`SignalRequests`).
        try await Task.sleep(for: .milliseconds(400))
        run.signal(SIGINT)
        let status = await run.wait(seconds: 20)
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)
        #expect(status == 130, "\(run.standardError)")
        #expect(run.standardError.contains("SIGINT again: exiting without a report"))
        #expect(!FileManager.default.fileExists(atPath: "\(directory.path)/e2e-latest.json"))
    }

    @Test func badPlanSendsNothingAndExits2() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("bad.plan", "target: builtin\nconcurency: 5\n")
        let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path])
        #expect(await run.wait(seconds: 30) == 2)
        #expect(run.standardError.contains("bad.plan:2:1: error: unknown key 'concurency'"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["bad.plan"])
    }

    @Test func unwritableReportDirectoryIsRefusedBeforeTheRun() async throws {
        let directory = try TemporaryDirectory()
        let blocker = try directory.write("file", "not a directory")
        let run = try ChildProcess(surveyBot: ["run", repositoryPath("plans/smoke.plan"), "--out", blocker + "/reports"])
        #expect(await run.wait(seconds: 30) == 2)
        #expect(run.standardError.contains("cannot create the report directory"))
        #expect(run.standardError.contains("nothing was sent"))
    }
}
