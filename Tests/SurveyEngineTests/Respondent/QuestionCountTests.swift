import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// What each question saw, as respondents count it while they walk: shown when a step that sends
/// answers reaches it, its answer's value where it is chosen, and what came of the call that
/// carried it — for a step per question, per survey and per page.
@Suite struct QuestionCountTests {
    @Test func aStepPerQuestionCountsEachQuestionsOutcomeAndTheAnswersTheServerRefused() async {
        // Question 2's submit is refused (400, retried to the end), question 3 has no answer.
        let transport = ScriptedTransport(survey(submit: { sent, _ in sent.body.contains(#""id":2"#) ? status(400) : ok() }))
        let recorder = MetricsRecorder(lanes: 1)
        let book = AnswerBook(byQuestion: [QuestionID(1): ["a"], QuestionID(2): ["b"]])
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context(transport, answers: book, recorder: recorder))
        #expect(result == RespondentResult(ending: .finishedWithUnanswered, submitted: 1, unanswered: 1, skipped: 1))
        let table = recorder.snapshot().questions
        var first = QuestionFigures()
        (first.shown, first.answered, first.values) = (1, 1, [.choice(0): 1])
        var second = QuestionFigures()
        (second.shown, second.unanswered, second.refused, second.values) = (1, 1, 1, [.choice(0): 1])
        var third = QuestionFigures()
        (third.shown, third.skippedNoAnswer) = (1, 1)
        #expect(table.byID == [QuestionID(1): first, QuestionID(2): second, QuestionID(3): third])
    }

    @Test func aFailureThatIsNoRefusalIsUnansweredOnly() async {
        let transport = ScriptedTransport(survey(submit: { _, _ in status(503) }))
        let recorder = MetricsRecorder(lanes: 1)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        _ = await respondent.run(context(transport, recorder: recorder))
        let figures = recorder.snapshot().questions.byID[QuestionID(1)]
        #expect(figures?.unanswered == 1 && figures?.refused == 0 && figures?.answered == 0)
    }

    /// A survey of three questions (`1`, `q2`, `3`) whose answers go in one request.
    func surveyRun(book: AnswerBook, submit: TransportResult = ok()) async throws -> QuestionTable {
        let transport = ScriptedTransport { sent, _ in
            sent.path == "/s" ? ok(#"[{"id":1,"question":"a"},{"id":"q2","question":"b"},{"id":3,"question":"c"}]"#) : submit
        }
        let journey = Journey([
            JourneyStep(Step("open"), call: .init(method: "GET", path: "/s"), questions: .contract),
            JourneyStep(.submit, call: .init(method: "POST", path: "/r"), body: #"{"a": ${answers}}"#, runs: .perSurvey, answers: .byID),
        ])
        var configuration = RunConfiguration(load: .closed(respondents: 1), answers: book)
        configuration.declaredJourney = journey
        configuration.retry[.submit] = .never
        let recorder = MetricsRecorder(lanes: 1, steps: journey.names)
        let context = SurveyContext(
            configuration: configuration, requests: try SurveyRequests(journey: journey, headers: [], target: target), seed: 1,
            transport: transport, clock: VirtualClock().clock, recorder: recorder, interruption: OnceFlag(), runStart: 1_000_000_000)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        await respondent.run(context)
        return recorder.snapshot().questions
    }

    @Test func aStepPerSurveyCountsOnlyTheAnswersItCarried() async throws {
        let book = AnswerBook(byQuestion: [QuestionID(1): ["a"], QuestionID("q2"): ["b", "c"]])
        let table = try await surveyRun(book: book)
        #expect(table.byID.mapValues(\.shown) == [QuestionID(1): 1, QuestionID("q2"): 1, QuestionID(3): 1])
        #expect(table.byID.mapValues(\.answered) == [QuestionID(1): 1, QuestionID("q2"): 1, QuestionID(3): 0])
        #expect(table.byID[QuestionID(3)]?.skippedNoAnswer == 1)
        #expect(table.byID[QuestionID(1)]?.values == [.choice(0): 1])
        #expect(table.byID[QuestionID("q2")]?.given == 1)
        #expect(table.byID.values.allSatisfy { $0.unanswered == 0 && $0.refused == 0 })
    }

    @Test func aFailedStepPerSurveyLeavesItsAnswersUnansweredButNoneRefused() async throws {
        let table = try await surveyRun(book: AnswerBook(byQuestion: [QuestionID(1): ["a"]]), submit: status(422))
        #expect(table.byID[QuestionID(1)]?.unanswered == 1)
        #expect(table.byID[QuestionID(1)]?.refused == 0, "one call of several answers: which the server refused, it did not say")
        #expect(table.byID[QuestionID("q2")]?.unanswered == 0 && table.byID[QuestionID("q2")]?.skippedNoAnswer == 1)
    }

    @Test func aPageLoopCountsEachPagesAnswersThoughTheResponseBringsTheNextPage() async throws {
        let transport = PageLoopTests.pagedServer(pages: 2)
        let journey = Journey(PageLoopTests.steps())
        var configuration = RunConfiguration(
            load: .closed(respondents: 1), answers: AnswerBook(byQuestion: [QuestionID("q1"): ["x"], QuestionID("q3"): ["y"]]))
        configuration.cookies = false
        configuration.declaredJourney = journey
        let recorder = MetricsRecorder(lanes: 1, steps: journey.names)
        let context = SurveyContext(
            configuration: configuration, requests: try SurveyRequests(journey: journey, headers: [], target: target), seed: 1,
            transport: transport, clock: VirtualClock().clock, recorder: recorder, interruption: OnceFlag(), runStart: 1_000_000_000)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context)
        #expect(result.submitted == 2 && result.skipped == 2)
        let table = recorder.snapshot().questions
        #expect(table.byID.mapValues(\.shown) == [QuestionID("q1"): 1, QuestionID("q2"): 1, QuestionID("q3"): 1, QuestionID("q4"): 1])
        #expect(table.byID.filter { $0.value.answered > 0 }.keys.sorted { $0.text < $1.text } == [QuestionID("q1"), QuestionID("q3")])
        #expect(table.byID[QuestionID("q2")]?.skippedNoAnswer == 1 && table.byID[QuestionID("q4")]?.skippedNoAnswer == 1)
        #expect(table.byID[QuestionID("q3")]?.values == [.choice(0): 1])
    }

    @Test func aDataRowsAnswerIsCountedAsFromTheDataNeverByItsValue() async {
        let transport = ScriptedTransport(survey())
        let recorder = MetricsRecorder(lanes: 1)
        var configuration = RunConfiguration(load: .closed(respondents: 1), answers: AnswerBook(fallback: ["x"]))
        configuration.data = RespondentData(columns: ["answer.2"], rows: [["secret"]])
        let context = SurveyContext(
            configuration: configuration, requests: try! SurveyRequests(api: configuration.api, target: target), seed: 1,
            transport: transport, clock: VirtualClock().clock, recorder: recorder, interruption: OnceFlag(), runStart: 1_000_000_000)
        var respondent = Respondent(index: 0, seed: 1, lane: 0, row: 0)
        await respondent.run(context)
        let table = recorder.snapshot().questions
        #expect(table.byID[QuestionID(2)]?.values == [.fromData: 1])
        #expect(table.byID[QuestionID(1)]?.values == [.choice(0): 1])
        #expect(transport.sent.contains { $0.body.contains("secret") }, "the value itself is still sent")
    }

    @Test func aChosenSkipIsNotCountedAsOneForWantOfAnAnswer() {
        let carried = CarriedAnswers()
        let questions = (1...70).map { SurveyQuestion(id: QuestionID($0), text: "") }
        carried.start(questions)
        carried.give(0)
        carried.give(66)
        carried.decline(1)
        carried.decline(65)
        #expect(Array(carried.answeredIDs) == [QuestionID(1), QuestionID(67)])
        let left = Array(carried.unansweredIDs)
        #expect(left.count == 66 && !left.contains(QuestionID(2)) && !left.contains(QuestionID(66)))
        carried.start(Array(questions.prefix(3)))
        #expect(Array(carried.answeredIDs).isEmpty, "the next call starts with none")
    }

    @Test func aCallsChosenSkipIsCountedAsSuchAndItsOtherQuestionsAsTheCallEnds() {
        // What `answer` does for a question the respondent chooses not to answer: the hooks a
        // call per survey goes through, in their order.
        let recorder = MetricsRecorder(lanes: 1)
        let context = context(ScriptedTransport(survey()), recorder: recorder)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        respondent.questions = [1, 2, 3].map { SurveyQuestion(id: QuestionID($0), text: "") }
        respondent.startCarrying(context)
        respondent.countAnswer(0, .text("7"), context)
        respondent.countChosenSkip(1, context)
        respondent.plannedCarrying(sent: true, context)
        respondent.countCarried(.failed, context)
        let table = recorder.snapshot().questions
        #expect(table.byID.mapValues(\.shown) == [QuestionID(1): 1, QuestionID(2): 1, QuestionID(3): 1])
        #expect(table.byID[QuestionID(1)]?.unanswered == 1 && table.byID[QuestionID(1)]?.values == [.text("7"): 1])
        #expect(table.byID[QuestionID(2)]?.declined == 1 && table.byID[QuestionID(2)]?.skippedNoAnswer == 0)
        #expect(table.byID[QuestionID(2)]?.unanswered == 0, "a question skipped was not in the call")
        #expect(table.byID[QuestionID(3)]?.skippedNoAnswer == 1 && table.byID[QuestionID(3)]?.declined == 0)
    }

    @Test func whatAStepKeepsBetweenItsCallsIsOneWordOfTheRespondent() {
        #expect(MemoryLayout<StepKeeps>.size == MemoryLayout<HTTPRequest.Template?>.size)
    }
}
