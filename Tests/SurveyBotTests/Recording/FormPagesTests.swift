import SurveyJourney
import Testing

@testable import SurveyBot

/// HTML page loops: form posts to one path, each answering the fields its page showed and
/// sending back the fields it gave, fold into one `per_page` step; the runs of posts that look
/// like a loop but are not one stay steps, and the summary says why.
@Suite struct FormPagesTests {
    static let origin = RecordingImportTests.origin

    /// A page of a plain HTML survey: a form with a CSRF token and a page key in hidden inputs,
    /// the fields `shown`, and a Next button.
    static func page(_ number: Int, token: String, key: String, shown: String) -> String {
        """
        <html><body><form method="post" action="/poll">
        <input type="hidden" name="csrf" value="\(token)"><input type='hidden' name="page_key" value="\(key)">
        <input type="hidden" name="page" value="\(number)">
        \(shown)
        <button type="submit" name="go" value="\(number == 2 ? "finish" : "next")">Next</button>
        </form></body></html>
        """
    }

    /// A walk of two pages and a thank-you page; `path` names each post's path; with `call`, the
    /// page's script asks the survey for its settings before the first post.
    static func walk(path: (Int) -> String = { _ in "/poll" }, secondAnswer: String = "red", call: Bool = false) -> HARFixture {
        var walk = HARFixture()
        let first = page(
            1, token: "tok4f9a8c2e", key: "k1-93jd82",
            shown:
                #"<input type="text" name="q1" value=""> <label><input type="radio" name="q2" value="red">Red</label><input type="radio" name="q2" value="blue">"#
        )
        let second = page(
            2, token: "tok4f9a8c2e", key: "k2-77sk3m",
            shown: #"<select name="q3"><option value="">-</option><option value="big">Big</option></select>"#
                + #"<input type="checkbox" name="q4" value="tea"><input type="checkbox" name="q4" value="milk"><input type="checkbox" name="q4" value="jam">"#
        )
        walk.add("GET", "\(origin)/poll", type: "document", responseType: "text/html", response: first)
        if call { walk.add("GET", "\(origin)/settings", type: "xhr", response: #"{"language": "en"}"#, after: 0.5) }
        walk.add(
            "POST", "\(origin)\(path(1))", type: "document",
            body: "csrf=tok4f9a8c2e&page_key=k1-93jd82&page=1&q1=Ann+Lee&q2=\(secondAnswer)&go=next&js=1",
            bodyType: "application/x-www-form-urlencoded", responseType: "text/html", response: second, after: 2)
        walk.add(
            "POST", "\(origin)\(path(2))", type: "document",
            body: "csrf=tok4f9a8c2e&page_key=k2-77sk3m&page=2&q3=big&q4=tea&q4=jam&go=finish&js=1",
            bodyType: "application/x-www-form-urlencoded", responseType: "text/html", response: "<html><p>Thank you.</p></html>", after: 1)
        return walk
    }

    @Test func aPlainHTMLSurveysPagesFoldIntoOnePageLoop() {
        let imported = Self.walk().imported(again: Self.walk(secondAnswer: "blue"))
        let plan = RecordingImportTests.plan(imported)
        #expect(imported.names == ["poll", "poll_2", "poll_2"])
        let questions =
            "    questions: "
            + PlanValueText.write([
                .literal(#"regex <(?:input|select|textarea)\b(?![^>]*\stype=["']?hidden)[^>]*\sname=["']?(q[0-9]+)["'\s/>]"#)
            ])
            + "\n    question_choices: form\n"
        let button =
            "      go: "
            + PlanValueText.write([
                .literal(#"regex <(?:button|input)\b(?=[^>]*\sname=["']?go["'\s/>])[^>]*\svalue=["']?(next|finish)["'\s/>]"#)
            ])
            + "\n"
        #expect(plan.contains("  poll:\n    request: GET /poll\n" + questions + "    capture:\n      form: form *\n" + button))
        #expect(
            plan.contains(
                "  poll_2:\n    request: POST /poll\n    runs: per_page\n    form:\n      \"*\": ${session.form}\n      go: ${session.go}\n"
                    + "      js: 1\n" + questions + "    pages: 10\n    capture:\n      form: form *\n" + button))
        // Checkboxes sent twice: as many of the page's choices, since answers: has no fixed set of several.
        #expect(plan.contains("answers:\n  q1: Ann Lee\n  q2: [\"red\", \"blue\"]\n  q3: big\n  q4: choices(2..2)\n  \"*\": skip()"))
        #expect(
            imported.summary.contains {
                $0.hasPrefix("guess: step 'poll_2' sends field q4 more than once (checkboxes): answered choices(2..2)")
            })
        // The token and the page key go back with each page's form: no capture of their own.
        let journey = plan.split(separator: "\njourney:\n").last ?? ""
        #expect(!journey.contains("page_key"))
        #expect(!journey.contains("csrf"))
        #expect(imported.summary.contains { $0.contains("form (form *, which carries what the pages gave: csrf, page_key)") })
    }

    /// The questions' pattern finds each page's fields as the engine reads them, and none in
    /// the thank-you page: the loop ends there.
    /// A script's call between the page and its first post leaves the loop as it is: the page it
    /// posts is the one before the call, whose form and questions the loop's first post reads.
    @Test func aScriptsCallBeforeTheFirstPostStillFolds() {
        let imported = Self.walk(call: true).imported()
        let plan = RecordingImportTests.plan(imported)
        #expect(imported.names == ["poll", "settings", "poll_2", "poll_2"])
        #expect(plan.contains("  poll:\n    request: GET /poll\n    questions: "))
        #expect(plan.contains("    capture:\n      form: form *\n"))
        #expect(plan.contains("  settings:\n    request: GET /settings\n"))
        #expect(!plan.contains("  settings:\n    request: GET /settings\n    questions"))
        #expect(plan.contains("  poll_2:\n    request: POST /poll\n    runs: per_page\n"))
        #expect(imported.summary.contains { $0.hasPrefix("correlation: ${session.form} from step 'poll' (its whole form)") })
    }

    @Test func theQuestionsPatternFindsTheShownFieldsAndNoHiddenOne() throws {
        let pattern = try TextPattern(RecordingImport.questionsPattern(forFields: ["513579X9X12", "q1"]))
        let page =
            #"<input type="hidden" name="513579X9X12" value="A1"><input name="513579X10X14" type="text"><textarea name='q7'></textarea><input type="checkbox" name="confirm-clearall">"#
        #expect(RecordingImport.questionIDs(pattern, in: page) == ["513579X10X14", "q7"])
        #expect(RecordingImport.questionIDs(pattern, in: "<p>Thanks.</p>").isEmpty)
        #expect(RecordingImport.shownFields(in: page) == ["513579X10X14", "q7", "confirm-clearall"])
    }

    @Test func postsToPathsThatChangeStayStepsAndSaySo() {
        let imported = Self.walk(path: { "/poll/\($0)" }).imported()
        let plan = RecordingImportTests.plan(imported)
        #expect(!plan.contains("per_page"))
        #expect(plan.contains("      q1: Ann Lee\n"))
        #expect(
            imported.summary.contains(
                "guess: step 'poll_2' and the 1 posts after it look like a page loop but are left as steps: posts to 2 paths "
                    + "(POST /poll/1, POST /poll/2): a page loop posts to one"))
    }

    /// A page whose answers are numbers is no JSON page loop the importer folds: said so.
    /// A page whose answers are not all strings (a list of choices) ends no loop of the pages
    /// before it by being folded into it: its answers would be lost. The run ends unfinished
    /// there, so nothing folds and every post keeps its answers as sent.
    @Test func aLaterPageWithAListAnswerIsNotFoldedAway() {
        var walk = HARFixture()
        walk.add(
            "POST", "\(Self.origin)/start", type: "fetch", body: "{}",
            response: "{\"questions\": [{\"qid\": \"Q1\", \"label\": \"Name?\"}]}")
        walk.add(
            "POST", "\(Self.origin)/page", type: "fetch", body: "{\"given\": {\"Q1\": \"Ann\"}}",
            response: "{\"questions\": [{\"qid\": \"Q2\", \"label\": \"Which?\"}]}")
        walk.add(
            "POST", "\(Self.origin)/page", type: "fetch", body: "{\"given\": {\"Q2\": [\"tea\", \"jam\"]}}", response: "{\"questions\": []}"
        )
        let imported = walk.imported()
        let plan = RecordingImportTests.plan(imported)
        #expect(!plan.contains("per_page"))
        #expect(plan.contains("tea") && plan.contains("jam"))
    }

    @Test func aJSONLoopWithAnswersThatAreNotStringsStaysStepsAndSaysSo() {
        var walk = HARFixture()
        walk.add(
            "POST", "\(Self.origin)/start", type: "fetch", body: "{}", response: "{\"questions\": [{\"qid\": \"Q1\", \"label\": \"Age?\"}]}"
        )
        walk.add(
            "POST", "\(Self.origin)/page", type: "fetch", body: "{\"given\": {\"Q1\": 42}}",
            response: "{\"questions\": [{\"qid\": \"Q2\", \"label\": \"Kids?\"}]}")
        walk.add("POST", "\(Self.origin)/page", type: "fetch", body: "{\"given\": {\"Q2\": 3}}", response: "{\"questions\": []}")
        let imported = walk.imported()
        #expect(!RecordingImportTests.plan(imported).contains("per_page"))
        #expect(
            imported.summary.contains(
                "guess: step 'page' and the 1 posts after it look like a page loop but are left as steps: its JSON body holds no object "
                    + "of strings keyed by question id (answers as numbers or lists are not folded)"))
    }
}
