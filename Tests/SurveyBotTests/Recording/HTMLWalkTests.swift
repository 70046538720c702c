import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// Walks headless Chromium recorded through the reference server's HTML survey
/// (`serve --api html --survey typed`, `Fixtures/record.py html`): a person's clicks through its
/// three pages, once choosing red for q1 (page 2 then asks q5, the branch) and once blue. Each is
/// imported with the other as `--again`, passes `validate`, and its plan, unedited but for its
/// target, runs several respondents against `serve --api html`, whose own counts agree with the
/// report's.
@Suite struct HTMLWalkTests {
    @Test func theHTMLWalksPagesFoldIntoOnePageLoopPostingEachPagesFormBack() throws {
        let imported = try RecordingImport.make(
            try RecordedWalkTests.load("html-walk1.har"), again: try RecordedWalkTests.load("html-walk2.har"),
            options: .init(name: "html", source: "html-walk1.har")
        ).get()
        let plan = RecordingImportTests.plan(imported)
        // The start page, then the three posts as one step run per page.
        #expect(imported.names == ["survey_2", "survey_3", "survey_3", "survey_3"])
        #expect(plan.contains("  survey_2:\n    request: GET /survey\n    questions: "))
        #expect(plan.contains("  survey_3:\n    request: POST /survey\n    runs: per_page\n"))
        // The token and the page key go back inside each page's whole form, captured from the page before.
        #expect(plan.contains("    form:\n      \"*\": ${session.form}\n      move: ${session.move}\n"))
        #expect(plan.contains("    capture:\n      form: form *\n"))
        #expect(!plan.contains("csrf_token:") && !plan.contains("page_key:"))
        #expect(imported.guesses.contains { $0.text.contains("what the pages gave: csrf_token, page_key") })
        // Each answer as walked, the second walk's beside it where it differs; the branch (q5) taken by the first walk alone.
        #expect(plan.contains("answers:\n  q1: [\"c1\", \"c3\"]\n  q2: [\"c2\", \"c1\"]\n  q3: [\"8\", \"4\"]\n  q5: it is warm\n"))
        #expect(plan.contains("  q4: [\"nothing more\", \"no thanks\"]\n  \"*\": skip()"))
        // The session cookie is the jar's: no capture, no placeholder.
        #expect(!plan.contains("survey_session") && imported.secrets.isEmpty)
    }

    /// Each walk's plan, run by several respondents with the two walks' answers, takes the branch
    /// exactly for those who chose red, and the server stores exactly what the report counts.
    @Test(arguments: [("html-walk1.har", "html-walk2.har"), ("html-walk2.har", "html-walk1.har")])
    func theImportedWalkRunsUneditedAndTheServerStoresEachRespondent(recording: String, again: String) async throws {
        let directory = try TemporaryDirectory()
        let plan = directory.path + "/walk.plan"
        let fixtures = RecordedWalkTests.fixtures
        let imported = await runCommand([
            "import", "\(fixtures)/\(recording)", "--again", "\(fixtures)/\(again)", "--no-think", "--output", plan,
        ])
        #expect(imported.status == .success, "\(imported.err)")
        let validated = await runCommand(["validate", plan])
        #expect(validated.status == .success, "\(validated.err)")
        let (server, url) = try await startServer(["--api", "html", "--survey", "typed"])
        defer { server.stop() }
        let respondents = 6
        let run = await runCommand([
            "run", plan, "--target", url, "--respondents", "\(respondents)", "--concurrency", "3", "--out", directory.path, "--format",
            "json",
        ])
        #expect(run.status == .success, "\(run.err)\n\(run.out)")
        let report = try RunReport.read(path: directory.path + "/walk-latest.json")
        let stats = try await fetchStats(url)
        #expect(report.respondents.completed == respondents)
        // One session per respondent, each page taken once, nothing refused.
        #expect(stats.endpoints["session"] == ["200": respondents])
        #expect(stats.endpoints["submit"] == ["200": 3 * respondents] && stats.invalidSubmits == 0)
        // Every call the report counts a success is one the server answered 200, however the steps are named.
        let succeeded = report.stepReports.values.map(\.succeeded).reduce(0, +)
        #expect(succeeded == 4 * respondents)
        #expect(stats.stored.responses == report.respondents.completed)
        // The walks' answers, one of the two picked per respondent: the branch (q5) shown exactly to those who chose red,
        // and every question's figures in the report the server's own.
        let red = stats.answersByQuestion["q1"]?["c1"] ?? 0
        #expect(stats.answersByQuestion["q1"]?.keys.allSatisfy { ["c1", "c3"].contains($0) } == true)
        #expect(stats.shownByQuestion["q5"] == (red > 0 ? red : nil))
        let questions = try #require(report.questions?.byID)
        for (id, figures) in questions where figures.shown > 0 {
            #expect(figures.shown == stats.shownByQuestion[id], "\(id) shown")
        }
        #expect(report.answers.submitted == stats.stored.answers)
    }
}
