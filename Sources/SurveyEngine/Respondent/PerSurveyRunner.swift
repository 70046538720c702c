import SurveyJourney
import SurveyMetrics

/// A step per survey: one call with every answer the plan has (none: no call), after the think
/// time of each; they count as submitted or unanswered together.
extension PerSurveyRunner: StepRunner {
    static func next(
        _ step: CompiledStep, _ respondent: inout Respondent, _ place: inout Respondent.Place, _ tally: inout RespondentResult,
        _ context: SurveyContext
    ) -> StepTurn {
        place.moveOn()
        if tally.isAbandoned { return .skip }
        if Respondent.stopping(&tally, context) { return .stop }
        respondent.captureMissing = false
        respondent.asking = -1
        respondent.startCarrying(context)
        let survey = respondent.surveyRequest(step, context, &tally)
        respondent.plannedCarrying(sent: survey != nil, context)
        guard let survey else { return .skip }
        place.answers = survey.answered
        return .call(Respondent.NextCall(step: step.position, request: survey.request, think: survey.think))
    }

    static func called(
        _ step: CompiledStep, _ ended: Respondent.CallResult, _ respondent: inout Respondent, _ place: inout Respondent.Place,
        _ tally: inout RespondentResult, _ context: SurveyContext
    ) -> Bool {
        respondent.countCarried(ended, context)
        return Respondent.count(place.answers, ended, &tally, context)
    }
}
