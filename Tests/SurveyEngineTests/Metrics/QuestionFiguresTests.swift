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

/// `report.include_answers` counts the answers given by question, bounded as the questions
/// are: a survey that invents an id per page (50 respondents × 20,000 ids took 914 MB) fills
/// the first `QuestionTable.questionLimit` ids, and every answer past them is counted together.
@Suite struct AnswersGivenBoundTests {
    @Test func theAnswersGivenKeepAtMostTheQuestionLimitThenCountTheRestTogether() {
        let recorder = MetricsRecorder(lanes: 2)
        let limit = QuestionTable.questionLimit
        // Each lane sees its own invented ids, beyond the limit, and the same first one twice.
        for lane in 0..<2 {
            for index in 0..<(limit + 500) {
                recorder.answerValue(QuestionID(lane * 100_000 + index), .choice(0), choice: index % 2, lane: lane)
            }
            recorder.answerValue(QuestionID(lane * 100_000), .choice(0), choice: 1, lane: lane)
        }
        let metrics = recorder.snapshot()
        #expect(metrics.answersGiven.count == limit)
        let counted = metrics.answersGiven.values.reduce(0) { $0 + $1.values.reduce(0, +) }
        let beyond = metrics.answersGivenBeyondLimit.values.reduce(0, +)
        // Nothing lost: every answer is in one or the other.
        #expect(counted + beyond == 2 * (limit + 501))
        #expect(beyond >= 2 * 500)
        #expect(metrics.questions.byID.count == limit)
    }
}
