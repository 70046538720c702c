import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// Repeating must be safe: a step that is not idempotent is not retried once its request may
/// have reached the server, and the retries not made are counted; a request that never left,
/// or a response the policy retries, is retried whatever the method.
@Suite struct SafeRepeatTests {
    static let timedOut = TransportResult.failure(.timeout, requestSent: true, serviceTime: .milliseconds(5))
    static let resetAfterWriting = TransportResult.failure(.connectionReset, requestSent: true, serviceTime: .milliseconds(1))
    static let refused = TransportResult.failure(.connectionRefused, requestSent: false, serviceTime: .zero)

    /// One question; the answer's first attempt ends as `first`, the next ones succeed.
    func answer(
        method: String, idempotent: Bool? = nil, first: TransportResult, journey: Journey? = nil
    ) async throws -> (RespondentResult, StepMetrics, Int) {
        let declared =
            journey
            ?? Journey([
                JourneyStep(.questions, call: .init(method: "GET", path: "/questions"), questions: .contract),
                JourneyStep(
                    .submit, call: .init(method: method, path: "/answers/${question.id}"), body: #"{"v": ${answer}}"#, runs: .perQuestion,
                    idempotent: idempotent),
            ])
        let transport = ScriptedTransport { sent, previous in
            if sent.method == "GET" { return ok(#"[{"id":1,"question":"a"}]"#) }
            return previous == 0 ? first : ok()
        }
        let policy = RetryPolicy(
            attempts: 3, backoff: Backoff(.none), jitter: .none, retryOn: try RetryConditions(names: ["5xx", "timeout", "connection"]))
        var configuration = RunConfiguration(
            load: .closed(respondents: 1), answers: AnswerBook(fallback: ["x"]),
            retry: RetryPolicies([.questions: .never, .submit: policy]))
        configuration.declaredJourney = declared
        let recorder = MetricsRecorder(lanes: 1)
        let context = SurveyContext(
            configuration: configuration, requests: try SurveyRequests(journey: declared, headers: [], target: target), seed: 1,
            transport: transport, clock: VirtualClock().clock, recorder: recorder, interruption: OnceFlag(), runStart: 1_000_000_000)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context)
        return (result, recorder.snapshot()[.submit], transport.sent.filter { $0.method != "GET" }.count)
    }

    @Test(arguments: [Self.timedOut, Self.resetAfterWriting])
    func aPostWhoseRequestMayHaveArrivedIsNotSentAgain(_ first: TransportResult) async throws {
        let (result, submit, sent) = try await answer(method: "POST", first: first)
        #expect(sent == 1)
        #expect(result == RespondentResult(ending: .finishedWithUnanswered, submitted: 0, unanswered: 1))
        #expect(submit.retriesUnsafe == 1 && submit.retries == 0 && submit.failed == 1)
    }

    @Test func aRequestThatNeverLeftIsRetriedWhateverTheMethod() async throws {
        let (result, submit, sent) = try await answer(method: "POST", first: Self.refused)
        #expect(sent == 2 && result.submitted == 1 && submit.retriesUnsafe == 0)
    }

    @Test func aResponseThePolicyRetriesIsRetriedWhateverTheMethod() async throws {
        let (_, submit, sent) = try await answer(method: "PATCH", first: status(503))
        #expect(sent == 2 && submit.succeeded == 1 && submit.retriesUnsafe == 0)
    }

    @Test(arguments: [("PUT", nil), ("DELETE", nil), ("POST", true)] as [(String, Bool?)])
    func anIdempotentStepIsRetriedAfterATimeout(_ method: String, _ idempotent: Bool?) async throws {
        let (result, submit, sent) = try await answer(method: method, idempotent: idempotent, first: Self.timedOut)
        #expect(sent == 2 && result.submitted == 1 && submit.retries == 1 && submit.retriesUnsafe == 0)
    }

    @Test func theDefaultJourneysSubmitKeepsItsRetries() async throws {
        // POST /question/submit: an answer keyed by its question, which the survey contract stores once.
        let steps = SurveyAPI().journey.steps
        #expect(steps.allSatisfy { $0.idempotent })
        let (result, _, sent) = try await answer(method: "POST", first: Self.timedOut, journey: SurveyAPI().journey)
        #expect(sent == 2 && result.submitted == 1)
        #expect(!JourneyStep(.submit, call: .init(method: "POST", path: "/x")).idempotent)
        #expect(JourneyStep(.submit, call: .init(method: "GET", path: "/x")).idempotent)
    }
}
