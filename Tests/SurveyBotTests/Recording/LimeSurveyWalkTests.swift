import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// Walks headless Chromium recorded through a real LimeSurvey 6 (Fixtures/README.md): the public
/// survey's three pages, twice with the same answers, and a login to its administration with a
/// password (a dummy in the fixture). The imported survey plan ran unedited against that
/// LimeSurvey, which stored each respondent's response complete (docs/import.md).
@Suite struct LimeSurveyWalkTests {
    static func load(_ name: String) throws -> HARFile {
        try HARFile.read(path: "\(RecordedWalkTests.fixtures)/\(name)").get()
    }

    @Test func theSurveysPagesBecomeStepsThatCaptureEachPagesKeys() throws {
        let imported = try RecordingImport.make(
            try Self.load("lime-walk1.min.har"), again: try Self.load("lime-walk1b.min.har"),
            options: .init(name: "lime", source: "lime-walk1.min.har")
        ).get()
        let plan = RecordingImportTests.plan(imported)
        #expect(imported.names == ["index", "index_2", "index_3", "index_4"])
        #expect(imported.summary.contains { $0.hasPrefix("left out: 139 static assets: ") })
        #expect(
            plan.contains("  index:\n    request: GET /index.php/513579?lang=en\n    capture:\n      yii_csrf_token: form YII_CSRF_TOKEN\n")
        )
        for field in ["start_time: form start_time", "lempostkey: form LEMpostKey", "lastgroup: form lastgroup"] {
            #expect(plan.contains("      \(field)\n"), "\(field)")
        }
        #expect(plan.contains("      LEMpostKey: ${session.lempostkey}\n"))
        #expect(plan.contains("      513579X10X14: Porridge with apples and honey.\n"))
        #expect(plan.contains("      move: movesubmit\n"))
        // The values the walk sends as they are: the survey's id, the page's number, the answers' codes.
        #expect(plan.contains("      sid: 513579\n      start_time: ${session.start_time}\n"))
        #expect(plan.contains("      fieldnames: ${session.fieldnames}\n      thisstep: 2\n"))
        #expect(!imported.guesses.contains { $0.text.contains("respondent.id") })
    }

    @Test func theAdministratorsPasswordNeverLandsInThePlanNorIsPrinted() async throws {
        let directory = try TemporaryDirectory()
        let output = directory.path + "/admin.plan"
        let result = await runCommand(["import", "\(RecordedWalkTests.fixtures)/lime-admin-login.min.har", "--output", output])
        #expect(result.status == .success, "\(result.err)")
        let plan = try String(contentsOfFile: output, encoding: .utf8)
        #expect(plan.contains("#   SURVEY_PASSWORD\n"))
        #expect(plan.contains("      password: ${SURVEY_PASSWORD}\n"))
        #expect(plan.contains("    request: POST /index.php/admin/authentication/sa/login\n"))
        for text in [plan, result.out, result.err] {
            #expect(!text.contains("dummy-Passw0rd"))
            #expect(!text.contains("Passw0rd"))
        }
    }
}
