import SurveyJourney
import SurveyMetrics

/// How a kind of step (`JourneyStep.Runs`) is walked: which calls it makes, and what the end of
/// each leaves behind. Plain static functions over the respondent, where it stands in the walk
/// and its tally, called from the walk's plain functions (`Respondent.nextCall`, `called`):
/// none of a runner's work is in an async frame, which every thinking respondent holds.
///
/// A runner refines the journey's `StepWalker` (what its requests carry, whether it loops over
/// pages) with the walk itself; a kind's `Runs` names its runner, and a step is compiled with it
/// (`CompiledStep`).
protocol StepRunner: StepWalker {
    /// The step's next call from `place`, moving `place` on as the step needs (`Place.moveOn`
    /// once it is done with the step); `.skip` to ask the walk again from where `place` is now,
    /// `.stop` when the walk ends here (`tally` then says how).
    static func next(
        _ step: CompiledStep, _ respondent: inout Respondent, _ place: inout Respondent.Place, _ tally: inout RespondentResult,
        _ context: SurveyContext
    ) -> StepTurn

    /// What the end of a call of the step leaves behind: answers counted, questions put in
    /// order, an abandonment, `place` moved on. False when the run stopped the call (`tally`
    /// then says how the respondent ended).
    static func called(
        _ step: CompiledStep, _ ended: Respondent.CallResult, _ respondent: inout Respondent, _ place: inout Respondent.Place,
        _ tally: inout RespondentResult, _ context: SurveyContext
    ) -> Bool
}

/// What a runner says the walk does next.
enum StepTurn {
    /// Make this call.
    case call(Respondent.NextCall)
    /// Nothing to send from here: ask again from where the walk now stands.
    case skip
    /// The walk ends here.
    case stop
}

extension Respondent {
    /// Counts the `answers` a call sent as submitted or unanswered; false when the run stopped
    /// the call, `tally` then saying how the respondent ended.
    static func count(_ answers: Int, _ ended: CallResult, _ tally: inout RespondentResult, _ context: SurveyContext) -> Bool {
        switch ended {
        case .succeeded: tally.submitted += answers
        case .failed, .notSent: tally.unanswered += answers
        case .stopped:
            tally.unanswered += answers
            tally.ending = context.ending(stoppedBy: context.stopCause)
            return false
        }
        return true
    }

    /// The call of a step that sends no answers: its own request, after its own think time (none
    /// without one); the step's earlier outcome forgotten. What a step run once sends, each time.
    mutating func callWithoutAnswers(_ step: CompiledStep, _ place: inout Place, _ context: SurveyContext) -> StepTurn {
        captureMissing = false
        asking = -1
        place.answers = 0
        let think = step.think.map { $0.sample(using: &random).clampedNanoseconds } ?? 0
        return .call(NextCall(step: step.position, request: onceRequest(step, context), think: think))
    }

    /// Ends the walk for the run's stop, if it is stopping: true when it is, `tally` saying how
    /// the respondent ended.
    static func stopping(_ tally: inout RespondentResult, _ context: SurveyContext) -> Bool {
        guard let cause = context.stopCause else { return false }
        tally.ending = context.ending(stoppedBy: cause)
        return true
    }
}
