import SurveyJourney
import SurveyMetrics
import SurveyWire

/// What the survey saw, question by question (`QuestionFigures`): each question a respondent
/// reached in a step that sends answers, the answer it gave or why it gave none, and what came
/// of the call that carried the answer. The runners call these as they plan a call and when it
/// ends; `answer` calls `countAnswer` where it chooses a value.
extension Respondent {
    /// The step per question's own head, kept in `kept` (`StepKeeps`): made once, when its row
    /// or session is in it but not the question.
    var perQuestionHead: HTTPRequest.Template? {
        get { if case .head(let head) = kept { head } else { nil } }
        set { kept = newValue.map(StepKeeps.head) ?? .nothing }
    }

    /// Counts the answer given to the `index`-th question, by what the report may show of it;
    /// with `RunConfiguration.recordAnswers`, a plan's or a data row's answer also in
    /// `RunMetrics.answersGiven`. In a call per survey or per page, marks it as carried (their
    /// questions were counted as shown when the call was planned); in a step per question,
    /// counts it as shown too, in the same update: one hash the fewer per answer.
    func countAnswer(_ index: Int, _ value: AnswerValue, _ context: SurveyContext) {
        var choice: Int?
        if context.recordAnswers {
            switch value {
            case .choice(let place): choice = place
            case .fromData: choice = RunMetrics.fromData
            case .text: choice = nil
            }
        }
        if case .answers(let carried) = kept {
            context.recorder.answerValue(questions[index].id, value, choice: choice, lane: lane)
            carried.give(index)
        } else {
            context.recorder.answerValue(questions[index].id, value, choice: choice, shown: true, lane: lane)
        }
    }

    /// Counts the `index`-th question as one the respondent chose not to answer (an optional
    /// question): in a call per survey or per page it is then not counted as skipped for want of
    /// an answer. A step per question that skips by choice does not count the skip it reports
    /// as `.skippedNoAnswer`.
    func countChosenSkip(_ index: Int, _ context: SurveyContext) {
        if case .answers(let carried) = kept {
            context.recorder.question(questions[index].id, .declined, lane: lane)
            carried.decline(index)
        } else {
            // A step per question: shown, and declined, in one update.
            context.recorder.question(questions[index].id, .shown, then: .declined, lane: lane)
        }
    }

    /// Counts the `index`-th question as shown to a step per question and left out for want of an answer.
    func countSkippedNoAnswer(_ index: Int, _ context: SurveyContext) {
        context.recorder.question(questions[index].id, .shown, then: .skippedNoAnswer, lane: lane)
    }

    /// Before a call per survey or per page is planned: counts each of its questions as shown,
    /// and starts keeping which of them it carries an answer for (in words the respondent reuses
    /// from one call to the next).
    mutating func startCarrying(_ context: SurveyContext) {
        context.recorder.questions(questions.lazy.map(\.id), .shown, lane: lane)
        let carried: CarriedAnswers
        if case .answers(let kept) = kept {
            carried = kept
        } else {
            carried = CarriedAnswers()
            kept = .answers(carried)
        }
        carried.start(questions)
    }

    /// Once a call per survey or per page is planned: counts the questions it left out for want
    /// of an answer. `sent` is false when nothing is sent (no question had an answer): nothing
    /// is kept for its end then.
    func plannedCarrying(sent: Bool, _ context: SurveyContext) {
        guard case .answers(let carried) = kept else { return }
        context.recorder.questions(carried.unansweredIDs, .skippedNoAnswer, lane: lane)
        if !sent { carried.finish() }
    }

    /// Counts what came of the answers the call that just ended carried: the question a step per
    /// question asked, or those a call per survey or per page carried; answered when it
    /// succeeded, else unanswered (as the respondent's tally counts them).
    func countCarried(_ ended: CallResult, _ context: SurveyContext) {
        let event: QuestionEvent = ended == .succeeded ? .answered : .unanswered
        if asking >= 0 {
            guard Int(asking) < questions.count else { return }
            context.recorder.question(questions[Int(asking)].id, event, lane: lane)
        } else if case .answers(let carried) = kept {
            context.recorder.questions(carried.answeredIDs, event, lane: lane)
            carried.finish()
        }
    }

    /// Counts the question a step per question asked as refused when its submit ended, failed,
    /// with a 4xx or `rejected`: the survey API says which answer it would not take.
    func countRefusal(_ outcome: AttemptOutcome, _ context: SurveyContext) {
        guard asking >= 0, Int(asking) < questions.count else { return }
        switch outcome {
        case .status(let status) where (400..<500).contains(status): break
        case .error(.rejected): break
        default: return
        }
        context.recorder.question(questions[Int(asking)].id, .refused, lane: lane)
    }
}
