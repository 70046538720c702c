extension JourneyStep.Runs {
    /// Once per question the respondent answers, in the order it walks them, each after its
    /// think time and `pace`: today's submit. The answers of a run are these calls.
    public static let perQuestion = JourneyStep.Runs(
        "per_question", runner: PerQuestionRunner.self,
        doc: "once for each question the respondent answers, after its `think` time and `pace` — the submits, counted as the "
            + "run's answers")
}

/// A step per question: a call for each question the plan has an answer for (the others are
/// skipped), each after its think time; each call's answer counts as submitted or unanswered.
/// `Place.round` is the next question.
enum PerQuestionRunner: StepRunner {
    static var answers: AnswersCarried { .one }

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
        guard let submit = respondent.nextPerQuestion(step, question, context) else {
            tally.skipped += 1
            return .skip
        }
        respondent.asking = Int32(truncatingIfNeeded: question)
        place.answers = 1
        return .call(Respondent.NextCall(step: step.position, request: submit.request, think: submit.think))
    }

    static func called(
        _ step: CompiledStep, _ ended: Respondent.CallResult, _ respondent: inout Respondent, _ place: inout Respondent.Place,
        _ tally: inout RespondentResult, _ context: SurveyContext
    ) -> Bool {
        Respondent.count(place.answers, ended, &tally, context)
    }
}
