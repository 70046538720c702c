import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine

private let faultyPlan = """
    name: e2e
    target: http://127.0.0.1:1
    respondents: 40
    concurrency: 8
    timeout: 300ms
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
        let run = try RunningTool(["run", plan, "--target", url, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 60)
        let stats = try await fetchStats(url)
        server.signal(SIGTERM)
        #expect(await server.wait(seconds: 10) == 0)
        #expect(status == 0 || status == 1, "\(run.standardError)")
        let report = try RunReport.read(path: "\(directory.path)/e2e-latest.json")
        // Nothing lost, nothing counted twice: attempts and statuses match the server's count.
        for name in ["questions", "submit"] {
            let endpoint = try #require(report.endpoints[name])
            #expect(endpoint.attempts == stats.requests(name), "\(name)")
            let serverOutcomes = stats.endpoints[name] ?? [:]
            for (code, count) in endpoint.status {
                #expect(serverOutcomes[code] == count, "\(name) \(code)")
            }
            #expect(endpoint.errors["connection_reset", default: 0] == serverOutcomes["reset", default: 0], "\(name) resets")
            #expect(endpoint.errors["timeout", default: 0] == serverOutcomes["hang", default: 0], "\(name) hangs")
            #expect(endpoint.errors["malformed_response", default: 0] == serverOutcomes["malformed", default: 0], "\(name) malformed")
        }
        #expect(report.respondents.started == 40)
        #expect(
            report.respondents.started == report.respondents.completed + report.respondents.finishedWithUnanswered
                + report.respondents.abandoned)
        #expect(report.endpoints["submit"]!.retries > 0)
        #expect(FileManager.default.fileExists(atPath: "\(directory.path)/e2e-latest.md"))
        #expect(FileManager.default.fileExists(atPath: "\(directory.path)/e2e-latest.xml"))
    }

    @Test func firstSignalWritesAPartialReportAndExits130() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("slow.plan", faultyPlan.replacingOccurrences(of: "respondents: 40", with: "respondents: 100000"))
        let (server, url) = try await startServer(["--latency", "20ms"])
        // Each respondent thinks 300 ms before each of its ten answers: when the signal comes,
        // the first eight are all in the middle of their survey.
        let run = try RunningTool(["run", plan, "--target", url, "--out", directory.path, "--quiet", "--set", "think=300ms"])
        try await Task.sleep(for: .milliseconds(700))
        let sentAt = ContinuousClock.now
        run.signal(SIGINT)
        let status = await run.wait(seconds: 20)
        let stopped = ContinuousClock.now - sentAt
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)
        #expect(status == 130, "\(run.standardError)")
        // Attempts in flight finish within the 300 ms timeout; nothing waits much longer.
        #expect(stopped < .seconds(5))
        let report = try RunReport.read(path: "\(directory.path)/e2e-latest.json")
        #expect(report.interrupted)
        #expect(report.respondents.started == 8, "\(report.respondents)")
        #expect(report.respondents.abandonedReasons == ["interrupted": 8], "\(report.respondents)")
        // Their answers so far are kept: the partial report is a true account.
        #expect(report.answers.submitted == report.endpoints["submit"]?.succeeded)
        #expect(report.answers.submitted > 0)
    }

    @Test func secondSignalExitsAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("slow.plan", faultyPlan.replacingOccurrences(of: "respondents: 40", with: "respondents: 100000"))
        let (server, url) = try await startServer(["--hang-rate", "100%"])
        let run = try RunningTool(["run", plan, "--target", url, "--out", directory.path, "--quiet", "--set", "timeout=30s"])
        try await Task.sleep(for: .milliseconds(500))
        run.signal(SIGINT)
        try await Task.sleep(for: .milliseconds(200))
        run.signal(SIGINT)
        let status = await run.wait(seconds: 10)
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)
        #expect(status == 130)
        #expect(!FileManager.default.fileExists(atPath: "\(directory.path)/e2e-latest.json"))
    }

    @Test func badPlanSendsNothingAndExits2() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("bad.plan", "target: builtin\nconcurency: 5\n")
        let run = try RunningTool(["run", plan, "--out", directory.path])
        #expect(await run.wait(seconds: 30) == 2)
        #expect(run.standardError.contains("bad.plan:2:1: error: unknown key 'concurency'"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["bad.plan"])
    }

    @Test func unwritableReportDirectoryIsRefusedBeforeTheRun() async throws {
        let directory = try TemporaryDirectory()
        let blocker = try directory.write("file", "not a directory")
        let run = try RunningTool(["run", repositoryPath("plans/smoke.plan"), "--out", blocker + "/reports"])
        #expect(await run.wait(seconds: 30) == 2)
        #expect(run.standardError.contains("cannot create the report directory"))
        #expect(run.standardError.contains("nothing was sent"))
    }
}
