import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyWire

/// Cookies and pacing: what a respondent carries from one request to the next, and when it sends.
@Suite struct RespondentSessionTests {
    @Test func aCookieTheQuestionsSetGoesBackOnEverySubmit() async {
        let transport = ScriptedTransport { sent, _ in
            sent.method == "GET" ? ok(questionsJSON, setting: ["sid=abc; Path=/; HttpOnly"]) : ok()
        }
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context(transport))
        #expect(result.submitted == 3)
        #expect(transport.sent.map(\.cookie) == [nil, "sid=abc", "sid=abc", "sid=abc"])
    }

    @Test func aCookieSetByAFailedAttemptGoesOnTheRetry() async {
        let transport = ScriptedTransport(
            survey(submit: { sent, previous in
                guard sent.body.contains("\"id\":1") else { return ok() }
                return previous == 0
                    ? .response(TransportResponse(status: 503, setCookies: [Array("lb=b2".utf8)]), serviceTime: .milliseconds(1))
                    : ok()
            }))
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        await respondent.run(context(transport))
        #expect(transport.sent.map(\.cookie) == [nil, nil, "lb=b2", "lb=b2", "lb=b2"])
    }

    @Test func respondentsNeverShareCookies() async throws {
        // One at a time, each fetch of the questions sets a cookie numbered by the fetch: every
        // respondent sends only its own, and none starts with another's.
        let fetches = Atomic<Int>(0)
        let transport = ScriptedTransport { sent, _ in
            guard sent.method == "GET" else { return ok() }
            let n = fetches.wrappingAdd(1, ordering: .relaxed).oldValue
            return ok(questionsJSON, setting: ["sid=\(n)"])
        }
        let coordinator = try RunCoordinator(
            configuration: RunConfiguration(load: .closed(respondents: 3), concurrency: 1, answers: AnswerBook(fallback: ["x"])),
            target: target, transport: transport)
        let result = await coordinator.run()
        #expect(result.metrics.respondentsCompleted == 3)
        let cookies = transport.sent.map(\.cookie)
        #expect(cookies == [nil, "sid=0", "sid=0", "sid=0", nil, "sid=1", "sid=1", "sid=1", nil, "sid=2", "sid=2", "sid=2"])
    }

    @Test func cookiesFalseSendsNoneAndAsksForNone() async {
        let transport = ScriptedTransport { sent, _ in sent.method == "GET" ? ok(questionsJSON, setting: ["sid=abc"]) : ok() }
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        await respondent.run(context(transport, cookies: false))
        #expect(transport.sent.allSatisfy { $0.cookie == nil })
    }

    @Test func aCookieHeaderOfThePlanComesFirstInTheOneCookieLine() async throws {
        let transport = ScriptedTransport { sent, _ in sent.method == "GET" ? ok(questionsJSON, setting: ["sid=abc"]) : ok() }
        var configuration = RunConfiguration(load: .closed(respondents: 1), answers: AnswerBook(fallback: ["x"]))
        configuration.api.headers = [HTTPHeader(name: "Cookie", value: "panel=7")]
        let coordinator = try RunCoordinator(configuration: configuration, target: target, transport: transport)
        _ = await coordinator.run()
        #expect(transport.sent.map(\.cookie) == ["panel=7", "panel=7; sid=abc", "panel=7; sid=abc", "panel=7; sid=abc"])
    }

    @Test func paceSpacesTheStartsOfSubmits() async {
        // think 500ms, pace 2s: submits start at 0.5s, 2.5s and 4.5s after the questions.
        let clock = VirtualClock()
        let start = clock.now
        let transport = ScriptedTransport(survey())
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        await respondent.run(
            context(transport, clock: clock, think: .uniform(DurationRange(fixed: .milliseconds(500))), pace: .seconds(2)))
        #expect(clock.now - start == 4_500_000_000)
    }

    @Test func paceShorterThanTheThinkTimeAddsNothing() async {
        let clock = VirtualClock()
        let start = clock.now
        let transport = ScriptedTransport(survey())
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        await respondent.run(
            context(transport, clock: clock, think: .uniform(DurationRange(fixed: .milliseconds(500))), pace: .milliseconds(300)))
        #expect(clock.now - start == 1_500_000_000)
    }

    @Test func paceCountsTheSubmitsRetriesAsPartOfIt() async {
        // The first submit fails once and is retried after 100ms: the second submit still
        // starts 2s after the first one started.
        let clock = VirtualClock()
        let start = clock.now
        let transport = ScriptedTransport(
            survey(submit: { sent, previous in sent.body.contains("\"id\":1") && previous == 0 ? status(400) : ok() }))
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        await respondent.run(context(transport, clock: clock, pace: .seconds(2)))
        #expect(clock.now - start == 4_000_000_000)
    }
}
