import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// What a declared step may say beyond its request: a form or text body, its own timeout and
/// think time, and captures from cookies, regular expressions and HTML forms.
@Suite struct StepOptionsTests {
    /// A page with a form, then its post, then the answers.
    static let page = """
        <html><form method="post" action="/survey/7">
        <input type='hidden' name='YII_CSRF_TOKEN' value='tok&amp;en=1'>
        <input type="hidden" value="k-&#x32;9" name="LEMpostKey" />
        <inputs name="YII_CSRF_TOKEN" value="not this">
        <p>Response 42 started</p></form></html>
        """

    func walk(
        _ steps: [JourneyStep], think: ThinkTime = .zero, timeout: Duration = .seconds(5),
        answers: AnswerBook = AnswerBook(fallback: ["x y&z"])
    )
        async throws -> (RespondentResult, [ScriptedTransport.Sent], VirtualClock)
    {
        let transport = ScriptedTransport { sent, _ in
            switch sent.path {
            case "/page":
                .response(
                    TransportResponse(
                        status: 200, body: Array(Self.page.utf8), setCookies: [Array("PHPSESSID=s-1; Path=/; HttpOnly".utf8)]),
                    serviceTime: .milliseconds(1))
            case "/q": ok(#"[{"id":1,"question":"a"}]"#)
            default: ok()
            }
        }
        let journey = Journey(steps)
        var configuration = RunConfiguration(load: .closed(respondents: 1), think: think, answers: answers)
        configuration.client.timeout = timeout
        configuration.cookies = false
        configuration.declaredJourney = journey
        let clock = VirtualClock()
        let context = SurveyContext(
            configuration: configuration, requests: try SurveyRequests(journey: journey, headers: [], target: target), seed: 1,
            transport: transport, clock: clock.clock, recorder: MetricsRecorder(lanes: 1, steps: journey.names), interruption: OnceFlag(),
            runStart: 1_000_000_000)
        var respondent = Respondent(index: 3, seed: 1, lane: 0)
        return (await respondent.run(context), transport.sent, clock)
    }

    static let pageStep = JourneyStep(
        Step("page"), call: .init(method: "GET", path: "/page"),
        captures: [
            .init(name: "csrf", source: .formField("YII_CSRF_TOKEN")), .init(name: "key", source: .formField("LEMpostKey")),
            .init(name: "response", source: .regex(try! TextPattern("Response ([0-9]+) started"))),
            .init(name: "php", source: .cookie("PHPSESSID")),
        ])

    @Test func capturesComeFromFormsRegularExpressionsAndCookies() async throws {
        var post = JourneyStep(
            Step("post"), call: .init(method: "POST", path: "/survey/${session.response}"),
            headers: [HTTPHeader(name: "X-Session", value: "${session.php}")],
            body: try JourneyStep.formBody([("YII_CSRF_TOKEN", "${session.csrf}"), ("LEMpostKey", "${session.key}"), ("move", "move next")])
        )
        post.bodyFormat = .form
        let (result, sent, _) = try await walk([Self.pageStep, post])
        #expect(result.ending == .completed)
        #expect(sent[1].path == "/survey/42")
        #expect(sent[1].head.contains("X-Session: s-1\r\n"))
        #expect(sent[1].head.contains("Content-Type: application/x-www-form-urlencoded\r\n"))
        #expect(sent[1].body == "YII_CSRF_TOKEN=tok%26en%3D1&LEMpostKey=k-29&move=move+next")
    }

    @Test func aFormValueCannotAddAField() async throws {
        var answer = JourneyStep(
            .submit, call: .init(method: "POST", path: "/a"), body: try JourneyStep.formBody([("q${question.id}", "${answer}")]),
            runs: .perQuestion)
        answer.bodyFormat = .form
        let questions = JourneyStep(.questions, call: .init(method: "GET", path: "/q"), questions: .contract)
        let (_, sent, _) = try await walk([questions, answer])
        #expect(sent[1].body == "q%24%7Bquestion.id%7D=x+y%26z")
        #expect(try JourneyStep.formBody([("a b", "1 ${answer}")]) == "a+b=1+${answer}")
    }

    @Test func aTextBodyGoesAsWrittenWithItsContentType() async throws {
        var step = JourneyStep(Step("xml"), call: .init(method: "POST", path: "/x"), body: "<r id=\"${respondent.id}\"/>")
        step.bodyFormat = .text(contentType: "application/xml")
        let (_, sent, _) = try await walk([step])
        #expect(sent[0].body == #"<r id="3"/>"#)
        #expect(sent[0].head.contains("Content-Type: application/xml\r\n"))
        // A content type of the step's own headers wins.
        step.headers = [HTTPHeader(name: "content-type", value: "text/csv")]
        let (_, own, _) = try await walk([step])
        #expect(own[0].head.contains("content-type: text/csv\r\n") && !own[0].head.contains("application/xml"))
    }

    @Test func aStepsOwnThinkTimeComesBeforeItAndReplacesTheRunsForAnswers() async throws {
        var page = Self.pageStep
        page.think = .uniform(DurationRange(fixed: .milliseconds(700)))
        var answer = JourneyStep(.submit, call: .init(method: "POST", path: "/a"), runs: .perQuestion)
        answer.think = .uniform(DurationRange(fixed: .milliseconds(30)))
        let questions = JourneyStep(.questions, call: .init(method: "GET", path: "/q"), questions: .contract)
        let (_, _, clock) = try await walk([page, questions, answer], think: .uniform(DurationRange(fixed: .seconds(9))))
        // 700 ms in slices of 50 ms (so that an interruption is noticed), then the answer's 30 ms.
        let expected: [UInt64] = Array(repeating: 50_000_000, count: 14) + [30_000_000]
        #expect(clock.sleeps == expected)
        // Without one, a step run once is sent at once.
        let (_, _, quick) = try await walk([Self.pageStep])
        #expect(quick.sleeps.isEmpty)
    }

    @Test func aStepsOwnTimeoutCutsItsAttempts() async throws {
        var slow = JourneyStep(Step("export"), call: .init(method: "GET", path: "/export"))
        slow.timeout = .seconds(60)
        let quick = JourneyStep(Step("health"), call: .init(method: "GET", path: "/health"))
        let (_, sent, _) = try await walk([slow, quick])
        // The export's attempts carry its own timeout; the others, none: the client's applies.
        #expect(sent[0].timeout == 60_000_000_000)
        #expect(sent[1].timeout == 0)
        let (_, plain, _) = try await walk([quick])
        #expect(plain[0].timeout == 0)
    }
}

/// Fields of HTML forms, read the way a browser posts them back.
@Suite struct HTMLFormTests {
    @Test(arguments: [
        (#"<input name=token value=abc>"#, "abc"), (#"<INPUT NAME="token" VALUE="a b">"#, "a b"),
        (#"<input type="hidden" name="token">"#, ""), (#"<input name="other" value="x"><input name="token" value="&lt;&#39;&gt;">"#, "<'>"),
        (#"<input data-x='>' name='token' value='q'>"#, "q"), (#"<input name="token" value="a &unknown; b">"#, "a &unknown; b"),
    ])
    func anInputsValueByItsName(_ page: String, _ value: String) {
        #expect(HTMLForm.value(of: "token", in: page) == value)
    }

    @Test func aPageWithoutTheFieldHasNone() {
        #expect(HTMLForm.value(of: "token", in: #"<input name="tokens" value="x"><inputtoken name="token" value="y">"#) == nil)
    }
}
