import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// A step run per page: posted once per page with that page's answers, again while its
/// response lists questions, bounded by `pages`; and the HTML survey it was made for, whose
/// pages are read with a regular expression and posted back whole.
@Suite struct PageLoopTests {
    /// A survey of `pages` JSON pages of two questions: `POST /start` gives the first, each
    /// `POST /page` the next, the last `{"questions": []}`. With `stuck`, a page is never left.
    static func pagedServer(pages: Int, stuck: Bool = false, failing: Set<Int> = []) -> ScriptedTransport {
        let posted = Mutex(0)
        @Sendable func page(_ index: Int) -> String {
            guard index < pages else { return #"{"questions":[],"done":true}"# }
            let ids = [2 * index + 1, 2 * index + 2]
            return #"{"questions":["# + ids.map { #"{"qid":"q\#($0)","gid":\#(index + 1),"text":"Q\#($0)?"}"# }.joined(separator: ",")
                + #"],"done":false}"#
        }
        return ScriptedTransport { sent, _ in
            switch sent.path {
            case "/start": return ok(page(0))
            default:
                let n = posted.withLock { n -> Int in
                    n += 1
                    return n
                }
                if failing.contains(n) { return .response(TransportResponse(status: 500), serviceTime: .milliseconds(1)) }
                return ok(page(stuck ? 0 : n))
            }
        }
    }

    static let shape: SurveyQuestion.Shape = {
        var shape = SurveyQuestion.Shape(
            list: try! JSONPath(parsing: "questions"), id: try! JSONPath(parsing: "qid"), text: try! JSONPath(parsing: "text"))
        shape.fields = []
        return shape
    }()

    static func steps(pages: Int = 50, body: String = #"{"answers": ${answers}}"#, key: String = "${question.id}") -> [JourneyStep] {
        let start = JourneyStep(Step("start"), call: .init(method: "POST", path: "/start"), questions: shape)
        var page = JourneyStep(
            Step("page"), call: .init(method: "POST", path: "/page"), body: body, runs: .perPage, questions: shape,
            answers: .object(key: key))
        page.pages = pages
        return [start, page]
    }

    func walk(_ steps: [JourneyStep], _ transport: ScriptedTransport, answers: AnswerBook = AnswerBook(fallback: ["yes"])) async throws
        -> RespondentResult
    {
        let journey = Journey(steps)
        var configuration = RunConfiguration(load: .closed(respondents: 1), answers: answers)
        configuration.cookies = false
        configuration.declaredJourney = journey
        configuration.retry[Step("page")] = .never
        let context = SurveyContext(
            configuration: configuration, requests: try SurveyRequests(journey: journey, headers: [], target: target), seed: 1,
            transport: transport, clock: VirtualClock().clock, recorder: MetricsRecorder(lanes: 1, steps: journey.names),
            interruption: OnceFlag(), runStart: 1_000_000_000)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        return await respondent.run(context)
    }

    @Test func eachPageIsPostedWithItsOwnAnswersUntilAResponseListsNone() async throws {
        let transport = Self.pagedServer(pages: 3)
        let result = try await walk(Self.steps(), transport)
        #expect(result.ending == .completed)
        #expect(result.submitted == 6 && result.unanswered == 0)
        let bodies = transport.sent.map(\.body)
        #expect(bodies.count == 4, "the start and three pages; the response to the third listed none")
        #expect(bodies[1] == #"{"answers": {"q1":"yes","q2":"yes"}}"#)
        #expect(bodies[2] == #"{"answers": {"q3":"yes","q4":"yes"}}"#)
        #expect(bodies[3] == #"{"answers": {"q5":"yes","q6":"yes"}}"#)
    }

    @Test func aPageThatNeverEndsStopsAtItsBoundAsAPageLimit() async throws {
        let transport = Self.pagedServer(pages: 3, stuck: true)
        let result = try await walk(Self.steps(pages: 4), transport)
        #expect(result.ending == .abandoned(.pageLimit))
        #expect(transport.sent.count == 1 + 4)
        #expect(result.submitted == 8)
    }

    @Test func aFailedPageAbandonsTheRespondentWithItsAnswersUnanswered() async throws {
        let transport = Self.pagedServer(pages: 3, failing: [2])
        let result = try await walk(Self.steps(), transport)
        #expect(result.ending == .abandoned(.failed(Step("page"))))
        #expect(result.submitted == 2 && result.unanswered == 2)
        #expect(transport.sent.count == 3, "no page after the failed one")
    }

    @Test func aPageWithoutAnswersInThePlanIsStillPostedToMoveOn() async throws {
        let transport = Self.pagedServer(pages: 2)
        let result = try await walk(Self.steps(), transport, answers: AnswerBook(byQuestion: [QuestionID("q1"): ["a"]]))
        #expect(result.submitted == 1 && result.skipped == 3)
        #expect(transport.sent.map(\.body).dropFirst() == [#"{"answers": {"q1":"a"}}"#, #"{"answers": {}}"#])
        #expect(result.ending == .finishedWithUnanswered)
    }

    @Test func aQuestionsOtherFieldsGoInTheAnswersKey() async throws {
        let steps = Self.steps(key: "900001X${question.gid}X${question.id}")
        let transport = Self.pagedServer(pages: 2)
        _ = try await walk(steps, transport)
        #expect(transport.sent[1].body == #"{"answers": {"900001X1Xq1":"yes","900001X1Xq2":"yes"}}"#)
        #expect(transport.sent[2].body == #"{"answers": {"900001X2Xq3":"yes","900001X2Xq4":"yes"}}"#)
        #expect(Journey(steps).questionFields == ["gid"])
    }

    /// LimeSurvey's pages, cut down: a form of hidden fields, a text input and radio buttons
    /// per question, the button to press; the last page thanks and has no form.
    static func htmlPage(_ index: Int) -> String {
        guard index < 2 else { return "<html><p>Thank you!</p></html>" }
        let q = [2 * index + 1, 2 * index + 2]
        return """
            <html><form id="limesurvey" method="post">
            <input type="hidden" value="tok-\(index)" name="YII_CSRF_TOKEN" />
            <input type='hidden' name='LEMpostKey' value='\(100 + index)'/>
            <input type='hidden' id='relevance\(q[0])' name='relevance\(q[0])' value='1'/>
            <input id="java1X\(q[1])" disabled="disabled" type="hidden" value="" name="java1X\(q[1])" />
            <div id="ls-question-text-1X\(q[0])">Name?</div>
            <input class="text" type="text"
                name="1X\(q[0])" value="" />
            <div id="ls-question-text-1X\(q[1])">Colour?</div>
            <input type="radio" value="A1" name="1X\(q[1])" /><input type="radio" value="A2" name="1X\(q[1])" checked />
            <input type="checkbox" name="remember" value="yes" />
            <button type="submit" id="defaultbtn" value="default" name="move"></button>
            <button type="submit" value="\(index == 1 ? "movesubmit" : "movenext")" name="move">Next</button>
            </form></html>
            """
    }

    @Test func anHTMLSurveyIsWalkedByPostingEachPagesFormBackWithItsAnswers() async throws {
        let posted = Mutex(0)
        let transport = ScriptedTransport { sent, _ in
            let n =
                sent.path == "/open"
                ? 0
                : posted.withLock { n -> Int in
                    n += 1
                    return n
                }
            return ok(Self.htmlPage(n))
        }
        let questions = SurveyQuestion.Shape(pattern: try TextPattern(#"id="ls-question-text-([0-9]+X[0-9]+)""#))
        let captures: [SurveyAPI.Capture] = [
            .init(name: "form", source: .formField("*")),
            .init(name: "move", source: .regex(try TextPattern(#"value="(move(?:next|submit))""#))),
        ]
        let open = JourneyStep(Step("open"), call: .init(method: "GET", path: "/open"), questions: questions, captures: captures)
        var page = JourneyStep(
            Step("page"), call: .init(method: "POST", path: "/post"), body: try JourneyStep.formBody([("move", "${session.move}")]),
            runs: .perPage, questions: questions, captures: captures)
        page.bodyFormat = .form
        page.formFields = "form"
        let result = try await walk([open, page], transport, answers: AnswerBook(fallback: ["Ann B"]))
        #expect(result.ending == .completed && result.submitted == 4)
        let bodies = transport.sent.map(\.body)
        #expect(bodies.count == 3)
        // The page's fields as a browser sends them (not the disabled one, not the unchecked
        // box, the checked radio), but those the answers set again; then the button; then the answers.
        #expect(bodies[1] == "YII_CSRF_TOKEN=tok-0&LEMpostKey=100&relevance1=1&move=movenext&1X1=Ann+B&1X2=Ann+B")
        #expect(bodies[2] == "YII_CSRF_TOKEN=tok-1&LEMpostKey=101&relevance3=1&move=movesubmit&1X3=Ann+B&1X4=Ann+B")
        #expect(transport.sent[1].head.contains("Content-Type: application/x-www-form-urlencoded\r\n"))
    }

    /// The tags are found by a scan of the bytes, in any case, past text of any script: a page
    /// of many inputs is read in one pass, not once per input.
    @Test func aTagIsFoundInAnyCaseAfterAnyText() {
        let page = "é日本<Inp<INPUT name=\"a\" value=\"1\">"[...]
        let found = HTMLForm.find("<input", in: page)
        #expect(found.map { String(page[$0]) } == "<INPUT")
        #expect(HTMLForm.find("<form", in: page) == nil)
        #expect(HTMLForm.fields(in: String(page)).map(\.name) == ["a"])
    }

    @Test func aFormsFieldsAreReadAsABrowserSendsThem() {
        let fields = HTMLForm.fields(in: Self.htmlPage(0))
        #expect(fields.map(\.name) == ["YII_CSRF_TOKEN", "LEMpostKey", "relevance1", "1X1", "1X2"])
        #expect(fields.map(\.value) == ["tok-0", "100", "1", "", "A2"])
        #expect(HTMLForm.encodedFields(in: #"<input name="a b" value="1&amp;2"><form><input name="x" value="y"></form>"#) == "x=y")
        #expect(HTMLForm.encodedFields(in: #"<input name="a b" value="1&amp;2">"#) == "a+b=1%262")
    }

    /// A `<select>` sends its selected option, or a single one its first; a `<textarea>` its
    /// text; in the page's order among the inputs, disabled ones not at all.
    @Test func aFormsSelectsAndTextAreasAreSentAsABrowserSendsThem() {
        let page = """
            <form><input type="hidden" name="token" value="t1">
            <select name="size"><option value="">Choose</option><option value="s">Small</option></select>
            <SELECT name="colour"><option value="r">Red</option><option value="g" selected>Green</option></SELECT>
            <select name="days" multiple><option selected>Mon</option><option disabled selected>Tue</option><option selected>Wed</option></select>
            <select name="none" multiple><option>Sat</option></select>
            <select name="off" disabled><option>x</option></select>
            <textarea name="story">
            Once &amp; again</textarea>
            <textarea name="blank"></textarea><input name="after" value="1"></form>
            """
        let fields = HTMLForm.fields(in: page)
        #expect(fields.map(\.name) == ["token", "size", "colour", "days", "days", "story", "blank", "after"])
        #expect(fields.map(\.value) == ["t1", "", "g", "Mon", "Wed", "Once & again", "", "1"])
    }

    @Test func questionsFoundByARegexAreEachIdOnceAndAPagesLastListsNone() throws {
        let shape = SurveyQuestion.Shape(pattern: try TextPattern(#"name="(q[0-9]+)"(?: title="([^"]*)")?"#))
        let page = Array(#"<i name="q1" title="One?"><i name="q1"><i name="q2">"#.utf8)
        let questions = try SurveyQuestion.list(from: page, shape: shape).get()
        #expect(questions.map(\.id) == [QuestionID("q1"), QuestionID("q2")])
        #expect(questions.map(\.text) == ["One?", "q2"])
        #expect(throws: SurveyQuestion.ContractError.self) { try SurveyQuestion.list(from: Array("<p>".utf8), shape: shape).get() }
        #expect(try SurveyQuestion.list(from: Array("<p>".utf8), shape: shape, page: true).get().isEmpty)
        let json = SurveyQuestion.Shape(list: try JSONPath(parsing: "questions"))
        #expect(try SurveyQuestion.list(from: Array(#"{"done":true}"#.utf8), shape: json, page: true).get().isEmpty)
        #expect(try SurveyQuestion.list(from: Array(#"{"questions":[]}"#.utf8), shape: json, page: true).get().isEmpty)
        #expect(throws: SurveyQuestion.ContractError.self) {
            try SurveyQuestion.list(from: Array("not json".utf8), shape: json, page: true).get()
        }
    }

    @Test func aQuestionWithoutAFieldTheJourneyUsesBreaksTheContract() throws {
        var shape = SurveyQuestion.Shape()
        shape.fields = ["gid"]
        let result = SurveyQuestion.list(from: Array(#"[{"id":1,"question":"a","gid":3},{"id":2,"question":"b"}]"#.utf8), shape: shape)
        #expect(throws: SurveyQuestion.ContractError(description: "question 2 has no 'gid' (for ${question.gid})")) { try result.get() }
    }
}
