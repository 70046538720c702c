import SurveyJourney

/// Everything a run measured; the engine's output, from which every report is made.
public struct RunMetrics: Sendable, Hashable {
    /// Each step's figures, in the journey's order.
    public var perStep: StepTable<StepMetrics>
    /// Respondents that began the survey.
    public var respondentsStarted = 0
    /// Respondents that submitted every question.
    public var respondentsCompleted = 0
    /// Respondents that tried every question but left some unanswered.
    public var respondentsFinishedWithUnanswered = 0
    /// Respondents that stopped before the end, by reason.
    public var abandoned: [AbandonReason: Int] = [:]
    /// Respondents still under way when the run's duration expired, apart from the abandoned:
    /// `started = completed + finishedWithUnanswered + abandoned + cutShort`.
    public var respondentsCutShort = 0
    /// Open model: arrivals not started because `concurrency` respondents were in flight.
    public var dropped = 0
    /// Answers submitted successfully.
    public var answersSubmitted = 0
    /// Answers whose submit still failed after its retries.
    public var answersUnanswered = 0
    /// Questions the plan has no answer for, never sent (only possible with a remote target):
    /// apart from `answersUnanswered`, which counts submits that failed.
    public var answersSkipped = 0
    /// Questions respondents chose not to answer (`RespondentResult.declined`).
    public var answersDeclined = 0
    /// Attempts started in each second since the run began: index 0 counts [0 s, 1 s). It ends
    /// with the last second in which an attempt started.
    public var attemptsPerSecond: [Int] = []
    /// How many of each second's attempts failed; as long as `attemptsPerSecond`.
    public var failuresPerSecond: [Int] = []
    /// The run over time, interval by interval; off (empty) unless the run asked for it
    /// (`RunConfiguration.timelineInterval`).
    public var timeline: Timeline
    /// Open model: how late each respondent started after its arrival's time in the schedule,
    /// in nanoseconds — the tool's own lateness (a busy loop), not the server's.
    public var arrivalLag = Histogram()
    /// How late each think, pace or retry wait ended after the time it was set for, in
    /// nanoseconds: the lateness of the tool's timers, in either load model.
    public var timerLag = Histogram()

    /// Nothing counted yet, for a journey of `steps` (in its order; other steps are added as
    /// they are counted): by default, the default journey without a login.
    public init(steps: [Step] = SurveyAPI().journey.names) {
        perStep = StepTable(steps, initial: StepMetrics())
        timeline = Timeline(steps: steps)
    }

    /// The steps counted, in the journey's order.
    public var steps: [Step] { perStep.steps }

    /// One step's figures; empty for a step the run did not take.
    public subscript(step: Step) -> StepMetrics {
        get { perStep[step] }
        // In place: a get-then-set would copy the histograms on every attempt recorded.
        _modify { yield &perStep[step] }
    }

    /// Respondents abandoned, whatever the reason.
    public var respondentsAbandoned: Int { abandoned.values.reduce(0, +) }

    /// Counts one attempt, in its step and in the per-second timeline.
    mutating func add(_ record: AttemptRecord) {
        perStep[record.step].add(record)
        if StepMetrics.isLocal(record) { return }  // not sent: not in the timeline
        timeline.add(record)
        let second = Int(record.start / 1_000_000_000)
        while attemptsPerSecond.count <= second {
            attemptsPerSecond.append(0)
            failuresPerSecond.append(0)
        }
        attemptsPerSecond[second] += 1
        if !record.succeeded { failuresPerSecond[second] += 1 }
    }

    /// Counts one respondent's ending and answers.
    mutating func add(_ result: RespondentResult) {
        answersSubmitted += result.submitted
        answersUnanswered += result.unanswered
        answersSkipped += result.skipped
        answersDeclined += result.declined
        switch result.ending {
        case .completed: respondentsCompleted += 1
        case .finishedWithUnanswered: respondentsFinishedWithUnanswered += 1
        case .abandoned(let reason): abandoned[reason, default: 0] += 1
        case .cutShort: respondentsCutShort += 1
        }
    }

    /// With `RunConfiguration.recordAnswers`: the answers respondents gave, by question, each
    /// by its place in the plan's choices for that question (its own, or the `"*"` ones), or
    /// `RunMetrics.fromData` for a data row's answer (a secret, never shown): → how often.
    /// Bounded as `questions` is: at most `QuestionTable.questionLimit` questions, the answers
    /// to any past them counted together in `answersGivenBeyondLimit` — a survey that invents
    /// ids (50 respondents × 20,000 new ones took 914 MB) cannot grow it without end.
    public var answersGiven: [QuestionID: [Int: Int]] = [:]
    /// The answers given to the questions past `QuestionTable.questionLimit`, by choice, together.
    public var answersGivenBeyondLimit: [Int: Int] = [:]

    /// Counts `count` answers of `choice` to question `id` in `answersGiven`, or past the
    /// limit in `answersGivenBeyondLimit`: one hash for a question already counted.
    mutating func countGiven(_ id: QuestionID, choice: Int, count: Int = 1) {
        if let index = answersGiven.index(forKey: id) {
            answersGiven.values[index].add(count, to: choice)
        } else if answersGiven.count < QuestionTable.questionLimit {
            answersGiven[id] = [choice: count]
        } else {
            answersGivenBeyondLimit.add(count, to: choice)
        }
    }

    /// The choice of `answersGiven` that stands for an answer from the data feed.
    public static let fromData = -1

    /// What each question saw: shown, answered, skipped, unanswered, refused, and the answers
    /// given. Always counted, bounded (`QuestionTable`).
    public var questions = QuestionTable()

    /// Adds another part's counts: the metrics of the lanes (or shards) of one run add up to
    /// the run's.
    public mutating func merge(_ other: RunMetrics) {
        for (question, choices) in other.answersGiven {
            for (choice, count) in choices { countGiven(question, choice: choice, count: count) }
        }
        answersGivenBeyondLimit.merge(other.answersGivenBeyondLimit, uniquingKeysWith: +)
        questions.merge(other.questions)
        perStep.merge(other.perStep)
        respondentsStarted += other.respondentsStarted
        respondentsCompleted += other.respondentsCompleted
        respondentsFinishedWithUnanswered += other.respondentsFinishedWithUnanswered
        abandoned.merge(other.abandoned, uniquingKeysWith: +)
        respondentsCutShort += other.respondentsCutShort
        dropped += other.dropped
        answersSubmitted += other.answersSubmitted
        answersUnanswered += other.answersUnanswered
        answersSkipped += other.answersSkipped
        answersDeclined += other.answersDeclined
        timeline.merge(other.timeline)
        arrivalLag.merge(other.arrivalLag)
        timerLag.merge(other.timerLag)
        while attemptsPerSecond.count < other.attemptsPerSecond.count {
            attemptsPerSecond.append(0)
            failuresPerSecond.append(0)
        }
        for index in other.attemptsPerSecond.indices {
            attemptsPerSecond[index] += other.attemptsPerSecond[index]
            failuresPerSecond[index] += other.failuresPerSecond[index]
        }
    }

    /// Every attempt of the run, every step.
    public var attempts: Int { perStep.values.reduce(0) { $0 + $1.attempts } }

    /// Attempts that failed, every step.
    public var failedAttempts: Int { perStep.values.reduce(0) { $0 + $1.failedAttempts } }

    /// Attempts of every step that could not be made for want of a local resource.
    public var localResource: Int { perStep.values.reduce(0) { $0 + $1.localResource } }
}
