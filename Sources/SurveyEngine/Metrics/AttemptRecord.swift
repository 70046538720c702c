/// The two calls a respondent makes.
public enum Endpoint: String, Sendable, Hashable, CaseIterable, Comparable {
    case questions
    case submit

    public static func < (lhs: Endpoint, rhs: Endpoint) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How one HTTP attempt ended: a status code, or an error kind without one.
public enum AttemptOutcome: Sendable, Hashable {
    case status(Int)
    case error(ErrorKind)
}

/// One HTTP attempt, as the metrics see it (vegeta's `Result`): what was called, which try it
/// was, how it ended, and how long it took.
public struct AttemptRecord: Sendable, Hashable {
    public var endpoint: Endpoint
    /// 1 for the first try of a call, 2 for its first retry, …
    public var attempt: Int
    public var outcome: AttemptOutcome
    /// Whether the attempt succeeded: a 2xx, and for questions a body that keeps the contract.
    public var succeeded: Bool
    /// From sending to the last byte of the response (or the failure): the service time.
    public var latency: Duration
    /// The latency plus how late the respondent started against its intended start (open
    /// model; zero in the closed model): what a user arriving on schedule would have waited.
    public var correctedLatency: Duration
    /// When the attempt started, in nanoseconds since the run began.
    public var start: UInt64

    public init(
        endpoint: Endpoint, attempt: Int, outcome: AttemptOutcome, succeeded: Bool, latency: Duration, correctedLatency: Duration? = nil,
        start: UInt64
    ) {
        self.endpoint = endpoint
        self.attempt = attempt
        self.outcome = outcome
        self.succeeded = succeeded
        self.latency = latency
        self.correctedLatency = correctedLatency ?? latency
        self.start = start
    }
}

/// Why a respondent stopped before the end of the survey.
public enum AbandonReason: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The questions never came, after every retry.
    case questionsUnavailable = "questions_unavailable"
    /// The run was interrupted (Ctrl-C, SIGTERM, or the closed model's duration cap).
    case interrupted

    public static func < (lhs: AbandonReason, rhs: AbandonReason) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How one respondent's survey ended.
public struct RespondentResult: Sendable, Hashable {
    public enum Ending: Sendable, Hashable {
        /// Every question was submitted successfully.
        case completed
        /// Every question was tried; some stayed unanswered after their retries.
        case finishedWithUnanswered
        case abandoned(AbandonReason)
    }

    public var ending: Ending
    /// Questions submitted successfully: the app's counter.
    public var submitted: Int
    /// Questions whose submit still failed after its retries.
    public var unanswered: Int

    public init(ending: Ending, submitted: Int, unanswered: Int) {
        self.ending = ending
        self.submitted = submitted
        self.unanswered = unanswered
    }
}
