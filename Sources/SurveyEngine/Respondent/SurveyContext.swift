import SurveyJourney
import SurveyMetrics
import SurveyWire

/// What every respondent of a run shares: the journey and its requests, the answers, the
/// policies, the transport, the clock, where to record, and how the run stops. A class, so that
/// the frames of ten thousand waiting respondents each hold one reference to it rather than a copy.
final class SurveyContext: Sendable {
    /// The journey's steps, in order, each compiled once: a respondent refers to one by its
    /// position.
    let steps: [CompiledStep]
    let answers: AnswerBook
    /// The answers with variables in them (`${row.colour}`), by their text in `answers`;
    /// empty when none has any.
    let answerTemplates: [String: CompiledTemplate]
    /// The rows of the data feed, compact; empty without one.
    let rows: DataRows
    /// The `answer.<id>` columns of the data feed: question id → column.
    let answerColumns: [QuestionID: Int]
    /// How many names the journey captures: `Respondent.session` holds a value for each.
    let captureCount: Int
    let order: QuestionOrder
    let think: ThinkTime
    /// The least nanoseconds between the starts of two submits of a respondent; 0 for none.
    let pace: UInt64
    /// Whether respondents keep cookie jars.
    let cookies: Bool
    /// Whether each respondent holds connections of its own (`ConnectionSharing.perRespondent`).
    let ownConnections: Bool
    /// The column of `rows` each respondent's own proxy comes from (`RunConfiguration.proxyColumn`),
    /// when respondents hold connections of their own; nil for none.
    let proxyColumn: Int?
    /// Whether the answers given are counted (`RunConfiguration.recordAnswers`).
    let recordAnswers: Bool
    let budget: RetryBudget
    let transport: any Transport
    let clock: EngineClock
    let recorder: MetricsRecorder
    /// Where every attempt sent is also logged one by one, if anywhere (`--raw`).
    let attemptLog: AttemptLog?
    /// Raised by `RunCoordinator.interrupt()` (a signal).
    let interruption: OnceFlag
    /// Set by `RunCoordinator.endEarly()`: the run ends as its duration would, now.
    let earlyEnd: EarlyEnd
    /// The nanosecond reading of `clock` when the run began: attempt start times count from it.
    let runStart: UInt64
    /// When the run's duration expires (a reading of `clock`). Nil without a duration.
    let durationDeadline: UInt64?
    let seed: UInt64
    let questionsCache: QuestionsCache
    /// What no reason recorded of a response may show, for every respondent: the run's
    /// secrets and its proxy's credentials (`SecretValues`, with each respondent's own).
    let secrets: [String]

    /// The context of a run of `configuration` sending `requests`, with its seed resolved. Out
    /// of line: inlined into `RunCoordinator.run()`, its locals would lengthen the run's frame.
    @inline(never)
    init(
        configuration: RunConfiguration, requests: SurveyRequests, seed: UInt64, transport: any Transport, clock: EngineClock,
        recorder: MetricsRecorder, attemptLog: AttemptLog? = nil, interruption: OnceFlag, runStart: UInt64, lanes: Int = 1,
        earlyEnd: EarlyEnd? = nil
    ) {
        steps = CompiledStep.journey(of: configuration, requests)
        answers = configuration.answers
        answerTemplates = Self.answerTemplates(configuration)
        rows = configuration.data?.rows ?? []
        answerColumns = configuration.data?.answerColumns ?? [:]
        captureCount = configuration.journey.captureNames.count
        order = configuration.order
        think = configuration.think
        pace = configuration.pace.map { max(0, $0.clampedNanoseconds) } ?? 0
        cookies = configuration.cookies
        ownConnections = configuration.client.sharing == .perRespondent
        proxyColumn =
            ownConnections ? configuration.proxyColumn.flatMap { configuration.data?.columns.firstIndex(of: $0) } : nil
        recordAnswers = configuration.recordAnswers
        budget = RetryBudget(configuration.retry.budget)
        self.transport = transport
        self.clock = clock
        self.recorder = recorder
        self.attemptLog = attemptLog
        self.interruption = interruption
        self.runStart = runStart
        let grace = configuration.effectiveGrace
        self.earlyEnd = earlyEnd ?? EarlyEnd(grace: grace)
        if let duration = configuration.duration {
            let deadline = runStart &+ duration.clampedNanoseconds
            durationDeadline = deadline
            // Every attempt ends by the duration's end plus the grace, or earlier if the run is.
            self.earlyEnd.cutoff.lower(to: deadline &+ grace.clampedNanoseconds)
        } else {
            durationDeadline = nil
        }
        self.seed = seed
        questionsCache = QuestionsCache(lanes: lanes, answers: configuration.answers)
        secrets = configuration.secrets + (configuration.client.proxy?.secrets ?? [])
    }

    /// The answers of `configuration` that hold variables, compiled; a text that does not read
    /// as a template is taken as it is (the plan reader has refused it already).
    private static func answerTemplates(_ configuration: RunConfiguration) -> [String: CompiledTemplate] {
        let columns = configuration.data?.columns ?? []
        let captures = configuration.journey.captureNames
        var templates: [String: CompiledTemplate] = [:]
        let texts = configuration.answers.byQuestion.values.joined() + (configuration.answers.fallback ?? [])
        for text in texts where TextTemplate.mentionsVariables(text) {
            guard let template = try? TextTemplate(parsing: text), !template.isConstant,
                let compiled = try? CompiledTemplate(template, .text, columns: columns, captures: captures)
            else { continue }
            templates[text] = compiled
        }
        return templates
    }
}

extension SurveyContext {
    /// When no attempt may start any more (a reading of `clock`): the duration's expiry, or the
    /// moment the run was ended early, whichever came first; nil while neither is set.
    var deadline: UInt64? {
        guard let early = earlyEnd.deadline else { return durationDeadline }
        return min(early, durationDeadline ?? .max)
    }

    /// Nanoseconds since the run began, on the run's clock.
    func sinceRunStart() -> UInt64 {
        sinceRunStart(at: clock.now())
    }

    /// The monotonic reading `now` in nanoseconds since the run began (0 before it).
    func sinceRunStart(at now: UInt64) -> UInt64 {
        now >= runStart ? now - runStart : 0
    }

    /// Why respondents must stop now, if they must: an interruption (a signal) wins over the
    /// run's duration, which wins over an early end.
    var stopCause: StopCause? {
        if interruption.isRaised { return .signal }
        let now = clock.now()
        if let durationDeadline, now >= durationDeadline { return .duration }
        if let early = earlyEnd.deadline, now >= early { return .endedEarly }
        return nil
    }

    /// How a respondent stopped by `cause` before its end ends: cut short by the run's end,
    /// or abandoned by a signal.
    func ending(stoppedBy cause: StopCause?) -> RespondentResult.Ending {
        cause == .duration || cause == .endedEarly ? .cutShort : .abandoned(.interrupted)
    }
}
