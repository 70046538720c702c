import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// The reason a respondent records for a refusal: the excerpt of the server's body, with the
/// run's secrets, the proxy's credentials, its session and its row masked; in the raw log for
/// every attempt, in the step's samples once a class of status.
@Suite struct ServerReasonTests {
    static let rows = RespondentData(columns: ["member", "panel"], rows: [["member-7", "south"]])

    func context(_ transport: ScriptedTransport, recorder: MetricsRecorder, log: AttemptLog? = nil) throws -> SurveyContext {
        var api = SurveyAPI(headers: [HTTPHeader(name: "Authorization", value: "Bearer ${session.token}")])
        api.login = .init(method: "POST", path: "/session")
        api.loginBody = #"{"member": ${row.member}}"#
        api.captures = [.init(name: "token", source: .json(JSONPath(names: ["token"])))]
        var configuration = RunConfiguration(load: .closed(respondents: 1), api: api, answers: AnswerBook(fallback: ["x"]))
        configuration.data = Self.rows
        configuration.retry[.questions] = .never
        configuration.secrets = ["env-key-1"]
        configuration.client.proxy = HTTPProxy(host: "127.0.0.1", port: 3128, user: "proxy-user", password: "proxy-pass")
        let requests = try SurveyRequests(api: api, target: target, columns: Self.rows.columns)
        return SurveyContext(
            configuration: configuration, requests: requests, seed: 1, transport: transport, clock: VirtualClock().clock,
            recorder: recorder, attemptLog: log, interruption: OnceFlag(), runStart: 1_000_000_000)
    }

    static func refusing(_ status: Int, _ body: String) -> TransportResult {
        .response(TransportResponse(status: status, body: Array(body.utf8)), serviceTime: .milliseconds(1))
    }

    @Test func aRefusalsReasonMasksEverySecretTheRespondentKnows() async throws {
        let transport = ScriptedTransport { sent, _ in
            sent.path == "/session"
                ? ok(#"{"token":"tok-9f8e"}"#)
                : Self.refusing(
                    401,
                    #"{"error": "token tok-9f8e of member-7 (south) refused; key env-key-1; proxy proxy-user:proxy-pass"}"#)
        }
        let recorder = MetricsRecorder(lanes: 1)
        var respondent = Respondent(index: 0, seed: 1, lane: 0, row: 0)
        _ = await respondent.run(try context(transport, recorder: recorder))
        #expect(
            recorder.snapshot()[.questions].statusSamples
                == [401: #"{"error":"token *** of *** (***) refused; key ***; proxy ***:***"}"#])
    }

    @Test func theRawLogHasEveryRefusalsReasonAndTheStepItsFirst() async throws {
        let transport = ScriptedTransport { sent, _ in
            sent.path == "/session" ? ok(#"{"token":"tok-1"}"#) : Self.refusing(403, "forbidden")
        }
        for log in [nil, AttemptLog(lanes: 1)] {
            let recorder = MetricsRecorder(lanes: 1)
            let context = try context(transport, recorder: recorder, log: log)
            for _ in 0..<3 {
                var respondent = Respondent(index: 0, seed: 1, lane: 0, row: 0)
                _ = await respondent.run(context)
            }
            #expect(recorder.snapshot()[.questions].statusSamples == [403: "forbidden"])
            guard let log else { continue }
            var logged: [LoggedAttempt] = []
            log.drain(lane: 0, into: &logged)
            #expect(logged.filter { $0.step == .questions }.map(\.reason) == ["forbidden", "forbidden", "forbidden"])
        }
    }
}

/// The one redaction rule where a failing check quotes the server: the token a login's
/// response carries (which no capture has taken yet, the check having failed first) and every
/// cookie value, the jar's and the response's, are masked like the rest.
@Suite struct CheckReasonSecretsTests {
    static let journey = Journey([
        JourneyStep(
            .login, call: .init(method: "POST", path: "/session"),
            captures: [.init(name: "token", source: .json(JSONPath(names: ["data", "token"])))],
            expect: ResponseExpectation(checks: [ResponseCheck(.body, .notContains("denied"), text: "body not contains denied")])),
        JourneyStep(.questions, call: .init(method: "GET", path: "/questions"), questions: .contract),
        JourneyStep(
            .submit, call: .init(method: "POST", path: "/q/${question.id}"), runs: .perQuestion,
            expect: ResponseExpectation(checks: [ResponseCheck(.body, .notContains("denied"), text: "body not contains denied")])),
    ])

    func run(_ transport: ScriptedTransport, log: AttemptLog? = nil) async throws -> MetricsRecorder {
        var configuration = RunConfiguration(
            load: .closed(respondents: 1), answers: AnswerBook(fallback: ["x"]),
            retry: RetryPolicies([.login: .never, .questions: .never, .submit: .never]))
        configuration.declaredJourney = Self.journey
        let recorder = MetricsRecorder(lanes: 1)
        let context = SurveyContext(
            configuration: configuration, requests: try SurveyRequests(journey: Self.journey, headers: [], target: target), seed: 1,
            transport: transport, clock: VirtualClock().clock, recorder: recorder, attemptLog: log, interruption: OnceFlag(),
            runStart: 1_000_000_000)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        _ = await respondent.run(context)
        return recorder
    }

    @Test func aFailingCheckOnTheLoginMasksTheTokenItsResponseCarries() async throws {
        let transport = ScriptedTransport { _, _ in
            ok(#"{"data":{"token":"tok-login-4711"},"note":"denied, sid cookie-val-99"}"#, setting: ["sid=cookie-val-99; Path=/"])
        }
        let recorder = try await run(transport)
        let sample = try #require(recorder.snapshot()[.login].errorSamples[.rejected])
        #expect(!sample.contains("tok-login-4711") && !sample.contains("cookie-val-99"), "\(sample)")
        #expect(sample.contains("***"), "\(sample)")
    }

    @Test func aFailingCheckLaterMasksTheJarsCookies() async throws {
        let transport = ScriptedTransport { sent, _ in
            switch sent.path {
            case "/session": ok(#"{"data":{"token":"tok-login-4711"}}"#, setting: ["sid=cookie-val-99; Path=/"])
            case "/questions": ok(questionsJSON)
            default: ok(#"{"error":"denied for sid=cookie-val-99 and tok-login-4711"}"#)
            }
        }
        let log = AttemptLog(lanes: 1)
        let recorder = try await run(transport, log: log)
        let sample = try #require(recorder.snapshot()[.submit].errorSamples[.rejected])
        #expect(!sample.contains("tok-login-4711") && !sample.contains("cookie-val-99"), "\(sample)")
        #expect(sample.contains("sid=***"), "\(sample)")
    }
}
