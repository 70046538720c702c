import SurveyJourney
import SurveyMetrics

/// A step per question: a call for each question the plan has an answer for (the others are
/// skipped), each after its think time; each call's answer counts as submitted or unanswered.
/// `Place.round` is the next question.
extension PerQuestionRunner: StepRunner {
    static func next(
        _ step: CompiledStep, _ respondent: inout Respondent, _ place: inout Respondent.Place, _ tally: inout RespondentResult,
        _ context: SurveyContext
    ) -> StepTurn {
        if tally.isAbandoned || place.round >= respondent.questions.count {
            place.moveOn()
            return .skip
        }
        if Respondent.stopping(&tally, context) { return .stop }
        let question = place.round
        place.round += 1
        var declined = false
        guard let submit = respondent.nextPerQuestion(step, question, context, declined: &declined) else {
            if declined {
                tally.declined += 1
                respondent.countChosenSkip(question, context)
            } else {
                tally.skipped += 1
                respondent.countSkippedNoAnswer(question, context)
            }
            return .skip
        }
        respondent.asking = Int32(truncatingIfNeeded: question)
        place.answers = 1
        return .call(submit)
    }

    static func called(
        _ step: CompiledStep, _ ended: Respondent.CallResult, _ respondent: inout Respondent, _ place: inout Respondent.Place,
        _ tally: inout RespondentResult, _ context: SurveyContext
    ) -> Bool {
        respondent.countCarried(ended, context)
        return Respondent.count(place.answers, ended, &tally, context)
    }
}
