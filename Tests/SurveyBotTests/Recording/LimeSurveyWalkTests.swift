import Foundation
import SurveyJourney
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// Walks headless Chromium recorded through a real LimeSurvey 6 (Fixtures/README.md): the public
/// survey's three pages, twice with the same answers, and a login to its administration with a
/// password (a dummy in the fixture); a walk that took the other branch, and a walk saved without
/// response bodies. The imported survey plan — one page loop — ran unedited against that
/// LimeSurvey, which stored each respondent's response complete (docs/import.md).
@Suite struct LimeSurveyWalkTests {
    static func load(_ name: String) throws -> HARFile {
        try HARFile.read(path: "\(RecordedWalkTests.fixtures)/\(name)").get()
    }

    /// The three form posts of the survey's pages fold into one page loop: each page's whole
    /// form posted back (the CSRF token, `LEMpostKey`, `start_time` with it), the button each
    /// page pressed, and the answers typed keyed by their SGQA fields.
    @Test func theSurveysPagesFoldIntoOnePageLoopWithTheAnswersTyped() throws {
        let imported = try RecordingImport.make(
            try Self.load("lime-walk1.min.har"), again: try Self.load("lime-walk1b.min.har"),
            options: .init(name: "lime", source: "lime-walk1.min.har")
        ).get()
        let plan = RecordingImportTests.plan(imported)
        #expect(imported.names == ["index", "index_2", "index_2", "index_2"])
        #expect(imported.summary.contains { $0.hasPrefix("left out: 139 static assets: ") })
        let questions =
            "    questions: "
            + PlanValueText.write([
                .literal(
                    #"regex (?s)<div\s+id="question[0-9]+"\s+class="(?![^"]*ls-irrelevant)[^"]*".*?id="ls-question-text-([0-9]+X[0-9]+X[0-9]+)""#
                )
            ]) + "\n    question_choices: form\n"
        let move =
            "      move: "
            + PlanValueText.write([
                .literal(#"regex <(?:button|input)\b(?=[^>]*\sname=["']?move["'\s/>])[^>]*\svalue=["']?(movenext|movesubmit)["'\s/>]"#)
            ])
        #expect(
            plan.contains(
                "  index:\n    request: GET /index.php/513579?lang=en\n" + questions + "    capture:\n      form: form *\n" + move + "\n"))
        #expect(
            plan.contains(
                "  index_2:\n    request: POST /index.php/513579\n    runs: per_page\n    think: 2178ms..3823ms\n    form:\n"
                    + "      \"*\": ${session.form}\n      move: ${session.move}\n      ajax: off\n" + questions
                    + "    pages: 10\n    capture:\n      form: form *\n" + move + "\n"))
        #expect(
            plan.hasSuffix(
                "answers:\n  513579X9X12: A1\n  513579X9X13: Y\n  513579X10X14: Porridge with apples and honey.\n  513579X10X15: B2\n"
                    + "  513579X11X16: Ann\n  \"*\": skip()                           # a field no recording answered is left out, as the person left it\n"
            ))
        // The page's fields go back with the form, not one by one; no answer is a literal field.
        for gone in ["LEMpostKey", "YII_CSRF_TOKEN", "thisstep", "513579X10X14: Porridge"] {
            #expect(!plan.contains("      \(gone)"), "\(gone)")
        }
        #expect(
            imported.summary.contains {
                $0.hasPrefix(
                    "guess: step 'index_2' and the 2 posts after it, to one path, are an HTML page loop: runs per_page, posting back "
                        + "each page's form (form *, which carries what the pages gave: YII_CSRF_TOKEN, fieldnames, start_time, "
                        + "LEMpostKey, lastgroup)")
            })
        #expect(!imported.summary.contains { $0.contains("typed?") })
    }

    /// Two walks that took the branch differently: the question only one of them was shown is
    /// one more answer key, and each question answered differently lists both answers.
    @Test func aSecondWalkThatBranchedAddsItsAnswers() throws {
        let imported = try RecordingImport.make(
            try Self.load("lime-walk1.min.har"), again: try Self.load("lime-walk2.pages.har"),
            options: .init(name: "lime", source: "lime-walk1.min.har", thinkTimes: false)
        ).get()
        let plan = RecordingImportTests.plan(imported)
        #expect(
            plan.contains(
                "answers:\n  513579X9X12: [\"A1\", \"A3\"]\n  513579X9X13: [\"Y\", \"N\"]\n"
                    + "  513579X10X14: [\"Porridge with apples and honey.\", \"Cheese sandwich and tomato soup.\"]\n"
                    + "  513579X10X15: B2\n  513579X11X16: [\"Ann\", \"Bob\"]\n"))
        let alone = try RecordingImport.make(
            try Self.load("lime-walk2.pages.har"), options: .init(name: "lime", source: "lime-walk2.pages.har", thinkTimes: false)
        ).get()
        let walk2 = RecordingImportTests.plan(alone)
        #expect(walk2.contains("    runs: per_page\n"))
        // LimeSurvey's own blocks are read, so that the question its condition hides on page 2
        // (Q4, `ls-irrelevant` after A3) is no question shown: it is neither answered nor counted.
        guard case .form(let reader)? = alone.pageLoops.first?.reader else {
            Issue.record("no form page loop")
            return
        }
        let pages = try Self.load("lime-walk2.pages.har").entries.compactMap(\.response.content.body.text)
        let pattern = try TextPattern(reader.questions)
        #expect(pages.count == 4 && RecordingImport.questionIDs(pattern, in: pages[1]) == ["513579X10X14"])
        #expect(pages[1].contains("513579X10X15") && pages[1].contains("ls-irrelevant"))
        #expect(
            walk2.contains(
                "answers:\n  513579X9X12: A3\n  513579X9X13: N\n  513579X10X14: Cheese sandwich and tomato soup.\n  513579X11X16: Bob\n"))
    }

    /// Without response bodies (Chrome leaves them out at times) no page can be read: the posts
    /// stay steps, and the summary says so, and that the CSRF token and the page key sent as
    /// recorded will be refused.
    @Test func aWalkWithoutBodiesStaysStepsAndWarnsOfItsTokens() throws {
        let imported = try RecordingImport.make(
            try Self.load("lime-walk1.nobodies.har"), options: .init(name: "lime", source: "lime-walk1.nobodies.har")
        ).get()
        let plan = RecordingImportTests.plan(imported)
        #expect(!plan.contains("per_page"))
        #expect(
            imported.summary.contains(
                "guess: step 'index_2' and the 2 posts after it look like a page loop but are left as steps: the response before post 1 "
                    + "has no response body in the recording: its questions cannot be read"))
        let warnings = imported.summary.filter { $0.contains("will likely refuse it (400, 403)") }
        #expect(warnings.count == 2)
        #expect(
            warnings.contains {
                $0.hasPrefix("guess: step 'index_2' sends at form field YII_CSRF_TOKEN a token")
                    && $0.contains("made the secret ${SURVEY_YII_CSRF_TOKEN}")
            })
        #expect(
            warnings.contains {
                $0.hasPrefix("guess: step 'index_2' sends at form field LEMpostKey a token") && $0.contains("sent as recorded")
            })
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
