import SurveyJourney
import SurveyMetrics

/// A step run once: called once, after its own think time if it has one; skipped once the
/// respondent is abandoned, unless it runs `always` and has the session it uses. A failure
/// abandons the respondent (unless the step runs `always`); a success that read the questions
/// puts them in order.
extension OnceRunner: StepRunner {
    static func next(
        _ step: CompiledStep, _ respondent: inout Respondent, _ place: inout Respondent.Place, _ tally: inout RespondentResult,
        _ context: SurveyContext
    ) -> StepTurn {
        place.moveOn()
        if tally.isAbandoned, !step.always || !respondent.hasSession(for: step) { return .skip }
        return respondent.callWithoutAnswers(step, &place, context)
    }

    static func called(
        _ step: CompiledStep, _ ended: Respondent.CallResult, _ respondent: inout Respondent, _ place: inout Respondent.Place,
        _ tally: inout RespondentResult, _ context: SurveyContext
    ) -> Bool {
        let reason: AbandonReason
        switch ended {
        case .succeeded:
            if step.questions != nil { respondent.putInOrder(context.order) }
            return true
        case .stopped:
            tally.ending = context.ending(stoppedBy: context.stopCause)
            return false
        case .failed: reason = respondent.captureMissing ? .captureNotFound : step.abandonReason
        case .notSent: reason = .localResource
        }
        if !step.always, !tally.isAbandoned { tally.ending = .abandoned(reason) }
        return true
    }
}
