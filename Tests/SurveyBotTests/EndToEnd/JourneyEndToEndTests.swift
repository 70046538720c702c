import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport

/// Declared journeys run by the real executable against `survey-bot serve --login`, reconciled
/// with what the server counted; and the default journey spelt out as steps, which runs exactly
/// as the default does.
@Suite struct JourneyEndToEndTests {
    @Test func everySessionOpenedIsUsedAndClosedAndTheServerCountsWhatTheReportSays() async throws {
        let (server, url) = try await startServer(["--login", "--questions", "5", "--fail-rate", "10%", "--seed", "3"])
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        var plan = try String(contentsOfFile: repositoryPath("plans/journey.plan"), encoding: .utf8)
        // The same journey against the served API: no builtin block, the server's URL.
        plan = String(plan[..<plan.range(of: "builtin:")!.lowerBound]).replacingOccurrences(of: "target: builtin", with: "target: \(url)")
        let path = try directory.write("journey.plan", plan)
        let run = try ChildProcess(surveyBot: ["run", path, "--out", directory.path, "--quiet"])
        #expect(await run.wait(seconds: 60) == 0, "\(run.standardError)")
        let report = try RunReport.read(path: directory.path + "/journey-latest.json")
        let stats = try await fetchStats(url)

        #expect(report.stepNames == ["session", "fetch", "answer", "logout"])
        let steps = report.endpoints
        #expect(steps["session"]?.calls == 20 && steps["session"]?.succeeded == 20)
        #expect(steps["logout"]?.calls == 20 && steps["logout"]?.succeeded == 20)
        #expect(report.respondents.completed == 20)
        #expect(report.answers.submitted == 100)
        // The server's own count: 20 sessions, each closed, each used by its own respondent only —
        // its fetch, its answers' attempts (retries included) and its logout.
        #expect(stats.sessions.count == 20)
        #expect(stats.closedSessions == 20)
        let answerAttempts = try #require(steps["answer"]?.attempts)
        #expect(stats.sessions.values.reduce(0, +) == 20 + answerAttempts + 20)
        #expect(stats.requests("submit") == answerAttempts)
        #expect(stats.endpoints["submit"]?["200"] == 100)
        #expect(stats.endpoints["session"] == ["200": 20, "204": 20])
        #expect(steps["answer"]?.retries == answerAttempts - 100)
        #expect(answerAttempts > 100, "a 10% fail rate over 100 answers retried none: \(answerAttempts)")
    }

    @Test func theDefaultJourneySpeltOutAsStepsRunsExactlyAsTheDefault() async throws {
        let directory = try TemporaryDirectory()
        let base = lines(
            "target: builtin", "respondents: 12", "concurrency: 1", "seed: 5", "builtin:", "  questions: 3", "  fail_rate: 20%",
            "  error_rate: 5%", "report:", "  dir: \(directory.path)")
        let spelt = lines(
            "journey:", "  questions:", "    request: GET /questions", "    questions: $", "  submit:",
            "    request: POST /question/submit",
            "    runs: per_question", "    retry:", "      on: [400, 5xx, timeout, connection]")
        let defaultPlan = try directory.write("default.plan", "name: default\n" + base)
        let journeyPlan = try directory.write("spelt.plan", "name: spelt\n" + base + spelt)
        for plan in [defaultPlan, journeyPlan] {
            let result = await runCommand(["run", plan, "--quiet"])
            #expect(result.status.rawValue <= 1, "\(result.err)")
        }
        let one = try RunReport.read(path: directory.path + "/default-latest.json")
        let other = try RunReport.read(path: directory.path + "/spelt-latest.json")
        #expect(one.stepNames == other.stepNames)
        for step in ["questions", "submit"] {
            let a = try #require(one.endpoints[step])
            let b = try #require(other.endpoints[step])
            let counts: [Int] = [a.calls, a.attempts, a.succeeded, a.retries]
            let otherCounts: [Int] = [b.calls, b.attempts, b.succeeded, b.retries]
            #expect(counts == otherCounts, "\(step)")
            #expect(a.status == b.status, "\(step)")
        }
        #expect(one.respondents == other.respondents, "respondents")
        #expect(one.answers == other.answers)
        #expect((one.endpoints["submit"]?.retries ?? 0) > 0)
    }
}
