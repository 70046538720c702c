import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport

/// `plans/html-pages.plan` against `serve --api html --survey typed`: a browser's walk of HTML
/// pages — the session cookie, each page's form with its CSRF token and page key posted back,
/// the answers read from the page's inputs — and the report reconciled with what the server
/// says it stored, question by question.
@Suite struct HTMLPagesEndToEndTests {
    /// Runs the plan, its `target` the server's URL and its `builtin` block dropped, with
    /// `options` added; the report, the exit status and the server's stats.
    func run(_ options: [String] = []) async throws -> (RunReport, Int32, ReferenceServerStats) {
        let (server, url) = try await startServer(["--api", "html", "--survey", "typed", "--seed", "5"])
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        var text = try String(contentsOfFile: repositoryPath("plans/html-pages.plan"), encoding: .utf8)
        let builtin = try #require(text.range(of: "\nbuiltin:\n  api: html\n  survey: typed\n"))
        text.removeSubrange(builtin)
        text = text.replacingOccurrences(of: "target: builtin", with: "target: \(url)")
        let path = try directory.write("html-pages.plan", text)
        let run = try ChildProcess(surveyBot: ["run", path, "--out", directory.path, "--quiet"] + options)
        let status = await run.wait(seconds: 60)
        let report = try RunReport.read(path: directory.path + "/html-pages-latest.json")
        return (report, status, try await fetchStats(url))
    }

    @Test func theHTMLPlanAnswersFromThePagesAndItsFiguresAreTheServersQuestionByQuestion() async throws {
        let (report, status, stats) = try await run()
        #expect(status == 0)
        #expect(report.respondents.completed == 20 && stats.stored.responses == 20)
        // Every session its own cookie, token and keys: each page taken once, nothing refused.
        #expect(stats.endpoints["session"] == ["200": 20] && stats.endpoints["submit"] == ["200": 60])
        #expect(stats.invalidSubmits == 0, "every answer read from the page's inputs is one the server takes")
        #expect(report.answers.submitted == stats.stored.answers)
        let questions = try #require(report.questions?.byID)
        expectTypedFiguresAreTheServers(questions, stats)
        // Required questions (the `required` inputs) are never left empty; some optional ones are.
        #expect(["q1", "q3", "q5", "q6"].allSatisfy { questions[$0]?.declined == 0 })
        #expect(["q2", "q4", "q7", "q8"].map { questions[$0]?.declined ?? 0 }.reduce(0, +) > 0)
        // The branch: q5 on page 2 for exactly those who chose red.
        let red = stats.answersByQuestion["q1"]?["c1"] ?? 0
        #expect(red > 0 && red < 20 && stats.shownByQuestion["q5"] == red)
    }

    @Test func aRequiredQuestionNeverAnsweredComesBackUntilThePageBound() async throws {
        // q3 left empty: page 1 comes back with its error and a new key, posted again until `pages`.
        let (report, status, stats) = try await run(["--set", "answers.q3=skip()", "--set", "journey.page.pages=3"])
        #expect(status == 1)
        #expect(report.respondents.abandonedReasons == ["page_limit": 20])
        #expect(report.stepReports["page"]?.succeeded == 60)
        #expect(stats.endpoints["submit"] == ["200 again": 60] && stats.stored.responses == 0 && stats.stored.answers == 0)
        #expect(stats.shownByQuestion["q3"] == 80, "the first page and each of the three given again")
    }
}
