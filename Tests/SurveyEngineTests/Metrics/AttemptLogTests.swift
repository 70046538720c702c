import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport
@testable import SurveyWire

private func attempt(_ respondent: Int, start: UInt64 = 0) -> LoggedAttempt {
    LoggedAttempt(
        start: start, respondent: respondent, step: .submit, attempt: 1, status: 200, error: nil, latency: 1_000_000,
        serviceTime: 1_000_000, bytes: 2)
}

@Suite struct AttemptLogTests {
    @Test func aFullLaneDropsAndCountsInsteadOfWaiting() {
        let log = AttemptLog(lanes: 2, capacity: 3)
        for respondent in 0..<5 { log.offer(attempt(respondent), lane: 0) }
        log.offer(attempt(9), lane: 1)
        var taken: [LoggedAttempt] = []
        log.drain(lane: 0, into: &taken)
        #expect(taken.map(\.respondent) == [0, 1, 2])
        #expect(log.dropped == 2)
        log.drain(lane: 1, into: &taken)
        #expect(taken.map(\.respondent) == [9])
        // Drained, the lane takes attempts again.
        log.offer(attempt(5), lane: 0)
        log.drain(lane: 0, into: &taken)
        #expect(taken.map(\.respondent) == [5])
        #expect(log.dropped == 2)
    }

    @Test func laneNumbersWrapAroundLikeTheRecorders() {
        let log = AttemptLog(lanes: 2, capacity: 10)
        log.offer(attempt(1), lane: 3)
        var taken: [LoggedAttempt] = []
        log.drain(lane: 1, into: &taken)
        #expect(taken.map(\.respondent) == [1])
    }

    @Test func everyAttemptSentIsLoggedWithItsRespondentAttemptAndOutcome() async throws {
        // Every first submit of question 2 fails with a 400 and is retried once.
        let transport = ScriptedTransport(
            survey { sent, previous in sent.body.contains(#""id":2"#) && previous == 0 ? status(400) : ok("ok") })
        let log = AttemptLog(lanes: 1)
        let configuration = RunConfiguration(
            load: .closed(respondents: 4), concurrency: 2, seed: 5, answers: AnswerBook(fallback: ["x"]),
            retry: RetryPolicies([.submit: retrying(3, on: ["400"], backoff: Backoff(.constant, initial: .zero))]))
        let coordinator = try RunCoordinator(configuration: configuration, target: target, transport: transport, attemptLog: log)
        let result = await coordinator.run()
        var logged: [LoggedAttempt] = []
        log.drain(lane: 0, into: &logged)
        #expect(logged.count == result.metrics.attempts)
        #expect(Set(logged.map(\.respondent)) == [0, 1, 2, 3])
        #expect(logged.filter { $0.step == .questions }.count == 4)
        #expect(logged.filter { $0.status == 400 }.count == 1 && logged.filter { $0.attempt == 2 }.count == 1)
        #expect(logged.filter { $0.step == .questions }.allSatisfy { $0.bytes == questionsJSON.utf8.count })
        #expect(logged.filter { $0.step == .submit && $0.status == 200 }.allSatisfy { $0.bytes == 2 })
        #expect(log.dropped == 0)
    }

    /// A response whose body would not do is logged with its status, its kind and why.
    @Test func aQuestionsBodyThatBreaksTheContractIsLoggedWithItsStatusAndWhy() async throws {
        let transport = ScriptedTransport(survey(questions: "[]"))
        let log = AttemptLog(lanes: 1)
        let configuration = RunConfiguration(load: .closed(respondents: 1), seed: 5, answers: AnswerBook(fallback: ["x"]))
        let result = try await RunCoordinator(configuration: configuration, target: target, transport: transport, attemptLog: log).run()
        var logged: [LoggedAttempt] = []
        log.drain(lane: 0, into: &logged)
        let questions = try #require(logged.first)
        #expect(questions.step == .questions)
        #expect(questions.status == 200 && questions.error == .malformedResponse)
        // What was wrong, and what the server sent.
        #expect(questions.reason == "the questions list is empty; the server sent []")
        #expect(result.metrics[.questions].errorSamples[.malformedResponse] == "the questions list is empty; the server sent []")
    }

    @Test func anAttemptNeverSentIsNotLogged() async throws {
        let transport = ScriptedTransport(
            survey { _, _ in .failure(.localResource, requestSent: false, serviceTime: .zero) })
        let log = AttemptLog(lanes: 1)
        let configuration = RunConfiguration(load: .closed(respondents: 1), seed: 5, answers: AnswerBook(fallback: ["x"]))
        let result = try await RunCoordinator(configuration: configuration, target: target, transport: transport, attemptLog: log).run()
        var logged: [LoggedAttempt] = []
        log.drain(lane: 0, into: &logged)
        #expect(result.metrics.localResource > 0)
        #expect(logged.count == result.metrics.attempts)
    }
}
