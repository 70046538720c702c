import Testing

@testable import SurveyJourney
@testable import SurveyMetrics

/// What each question saw, as the recorder counts it: every event, the bound on distinct
/// answers and on questions, and the lanes added up exactly.
@Suite struct QuestionFiguresTests {
    @Test func everyEventIsCountedForItsQuestionAlone() {
        let recorder = MetricsRecorder(lanes: 1)
        for (times, event) in zip(1..., QuestionEvent.allCases) {
            for _ in 0..<times { recorder.question(QuestionID(7), event, lane: 0) }
        }
        recorder.question(QuestionID(8), .shown, lane: 0)
        let figures = recorder.snapshot().questions.byID[QuestionID(7)]
        #expect(figures?.shown == 1)
        #expect(figures?.answered == 2)
        #expect(figures?.declined == 3)
        #expect(figures?.skippedNoAnswer == 4)
        #expect(figures?.unanswered == 5)
        #expect(figures?.refused == 6)
        #expect(recorder.snapshot().questions.byID[QuestionID(8)]?.shown == 1)
        #expect(recorder.snapshot().questions.byID.count == 2)
    }

    @Test func theAnswersOfOneCallAreCountedTogether() {
        let recorder = MetricsRecorder(lanes: 1)
        recorder.questions([QuestionID(1), QuestionID("b"), QuestionID(1)], .answered, lane: 0)
        let table = recorder.snapshot().questions
        #expect(table.byID[QuestionID(1)]?.answered == 2)
        #expect(table.byID[QuestionID("b")]?.answered == 1)
    }

    @Test func pastTwentyDistinctAnswersTheRestAreCountedTogether() {
        let recorder = MetricsRecorder(lanes: 1)
        for word in 0..<25 { recorder.answerValue(QuestionID(1), .text("w\(word)"), lane: 0) }
        recorder.answerValue(QuestionID(1), .text("w0"), lane: 0)
        recorder.answerValue(QuestionID(1), .text("w24"), lane: 0)
        let figures = recorder.snapshot().questions.byID[QuestionID(1)]!
        #expect(figures.values.count == QuestionFigures.valueLimit)
        #expect(figures.values[.text("w0")] == 2, "a value counted one by one goes on being counted so")
        #expect(figures.values[.text("w24")] == nil)
        #expect(figures.otherValues == 6, "w20…w24, and w24 again")
        #expect(figures.given == 27)
    }

    @Test func aPlansChoiceAlsoCountsInTheAnswersGivenWhenAskedTo() {
        let recorder = MetricsRecorder(lanes: 1)
        recorder.answerValue(QuestionID(1), .choice(2), choice: 2, lane: 0)
        recorder.answerValue(QuestionID(1), .fromData, choice: RunMetrics.fromData, lane: 0)
        recorder.answerValue(QuestionID(1), .choice(2), lane: 0)
        let metrics = recorder.snapshot()
        #expect(metrics.answersGiven == [QuestionID(1): [2: 1, RunMetrics.fromData: 1]])
        #expect(metrics.questions.byID[QuestionID(1)]?.values == [.choice(2): 2, .fromData: 1])
    }

    @Test func lanesAddUpAndKeepTheMostFrequentAnswersOneByOne() {
        let recorder = MetricsRecorder(lanes: 2)
        // Lane 0 counts a0…a19 once each and "common" never; lane 1 "common" 5 times, b0…b19 once.
        for index in 0..<20 { recorder.answerValue(QuestionID(1), .text("a\(index)"), lane: 0) }
        for _ in 0..<5 { recorder.answerValue(QuestionID(1), .text("common"), lane: 1) }
        for index in 0..<19 { recorder.answerValue(QuestionID(1), .text("b\(index)"), lane: 1) }
        recorder.question(QuestionID(1), .shown, lane: 0)
        recorder.question(QuestionID(1), .shown, lane: 1)
        recorder.question(QuestionID(1), .declined, lane: 1)
        let figures = recorder.snapshot().questions.byID[QuestionID(1)]!
        #expect(figures.shown == 2 && figures.declined == 1)
        #expect(figures.values.count == QuestionFigures.valueLimit)
        #expect(figures.values[.text("common")] == 5, "the most frequent is kept")
        #expect(figures.given == 20 + 5 + 19, "nothing is lost: the rest are in otherValues")
        #expect(figures.otherValues == 20 + 19 - 19)
    }

    @Test func questionsPastTheLimitAreCountedTogether() {
        var table = QuestionTable()
        for id in 0..<(QuestionTable.questionLimit + 3) { table.update(QuestionID(id)) { $0.add(.shown) } }
        #expect(table.byID.count == QuestionTable.questionLimit)
        #expect(table.beyondLimit.shown == 3)
        table.update(QuestionID(0)) { $0.add(.answered) }
        #expect(table.byID[QuestionID(0)]?.answered == 1, "a question counted one by one stays so")
        var other = QuestionTable()
        other.update(QuestionID(-1)) { $0.add(.shown) }
        table.merge(other)
        #expect(table.beyondLimit.shown == 4, "merged past the limit, it joins the rest")
    }

    @Test func answersAreOrderedChoicesThenDataThenTexts() {
        #expect(
            [AnswerValue.text("a"), .fromData, .choice(3), .choice(1), .text("0")].sorted() == [
                .choice(1), .choice(3), .fromData, .text("0"), .text("a"),
            ])
    }
}
