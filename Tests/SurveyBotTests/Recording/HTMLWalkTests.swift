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
    @Test func theHTMLWalkBecomesStepsThatCaptureEachPagesTokenAndKey() throws {
        let imported = try RecordingImport.make(
            try RecordedWalkTests.load("html-walk1.har"), again: try RecordedWalkTests.load("html-walk2.har"),
            options: .init(name: "html", source: "html-walk1.har")
        ).get()
        let plan = RecordingImportTests.plan(imported)
        // Today each page's post is a plain step with the answers as recorded (no page loop folded).
        #expect(imported.names == ["survey_2", "survey_3", "survey_4", "survey_5"])
        #expect(
            plan.contains(
                "  survey_2:\n    request: GET /survey\n    capture:\n      csrf_token: form csrf_token\n      page_key: form page_key\n"))
        #expect(
            plan.contains(
                "    form:\n      csrf_token: ${session.csrf_token}\n      page_key: ${session.page_key}\n      q1: c1\n      q2: c2\n      q3: 8\n"
                    + "      move: next\n"))
        // The branch as walked: red on page 1, so page 2 posts q5.
        #expect(plan.contains("      q5: it is warm\n      q6: c1\n      move: next\n"))
        #expect(plan.contains("      q7: c5\n      q8: 3\n      q4: nothing more\n      move: submit\n"))
        // The session cookie is the jar's: no capture, no placeholder.
        #expect(!plan.contains("survey_session") && imported.secrets.isEmpty)
        #expect(
            imported.summary.contains { $0.hasPrefix("correlation: ${session.page_key} from step 'survey_2' (its form field page_key), ") })
    }

    /// Each walk's plan, run by several respondents with the walk's answers, takes the walk's
    /// branch every time, and the server stores exactly what the report counts.
    @Test(arguments: [("html-walk1.har", "html-walk2.har", true), ("html-walk2.har", "html-walk1.har", false)])
    func theImportedWalkRunsUneditedAndTheServerStoresEachRespondent(recording: String, again: String, red: Bool) async throws {
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
        // The recorded branch, every time: q5 shown and answered by each respondent of the red walk, by none of the blue.
        #expect(stats.answersByQuestion["q1"] == [red ? "c1" : "c3": respondents])
        #expect(stats.shownByQuestion["q5"] == (red ? respondents : nil))
        #expect(stats.answersByQuestion["q5"] == (red ? ["(text)": respondents] : nil))
        #expect(stats.stored.answers == (red ? 8 : 6) * respondents)
    }
}
