/// The two calls a respondent makes.
public enum Endpoint: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The optional session step (`SurveyAPI.login`), before the questions.
    case login
    /// `GET /questions`: fetching the survey.
    case questions
    /// `POST /question/submit`: submitting one answer.
    case submit

    /// By raw value, so that reports list `login`, `questions`, `submit` in the order called.
    public static func < (lhs: Endpoint, rhs: Endpoint) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How one HTTP attempt ended: a status code, or an error kind without one. Retry policies
/// decide on it; metrics count it.
enum AttemptOutcome: Sendable, Hashable {
    /// A response arrived with this status.
    case status(Int)
    /// No usable response: why.
    case error(ErrorKind)
}

/// One HTTP attempt, as the metrics see it (vegeta's `Result`): what was called, which try it
/// was, how it ended, and how long it took.
struct AttemptRecord: Sendable, Hashable {
    /// The call the attempt belongs to.
    var endpoint: Endpoint
    /// 1 for the first try of a call, 2 for its first retry, …
    var attempt: Int
    /// The status, or the error kind.
    var outcome: AttemptOutcome
    /// Whether the attempt succeeded: a 2xx, and for questions a body that keeps the contract.
    var succeeded: Bool
    /// From the attempt's start (the connect, or the first byte sent on a kept-alive
    /// connection) to the last byte of the response or the failure.
    var serviceTime: Duration
    /// How late the respondent started against its intended start: zero in the closed model.
    var startLag: Duration
    /// When the attempt started, in nanoseconds since the run began.
    var start: UInt64
    /// The connection it went over, when it had one.
    var connection: ConnectionInfo?
    /// Why it failed, beyond its kind (a certificate's fault, in OpenSSL's words), if known.
    var detail: String?

    /// A record; `startLag` is zero unless given.
    init(
        endpoint: Endpoint, attempt: Int, outcome: AttemptOutcome, succeeded: Bool, serviceTime: Duration, startLag: Duration = .zero,
        start: UInt64, connection: ConnectionInfo? = nil, detail: String? = nil
    ) {
        self.connection = connection
        self.detail = detail
        self.endpoint = endpoint
        self.attempt = attempt
        self.outcome = outcome
        self.succeeded = succeeded
        self.serviceTime = serviceTime
        self.startLag = startLag
        self.start = start
    }

    /// The service time plus the start lag: what a user arriving on schedule waited, the latency
    /// corrected for coordinated omission (wrk2, HdrHistogram). Equal to `serviceTime` in the
    /// closed model.
    var correctedLatency: Duration { serviceTime + startLag }
}

/// Why a respondent stopped before the end of the survey.
public enum AbandonReason: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The questions never came, after every retry.
    case questionsUnavailable = "questions_unavailable"
    /// The questions could not be asked for: this process ran out of descriptors or local
    /// ports (`ErrorKind.localResource`) on the last attempt. Not the server's doing.
    case localResource = "local_resource"
    /// The run was interrupted (Ctrl-C, SIGTERM). A respondent stopped by the run's duration
    /// is not abandoned but cut short (`RespondentResult.Ending.cutShort`).
    case interrupted
    /// The login (`SurveyAPI.login`) still failed after its retries.
    case loginFailed = "login_failed"
    /// The login succeeded but a capture (`SurveyAPI.captures`) found nothing usable: its
    /// attempt's detail names the capture.
    case captureNotFound = "capture_not_found"

    /// By raw value, so that reports list the reasons in a fixed order.
    public static func < (lhs: AbandonReason, rhs: AbandonReason) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How one respondent's survey ended.
struct RespondentResult: Sendable, Hashable {
    /// Whether the respondent got to the end of the survey.
    enum Ending: Sendable, Hashable {
        /// Every question was submitted successfully.
        case completed
        /// Every question was tried; some were not submitted: still failing after their
        /// retries (`unanswered`), or with no answer in the plan (`skipped`).
        case finishedWithUnanswered
        /// Stopped before the end.
        case abandoned(AbandonReason)
        /// Still under way when the run's duration expired: stopped by the run, not by anything
        /// that went wrong for it.
        case cutShort
    }

    /// How the survey ended.
    var ending: Ending
    /// Questions submitted successfully: the app's counter.
    var submitted: Int
    /// Questions whose submit still failed after its retries.
    var unanswered: Int
    /// Questions the plan has no answer for: never sent, and not `unanswered`, which says the
    /// server refused.
    var skipped: Int

    /// A result.
    init(ending: Ending, submitted: Int, unanswered: Int, skipped: Int = 0) {
        self.ending = ending
        self.submitted = submitted
        self.unanswered = unanswered
        self.skipped = skipped
    }
}
