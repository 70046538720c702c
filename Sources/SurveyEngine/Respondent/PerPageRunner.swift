import SurveyJourney
import SurveyMetrics

/// A page loop: a call per page with that page's answers (sent without any when the plan has
/// none), while the respondent has questions; each response lists the next page's, and the
/// last none. `Place.round` is the pages posted so far: past the step's `pages`, the respondent
/// is abandoned (`page_limit`); a page that failed abandons it too, with no next page.
extension PerPageRunner: StepRunner {
    static func next(
        _ step: CompiledStep, _ respondent: inout Respondent, _ place: inout Respondent.Place, _ tally: inout RespondentResult,
        _ context: SurveyContext
    ) -> StepTurn {
        // The loop stays at its step while its responses list questions (`called`).
        if tally.isAbandoned || respondent.questions.isEmpty {
            place.moveOn()
            return .skip
        }
        if Respondent.stopping(&tally, context) { return .stop }
        respondent.captureMissing = false
        respondent.asking = -1
        respondent.startCarrying(context)
        let planned = respondent.surveyRequest(step, context, &tally, page: true)
        respondent.plannedCarrying(sent: planned != nil, context)
        guard let page = planned else { return .skip }
        place.answers = page.answered
        place.round += 1
        return .call(Respondent.NextCall(step: step.position, request: page.request, think: page.think))
    }

    static func called(
        _ step: CompiledStep, _ ended: Respondent.CallResult, _ respondent: inout Respondent, _ place: inout Respondent.Place,
        _ tally: inout RespondentResult, _ context: SurveyContext
    ) -> Bool {
        let answers = place.answers
        respondent.countCarried(ended, context)
        switch ended {
        case .succeeded:
            tally.submitted += answers
            if respondent.questions.isEmpty {
                place.moveOn()
            } else if place.round >= step.pages {
                respondent.questions = []
                tally.ending = .abandoned(.pageLimit)
                place.moveOn()
            } else {
                respondent.putInOrder(context.order)
            }
            return true
        case .stopped:
            tally.unanswered += answers
            tally.ending = context.ending(stoppedBy: context.stopCause)
            return false
        case .failed, .notSent:
            tally.unanswered += answers
            tally.ending = .abandoned(
                ended == .notSent ? .localResource : respondent.captureMissing ? .captureNotFound : .failed(step.step))
            respondent.questions = []
            place.moveOn()
            return true
        }
    }
}
