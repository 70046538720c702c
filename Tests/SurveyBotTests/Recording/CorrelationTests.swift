import Foundation
import SurveyJourney
import Testing

@testable import SurveyBot

/// Correlation: a value a response gave that a later request sends becomes a capture of the
/// step that received it, by its most specific source, and `${session.NAME}` where it is sent.
@Suite struct CorrelationTests {
    static let origin = "http://127.0.0.1:8080"

    /// A long walk's correlation is one line: more than three steps alike in what happens there
    /// are named by their count, the first and the last; fewer each by name, in the walk's order.
    @Test func manyStepsAlikeAreOneEntryOfTheSummary() {
        let many = (1...5).map { (step: "page_\($0)", what: "(its form field key)") }
        #expect(RecordingImport.steps(many) == "5 steps 'page_1' … 'page_5' (its form field key)")
        let few = [("a", "x"), ("b", "y"), ("a", "x"), ("c", "x")]
        #expect(RecordingImport.steps(few) == "step 'a' x, step 'b' y, step 'c' x")
        let mixed = many + [(step: "end", what: "header Token")]
        #expect(RecordingImport.steps(mixed) == "5 steps 'page_1' … 'page_5' (its form field key), step 'end' header Token")
    }

    @Test func aTokenInJSONIsCapturedByItsPathAndSentInTheHeaderAndPath() {
        var walk = HARFixture()
        walk.add("GET", "\(Self.origin)/", type: "document", responseType: "text/html", response: "<p>hi</p>")
        walk.add(
            "POST", "\(Self.origin)/session", type: "fetch", body: "{\"member\": 1}",
            response: "{\"data\": {\"token\": \"t9a0e7c3f1\", \"session\": \"FS_00ab12cd\"}}")
        walk.add(
            "GET", "\(Self.origin)/sessions/FS_00ab12cd/questions?token=t9a0e7c3f1", type: "fetch",
            headers: [("Authorization", "Bearer t9a0e7c3f1")], response: "[]")
        walk.add(
            "POST", "\(Self.origin)/sessions/FS_00ab12cd", type: "fetch",
            body: "{\"session\": \"FS_00ab12cd\", \"note\": \"for FS_00ab12cd\", \"n\": 1}")
        let imported = walk.imported()
        let plan = RecordingImportTests.plan(imported)
        #expect(plan.contains("    capture:\n      session: $.data.session\n      token: $.data.token\n"))
        #expect(plan.contains("    request: GET /sessions/${session.session}/questions?token=${session.token}\n"))
        #expect(plan.contains("      Authorization: Bearer ${session.token}\n"))
        #expect(plan.contains("    request: POST /sessions/${session.session}\n"))
        #expect(plan.contains("    body: '{\"session\": ${session.session}, \"note\": \"for ${session.session}\", \"n\": 1}'\n"))
        #expect(!plan.contains("t9a0e7c3f1"))
        #expect(!plan.contains("FS_00ab12cd"))
        #expect(
            imported.summary.contains(
                "correlation: ${session.token} from step 'session' (its JSON $.data.token) → step 'questions' query token, "
                    + "step 'questions' header Authorization"))
    }

    @Test func aHiddenInputIsCapturedByItsName() {
        let page = """
            <form method="post"><input type="hidden" name="YII_CSRF_TOKEN" value="Zm9vYmFyMTIz">
            <input type=hidden name=LEMpostKey value='8839211'><button name="move" value="movenext">Next</button></form>
            """
        var walk = HARFixture()
        walk.add("GET", "\(Self.origin)/index.php/246810", type: "document", responseType: "text/html", response: page)
        walk.add(
            "POST", "\(Self.origin)/index.php/246810", type: "document",
            body: "YII_CSRF_TOKEN=Zm9vYmFyMTIz&LEMpostKey=8839211&move=movenext&246810X1X1=Ann",
            bodyType: "application/x-www-form-urlencoded",
            responseType: "text/html", response: "<p>thanks</p>")
        let plan = RecordingImportTests.plan(walk.imported())
        #expect(plan.contains("    capture:\n      yii_csrf_token: form YII_CSRF_TOKEN\n      lempostkey: form LEMpostKey\n"))
        #expect(
            plan.contains(
                "    form:\n      YII_CSRF_TOKEN: ${session.yii_csrf_token}\n      LEMpostKey: ${session.lempostkey}\n      move: movenext\n"
                    + "      246810X1X1: Ann\n"))
        // The survey's id was sent in the first URL before any response held it: the walk's own constant.
        #expect(plan.contains("    request: POST /index.php/246810\n"))
    }

    @Test func aValueInTextIsCapturedByARegularExpressionThatFindsExactlyIt() throws {
        var walk = HARFixture()
        walk.add(
            "GET", "\(Self.origin)/page", type: "document", responseType: "text/html",
            response: "<script>var cfg = {step: 7}; window.nonce = \"a81f9c2e77\";</script>")
        walk.add("POST", "\(Self.origin)/next", type: "xhr", headers: [("X-Nonce", "a81f9c2e77")])
        let imported = walk.imported()
        let plan = RecordingImportTests.plan(imported)
        #expect(plan.contains("      x_nonce: \"regex "))
        #expect(plan.contains("      X-Nonce: ${session.x_nonce}\n"))
        guard case .regex(let pattern) = try #require(imported.captures[0]?.first).source else {
            Issue.record("expected a regular expression")
            return
        }
        #expect(try TextPattern(pattern).capture(in: walk.file.entries[0].response.content.body.text ?? "") == "a81f9c2e77")
        // Another page of the same shape gives its own value.
        #expect(try TextPattern(pattern).capture(in: "<script>window.nonce = \"ffff0000ee\";</script>") == "ffff0000ee")
    }

    @Test func aResponseHeaderIsCapturedByItsName() {
        var walk = HARFixture()
        walk.add(
            "POST", "\(Self.origin)/login", type: "fetch", body: "{}", responseHeaders: [("X-Session-Id", "s3f1c9a8b7")], response: "{}")
        walk.add("GET", "\(Self.origin)/me", type: "fetch", headers: [("X-Session", "s3f1c9a8b7")])
        let plan = RecordingImportTests.plan(walk.imported())
        #expect(plan.contains("    capture:\n      x_session_id: header X-Session-Id\n"))
        #expect(plan.contains("      X-Session: ${session.x_session_id}\n"))
    }

    @Test func aCookieTheJarSendsIsNotCapturedButOneSentElsewhereIs() {
        var walk = HARFixture()
        walk.add(
            "GET", "\(Self.origin)/", type: "document", responseHeaders: [("Set-Cookie", "csrftoken=k8Jd93nBv0; Path=/")],
            responseType: "text/html", response: "<p></p>")
        walk.add(
            "POST", "\(Self.origin)/vote", type: "fetch", headers: [("Cookie", "csrftoken=k8Jd93nBv0"), ("X-CSRFToken", "k8Jd93nBv0")],
            body: "{}")
        let plan = RecordingImportTests.plan(walk.imported())
        #expect(plan.contains("    capture:\n      csrftoken: cookie csrftoken\n"))
        #expect(plan.contains("    headers:\n      X-CSRFToken: ${session.csrftoken}\n    body"))
        #expect(!plan.contains("Cookie:"))
    }

    @Test func theLatestResponseBeforeEachUseGivesTheCapture() {
        var walk = HARFixture()
        walk.add(
            "GET", "\(Self.origin)/p1", type: "document", responseType: "text/html", response: "<input name=\"key\" value=\"k11111aaaa\">")
        walk.add(
            "POST", "\(Self.origin)/p1", type: "document", body: "key=k11111aaaa", bodyType: "application/x-www-form-urlencoded",
            responseType: "text/html", response: "<input name=\"key\" value=\"k22222bbbb\">")
        walk.add(
            "POST", "\(Self.origin)/p1", type: "document", body: "key=k22222bbbb", bodyType: "application/x-www-form-urlencoded",
            responseType: "text/html", response: "<p>done</p>")
        let imported = walk.imported()
        let plan = RecordingImportTests.plan(imported)
        #expect(imported.captures[0]?.map(\.name) == ["key"])
        #expect(imported.captures[1]?.map(\.name) == ["key"])
        #expect(plan.components(separatedBy: "    form:\n      key: ${session.key}\n").count == 3)
    }

    @Test func shortAndCommonValuesAreNeverCorrelated() {
        var walk = HARFixture()
        walk.add(
            "GET", "\(Self.origin)/q", type: "fetch",
            response:
                "{\"page\": 2, \"lang\": \"en\", \"ok\": true, \"word\": \"continue\", \"year\": \"2026\", \"sa\": \"getUnread_Json\"}")
        walk.add("GET", "\(Self.origin)/q?page=2&lang=en&ok=true&word=continue&year=2026&sa=getUnread_Json", type: "fetch")
        let imported = walk.imported()
        #expect(imported.captures.isEmpty)
        #expect(
            RecordingImportTests.plan(imported).contains(
                "    request: GET /q?page=2&lang=en&ok=true&word=continue&year=2026&sa=getUnread_Json\n"))
    }
}
