import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// Journeys of declared steps: steps run once before and after the step per question, their
/// own headers and captures, the `<step>_failed` abandonment, and the steps that run `always`.
@Suite struct JourneyWalkTests {
    static let open = Step("open")
    static let finish = Step("finish")
    static let logout = Step("logout")

    /// Log in for a key, open the survey (its questions, and a response id to capture), answer
    /// each question, finish the response, log out whatever happened.
    static func journey(logoutAlways: Bool = true) -> Journey {
        Journey([
            JourneyStep(
                .login, call: .init(method: "POST", path: "/session"), body: #"{"user": "u${respondent.id}"}"#,
                captures: [.init(name: "key", source: .json(JSONPath(names: ["key"])))]),
            JourneyStep(
                open, call: .init(method: "GET", path: "/surveys/9"),
                headers: [HTTPHeader(name: "X-Key", value: "${session.key}")],
                questions: SurveyQuestion.Shape(
                    list: JSONPath(names: ["questions"]), id: JSONPath(names: ["code"]), text: JSONPath(names: ["text"])),
                captures: [.init(name: "response", source: .header("X-Response"))]),
            JourneyStep(
                .submit, call: .init(method: "PUT", path: "/responses/${session.response}/${question.id}"),
                headers: [HTTPHeader(name: "X-Key", value: "${session.key}")], body: #"{"value": ${answer}}"#, runs: .perQuestion),
            JourneyStep(finish, call: .init(method: "POST", path: "/responses/${session.response}/finish")),
            JourneyStep(logout, call: .init(method: "DELETE", path: "/session/${session.key}"), always: logoutAlways),
        ])
    }

    /// The platform: every call answers as `override` says for its path, or succeeds.
    static func platform(_ override: @escaping @Sendable (String) -> TransportResult? = { _ in nil }) -> ScriptedTransport {
        ScriptedTransport { sent, _ in
            if let result = override(sent.path) { return result }
            switch sent.path {
            case "/session": return ok(#"{"key":"k-\#(sent.body.contains("u1") ? 1 : 0)"}"#)
            case "/surveys/9":
                return .response(
                    TransportResponse(
                        status: 200, body: Array(#"{"questions":[{"code":"Q1","text":"a"},{"code":"Q2","text":"b"}]}"#.utf8),
                        headers: [HTTPHeader(name: "X-Response", value: "r7")]),
                    serviceTime: .milliseconds(1))
            default: return ok()
            }
        }
    }

    func walkContext(_ transport: ScriptedTransport, journey: Journey = journey(), recorder: MetricsRecorder) throws -> SurveyContext {
        var configuration = RunConfiguration(load: .closed(respondents: 1), answers: AnswerBook(fallback: ["yes"]))
        configuration.declaredJourney = journey
        let requests = try SurveyRequests(journey: journey, headers: [], target: target)
        return SurveyContext(
            configuration: configuration, requests: requests, seed: 1, transport: transport, clock: VirtualClock().clock,
            recorder: recorder, interruption: OnceFlag(), runStart: 1_000_000_000)
    }

    @Test func everyStepRunsInOrderWithWhatTheStepsBeforeItCaptured() async throws {
        let transport = Self.platform()
        let recorder = MetricsRecorder(lanes: 1, steps: Self.journey().names)
        var respondent = Respondent(index: 1, seed: 1, lane: 0)
        let result = await respondent.run(try walkContext(transport, recorder: recorder))
        #expect(result == RespondentResult(ending: .completed, submitted: 2, unanswered: 0))
        let sent = transport.sent
        #expect(
            sent.map { "\($0.method) \($0.path)" } == [
                "POST /session", "GET /surveys/9", "PUT /responses/r7/Q1", "PUT /responses/r7/Q2", "POST /responses/r7/finish",
                "DELETE /session/k-1",
            ])
        #expect(sent[0].body == #"{"user": "u1"}"#)
        #expect(!sent[0].head.contains("X-Key"))
        #expect(sent[1...3].allSatisfy { $0.head.contains("X-Key: k-1\r\n") })
        #expect(!sent[4].head.contains("X-Key"))
        #expect(sent[2].body == #"{"value": "yes"}"#)
        let metrics = recorder.snapshot()
        #expect(metrics.perStep.steps == [.login, Self.open, .submit, Self.finish, Self.logout])
        #expect(metrics.perStep.values.map(\.calls) == [1, 1, 2, 1, 1])
        #expect(metrics.answersSubmitted == 2)
    }

    @Test func aStepAfterTheQuestionsThatFailsAbandonsByItsNameAndTheAlwaysStepStillRuns() async throws {
        let transport = Self.platform { $0.hasSuffix("/finish") ? status(500) : nil }
        let recorder = MetricsRecorder(lanes: 1, steps: Self.journey().names)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(try walkContext(transport, recorder: recorder))
        #expect(result == RespondentResult(ending: .abandoned(.failed(Self.finish)), submitted: 2, unanswered: 0))
        #expect(AbandonReason.failed(Self.finish).rawValue == "finish_failed")
        #expect(transport.sent.last?.path == "/session/k-0")
        #expect(recorder.snapshot().abandoned == [.failed(Self.finish): 1])
    }

    @Test func afterAFailedStepOnlyTheAlwaysStepsWithTheirSessionRun() async throws {
        // The survey fails: the logout still ends the session the login opened.
        let noSurvey = Self.platform { $0 == "/surveys/9" ? status(500) : nil }
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let recorder = MetricsRecorder(lanes: 1, steps: Self.journey().names)
        #expect(await respondent.run(try walkContext(noSurvey, recorder: recorder)).ending == .abandoned(.questionsUnavailable))
        #expect(noSurvey.sent.map(\.path) == ["/session", "/surveys/9", "/session/k-0"])
        #expect(recorder.snapshot()[.submit].calls == 0)
        // The login fails: there is no key, and no session to end.
        let noLogin = Self.platform { $0 == "/session" ? status(503) : nil }
        var other = Respondent(index: 0, seed: 1, lane: 0)
        #expect(await other.run(try walkContext(noLogin, recorder: MetricsRecorder(lanes: 1))).ending == .abandoned(.loginFailed))
        #expect(noLogin.sent.map(\.path) == ["/session"])
    }

    @Test func withoutAlwaysAnAbandonedRespondentSendsNothingMore() async throws {
        let transport = Self.platform { $0 == "/surveys/9" ? status(404) : nil }
        let recorder = MetricsRecorder(lanes: 1, steps: Self.journey().names)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(try walkContext(transport, journey: Self.journey(logoutAlways: false), recorder: recorder))
        #expect(result.ending == .abandoned(.questionsUnavailable))
        #expect(transport.sent.map(\.path) == ["/session", "/surveys/9"])
    }

    @Test func aFailingAlwaysStepLeavesTheEndingAsItWas() async throws {
        let transport = Self.platform { $0.hasPrefix("/session/") ? status(500) : nil }
        let recorder = MetricsRecorder(lanes: 1, steps: Self.journey().names)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(try walkContext(transport, recorder: recorder))
        #expect(result == RespondentResult(ending: .completed, submitted: 2, unanswered: 0))
        #expect(recorder.snapshot()[Self.logout].failed == 1)
    }

    /// Open, then one request with every answer, then close.
    static func surveyJourney(_ answers: JourneyStep.AnswersShape) -> Journey {
        Journey([
            JourneyStep(open, call: .init(method: "GET", path: "/s"), questions: .contract),
            JourneyStep(
                .submit, call: .init(method: "POST", path: "/responses"), body: #"{"survey": 9, "answers": ${answers}}"#, runs: .perSurvey,
                answers: answers),
            JourneyStep(finish, call: .init(method: "POST", path: "/done")),
        ])
    }

    func surveyRun(
        _ answers: JourneyStep.AnswersShape, book: AnswerBook, think: ThinkTime = .zero, submit: TransportResult = ok()
    ) async throws -> (RespondentResult, [ScriptedTransport.Sent], VirtualClock) {
        let transport = ScriptedTransport { sent, _ in
            switch sent.path {
            case "/s": ok(#"[{"id":1,"question":"a"},{"id":"q2","question":"b"},{"id":3,"question":"c"}]"#)
            case "/responses": submit
            default: ok()
            }
        }
        let journey = Self.surveyJourney(answers)
        var configuration = RunConfiguration(load: .closed(respondents: 1), think: think, answers: book)
        configuration.declaredJourney = journey
        let clock = VirtualClock()
        let context = SurveyContext(
            configuration: configuration, requests: try SurveyRequests(journey: journey, headers: [], target: target), seed: 1,
            transport: transport, clock: clock.clock, recorder: MetricsRecorder(lanes: 1, steps: journey.names), interruption: OnceFlag(),
            runStart: 1_000_000_000)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        return (await respondent.run(context), transport.sent, clock)
    }

    @Test func aStepPerSurveySendsEveryAnswerAtOnceAfterEveryThinkTime() async throws {
        let think = ThinkTime.uniform(DurationRange(fixed: .milliseconds(200)))
        let (result, sent, clock) = try await surveyRun(
            .object(key: "S9X${question.id}"), book: AnswerBook(fallback: ["yes"]), think: think)
        #expect(result == RespondentResult(ending: .completed, submitted: 3, unanswered: 0))
        #expect(sent.map(\.path) == ["/s", "/responses", "/done"])
        #expect(sent[1].body == #"{"survey": 9, "answers": {"S9X1":"yes","S9Xq2":"yes","S9X3":"yes"}}"#)
        #expect(clock.sleeps.reduce(0, +) == 600_000_000)
    }

    @Test func aListOfAnswersHasAnItemPerQuestionAnsweredAndSkipsTheOthers() async throws {
        let book = AnswerBook(byQuestion: [QuestionID(1): ["a \"b\""], QuestionID("q2"): ["c"]])
        let (result, sent, _) = try await surveyRun(.list(item: #"{"q": ${question.id}, "v": ${answer}}"#), book: book)
        #expect(result == RespondentResult(ending: .finishedWithUnanswered, submitted: 2, unanswered: 0, skipped: 1))
        #expect(sent[1].body == #"{"survey": 9, "answers": [{"q": 1, "v": "a \"b\""},{"q": "q2", "v": "c"}]}"#)
    }

    @Test func aFailedStepPerSurveyLeavesEveryAnswerUnanswered() async throws {
        let (result, sent, _) = try await surveyRun(.byID, book: AnswerBook(fallback: ["x"]), submit: status(422))
        #expect(result == RespondentResult(ending: .finishedWithUnanswered, submitted: 0, unanswered: 3))
        #expect(sent.last?.path == "/done")
    }

    @Test func answersGoOnlyWhereAJSONValueStands() {
        var steps = Self.surveyJourney(.byID).steps
        steps[1].body = #"{"answers": "${answers}"}"#
        #expect(throws: HTTPSyntaxError.self) { try SurveyRequests(journey: Journey(steps), headers: [], target: target) }
        steps[1].body = #"{"answers": ${answers}}"#
        steps[1].runs = .perQuestion
        #expect(throws: HTTPSyntaxError.self) { try SurveyRequests(journey: Journey(steps), headers: [], target: target) }
    }

    @Test func aStepMayNotUseACaptureOfAStepAfterIt() {
        var steps = Self.journey().steps
        steps.swapAt(0, 1)
        #expect(throws: HTTPSyntaxError.self) { try SurveyRequests(journey: Journey(steps), headers: [], target: target) }
    }
}
