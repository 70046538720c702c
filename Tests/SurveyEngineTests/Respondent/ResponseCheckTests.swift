import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// A step's `expect`: the statuses that count as success, and checks of the body, headers and
/// JSON that turn a refusal inside a success into a failure of its own kind, `rejected`.
@Suite struct ResponseCheckTests {
    static func response(_ body: String, status: Int = 200, headers: [HTTPHeader] = []) -> TransportResponse {
        TransportResponse(status: status, body: Array(body.utf8), headers: headers)
    }

    static func check(_ subject: ResponseCheck.Subject, _ test: ResponseCheck.Test) -> ResponseExpectation {
        ResponseExpectation(checks: [ResponseCheck(subject, test, text: "the check")])
    }

    static let error = JSONPath(names: ["error"])
    static let status = JSONPath(names: ["result", "status"])

    @Test func jsonRPCsInBandErrorsAreCaughtAndNamed() {
        let refused = Self.response(#"{"id":1,"result":{"status":"Invalid session key"},"error":null}"#)
        let stored = Self.response(#"{"id":1,"result":42,"error":null}"#)
        let failed = Self.response(#"{"id":1,"result":null,"error":{"code":-32000,"message":"no"}}"#)
        let expectation = ResponseExpectation(checks: [
            ResponseCheck(.json(Self.error), .absent, text: "$.error not exists"),
            ResponseCheck(.json(Self.status), .absent, text: "$.result.status not exists"),
        ])
        #expect(expectation.failure(in: stored) == nil)
        #expect(expectation.failure(in: refused) == #"check '$.result.status not exists' failed: found "Invalid session key""#)
        #expect(expectation.failure(in: failed) == #"check '$.error not exists' failed: found {"code":-32000,"message":"no"}"#)
    }

    @Test(arguments: [
        (ResponseCheck.Test.exists, #"{"a":1}"#, true), (.exists, #"{"a":null}"#, false), (.exists, "{}", false),
        (.absent, #"{"a":null}"#, true), (.absent, #"{"a":0}"#, false),
        (.equals(.integer(3)), #"{"a":3}"#, true), (.equals(.integer(3)), #"{"a":3.0}"#, true),
        (.equals(.string("3")), #"{"a":3}"#, false), (.equals(.null), #"{"a":null}"#, true), (.notEquals(.null), #"{"a":1}"#, true),
        (.contains("ok"), #"{"a":"it is ok"}"#, true), (.notContains("ok"), #"{"a":"it is ok"}"#, false),
        (.matches(try! TextPattern("^q[0-9]+$")), #"{"a":"q12"}"#, true), (.matches(try! TextPattern("^q[0-9]+$")), #"{"a":"x"}"#, false),
        (.notMatches(try! TextPattern("^q")), #"{"a":12}"#, true),
    ])
    func aJSONPathCheckTestsTheFirstValueSelected(_ test: ResponseCheck.Test, _ body: String, _ holds: Bool) {
        #expect((Self.check(.json(JSONPath(names: ["a"])), test).failure(in: Self.response(body)) == nil) == holds)
    }

    @Test func bodyAndHeaderChecksReadTheirText() throws {
        let response = Self.response("Saved: response 7", headers: [HTTPHeader(name: "Content-Type", value: "text/plain")])
        #expect(Self.check(.body, .contains("Saved")).failure(in: response) == nil)
        #expect(Self.check(.body, .notMatches(try TextPattern("(?i)invalid"))).failure(in: response) == nil)
        #expect(
            Self.check(.body, .notMatches(try TextPattern("response [0-9]+"))).failure(in: response)
                == #"check 'the check' failed: the body has "response 7""#)
        #expect(Self.check(.header("content-type"), .contains("text")).failure(in: response) == nil)
        #expect(Self.check(.header("X-Missing"), .exists).failure(in: response) == "check 'the check' failed: none")
        #expect(
            Self.check(.json(JSONPath(names: ["a"])), .exists).failure(in: response)
                == "check 'the check' failed: the body is not JSON (unexpected character at byte 0)")
    }

    @Test func theExpectedStatusesReplaceTheTwoHundreds() throws {
        let gone = try #require(StatusSet(names: ["204", "404"]))
        #expect(gone.description == "[204, 404]")
        let expectation = ResponseExpectation(statuses: gone)
        #expect(expectation.accepts(404) && expectation.accepts(204) && !expectation.accepts(200))
        #expect(ResponseExpectation().accepts(201) && !ResponseExpectation().accepts(404))
        #expect(StatusSet(names: ["2xx"])?.contains(299) == true)
        #expect(StatusSet(names: ["6xx"]) == nil && StatusSet(names: ["99"]) == nil)
    }

    // The walk: a rejected answer fails its call, is retried when the policy says so, and shows why.

    static func rpcJourney(retryRejected: Bool) -> (Journey, RetryPolicies) {
        let journey = Journey([
            JourneyStep(.questions, call: .init(method: "GET", path: "/questions"), questions: .contract),
            JourneyStep(
                .submit, call: .init(method: "POST", path: "/rpc"), body: #"{"method":"add_response","params":[${answer}]}"#,
                runs: .perQuestion,
                expect: ResponseExpectation(checks: [ResponseCheck(.json(Self.status), .absent, text: "$.result.status not exists")])),
        ])
        let policy = RetryPolicy(
            attempts: 2, backoff: Backoff(.none), jitter: .none, retryOn: try! RetryConditions(names: retryRejected ? ["rejected"] : []))
        return (journey, RetryPolicies([.questions: .never, .submit: policy]))
    }

    @Test func aRefusalInsideA200IsAFailedAnswerWithItsReason() async throws {
        let (journey, retry) = Self.rpcJourney(retryRejected: true)
        // The second of each answer's attempts is stored; the first refused in band.
        let transport = ScriptedTransport { sent, previous in
            if sent.method == "GET" { return ok(questionsJSON) }
            return ok(previous % 2 == 0 ? #"{"result":{"status":"Invalid session key"},"error":null}"# : #"{"result":9,"error":null}"#)
        }
        var configuration = RunConfiguration(load: .closed(respondents: 1), answers: AnswerBook(fallback: ["x"]), retry: retry)
        configuration.declaredJourney = journey
        let recorder = MetricsRecorder(lanes: 1)
        let context = SurveyContext(
            configuration: configuration, requests: try SurveyRequests(journey: journey, headers: [], target: target), seed: 1,
            transport: transport, clock: VirtualClock().clock, recorder: recorder, interruption: OnceFlag(), runStart: 1_000_000_000)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context)
        #expect(result == RespondentResult(ending: .completed, submitted: 3, unanswered: 0))
        let submit = recorder.snapshot()[.submit]
        #expect(submit.attempts == 6 && submit.succeeded == 3 && submit.retries == 3)
        #expect(submit.errors == [.rejected: 3])
        #expect(submit.statuses == [200: 3])
        #expect(submit.errorSamples[.rejected] == #"check '$.result.status not exists' failed: found "Invalid session key""#)
    }
}
