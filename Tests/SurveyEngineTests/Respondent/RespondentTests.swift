import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

@Suite struct RespondentTests {
    @Test func submitIsNeverRepeatedAfterSuccess() async {
        let transport = ScriptedTransport(survey())
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context(transport))
        #expect(result == RespondentResult(ending: .completed, submitted: 3, unanswered: 0))
        let submits = transport.sent.filter { $0.method == "POST" }.map(\.body)
        #expect(submits == [#"{"id":1,"answer":"x"}"#, #"{"id":2,"answer":"x"}"#, #"{"id":3,"answer":"x"}"#])
    }

    @Test func counterGrowsOnlyOnSuccess() async {
        // Question 2 fails twice, then succeeds on the third attempt.
        let transport = ScriptedTransport(
            survey(submit: { sent, previous in sent.body.contains("\"id\":2") && previous < 2 ? status(400) : ok() }))
        let recorder = MetricsRecorder(lanes: 1)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context(transport, recorder: recorder))
        #expect(result.submitted == 3)
        let metrics = recorder.snapshot()
        #expect(metrics[.submit].calls == 3)
        #expect(metrics[.submit].attempts == 5)
        #expect(metrics[.submit].succeeded == 3)
        #expect(metrics[.submit].firstTrySucceeded == 2)
        #expect(metrics[.submit].statuses == [200: 3, 400: 2])
        #expect(metrics.answersSubmitted == 3)
    }

    @Test func questionStillFailingIsUnansweredAndTheRespondentGoesOn() async {
        let transport = ScriptedTransport(survey(submit: { sent, _ in sent.body.contains("\"id\":2") ? status(400) : ok() }))
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context(transport))
        #expect(result == RespondentResult(ending: .finishedWithUnanswered, submitted: 2, unanswered: 1))
        #expect(transport.sent.filter { $0.body.contains("\"id\":2") }.count == 3)
        #expect(transport.sent.last?.body.contains("\"id\":3") == true)
    }

    @Test func abandonedWhenQuestionsNeverCome() async {
        let transport = ScriptedTransport { _, _ in status(503) }
        let recorder = MetricsRecorder(lanes: 1)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context(transport, recorder: recorder))
        #expect(result.ending == .abandoned(.questionsUnavailable))
        #expect(transport.sent.count == 3)
        #expect(transport.sent.allSatisfy { $0.method == "GET" })
        #expect(recorder.snapshot().abandoned == [.questionsUnavailable: 1])
    }

    @Test func questionsThatBreakTheContractAreMalformed() async {
        let transport = ScriptedTransport { _, _ in ok(#"{"not":"a list"}"#) }
        let recorder = MetricsRecorder(lanes: 1)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context(transport, questions: retrying(2, on: ["malformed"]), recorder: recorder))
        #expect(result.ending == .abandoned(.questionsUnavailable))
        #expect(recorder.snapshot()[.questions].errors == [.malformedResponse: 2])
    }

    @Test func restartIsANewRespondentWithNothingAnswered() async {
        let transport = ScriptedTransport(survey())
        let recorder = MetricsRecorder(lanes: 1)
        for _ in 0..<2 {
            var respondent = Respondent(index: 0, seed: 1, lane: 0)
            let result = await respondent.run(context(transport, recorder: recorder))
            #expect(result.submitted == 3)
        }
        let metrics = recorder.snapshot()
        #expect(metrics.respondentsStarted == 2)
        #expect(metrics.answersSubmitted == 6)
        #expect(transport.sent.filter { $0.method == "POST" }.count == 6)
    }

    @Test func retryAfterWinsOverTheBackoff() async {
        let transport = ScriptedTransport { sent, previous in
            sent.method == "POST" ? ok() : previous == 0 ? status(503, retryAfter: "2") : ok(questionsJSON)
        }
        let clock = VirtualClock()
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        _ = await respondent.run(
            context(
                transport, clock: clock,
                questions: retrying(3, on: ["5xx"], backoff: Backoff(.constant, initial: .milliseconds(100), max: .seconds(5)))))
        // 2 s, slept in 50 ms slices so that a stop is noticed.
        #expect(clock.sleeps.reduce(0, +) == 2_000_000_000)
    }

    @Test func backoffDelaysAreSleptBetweenAttempts() async {
        let transport = ScriptedTransport { sent, previous in
            sent.method == "POST" ? ok() : previous < 3 ? status(500) : ok(questionsJSON)
        }
        let clock = VirtualClock()
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let policy = retrying(4, on: ["5xx"], backoff: Backoff(.exponential, initial: .milliseconds(100), max: .seconds(1), multiplier: 2))
        _ = await respondent.run(context(transport, clock: clock, questions: policy))
        // 100 + 200 + 400 ms of backoff.
        #expect(clock.sleeps.reduce(0, +) == 700_000_000)
    }

    @Test func retryBudgetStopsARetryStorm() async {
        let transport = ScriptedTransport { _, _ in status(500) }
        let recorder = MetricsRecorder(lanes: 1)
        let shared = context(transport, budget: RetryBudgetPolicy(ratio: 0, minimum: 2), recorder: recorder)
        for index in 0..<3 {
            var respondent = Respondent(index: index, seed: 1, lane: 0)
            _ = await respondent.run(shared)
        }
        let metrics = recorder.snapshot()
        // The first respondent spends both retries; the next two are refused their first.
        #expect(metrics[.questions].retries == 2)
        #expect(metrics[.questions].retriesDenied == 2)
        #expect(metrics[.questions].attempts == 5)
    }

    @Test func answersComeFromTheBookWithSeededChoice() async {
        let book = AnswerBook(byQuestion: [1: ["red"], 2: ["pizza", "pasta", "sushi"]], fallback: ["n/a"])
        var chosen: Set<String> = []
        for index in 0..<30 {
            let transport = ScriptedTransport(survey())
            var respondent = Respondent(index: index, seed: 9, lane: 0)
            _ = await respondent.run(context(transport, answers: book))
            let bodies = transport.sent.filter { $0.method == "POST" }.map(\.body)
            #expect(bodies[0] == #"{"id":1,"answer":"red"}"#)
            #expect(bodies[2] == #"{"id":3,"answer":"n/a"}"#)
            chosen.insert(bodies[1])
            // The same respondent number and seed choose the same again.
            let again = ScriptedTransport(survey())
            var twin = Respondent(index: index, seed: 9, lane: 0)
            _ = await twin.run(context(again, answers: book))
            #expect(again.sent.map(\.body) == transport.sent.map(\.body))
        }
        #expect(chosen.count == 3)
    }

    @Test func aQuestionWithoutAnAnswerIsSkippedNotUnanswered() async {
        // `unanswered` is a submit that failed; a question the plan cannot answer is never sent.
        let transport = ScriptedTransport(survey())
        let recorder = MetricsRecorder(lanes: 1)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context(transport, answers: AnswerBook(byQuestion: [1: ["a"], 3: ["c"]]), recorder: recorder))
        #expect(result == RespondentResult(ending: .finishedWithUnanswered, submitted: 2, unanswered: 0, skipped: 1))
        let metrics = recorder.snapshot()
        #expect(metrics.answersSkipped == 1)
        #expect(metrics.answersUnanswered == 0)
        #expect(!transport.sent.contains { $0.body.contains("\"id\":2") })
    }

    @Test func orderIsFollowed() async {
        let transport = ScriptedTransport(survey())
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        _ = await respondent.run(context(transport, order: .reverse))
        #expect(transport.sent.filter { $0.method == "POST" }.map(\.body).first == #"{"id":3,"answer":"x"}"#)
    }

    /// The questions are shuffled in place through a buffer pointer, for its cheap swaps: the
    /// same draws and the same order as the array's own shuffle, so a seed gives the order it gave.
    @Test func aRandomOrderIsTheArraysOwnShuffle() {
        for seed in UInt64(0)..<200 {
            for count in 0..<12 {
                var own = Array(0..<count)
                var ownDraws = SplitMix64(seed: seed)
                own.shuffle(using: &ownDraws)
                var inPlace = Array(0..<count)
                var inPlaceDraws = SplitMix64(seed: seed)
                inPlace.withUnsafeMutableBufferPointer { $0.shuffle(using: &inPlaceDraws) }
                #expect(own == inPlace && ownDraws == inPlaceDraws, "seed \(seed), \(count) questions")
            }
        }
    }

    @Test func stopLeavesAtTheNextStep() async {
        let transport = ScriptedTransport(survey())
        let shared = context(transport)
        shared.interruption.raise()
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(shared)
        #expect(result.ending == .abandoned(.interrupted))
        #expect(transport.sent.count == 1)
    }
}
