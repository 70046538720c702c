import SurveyJourney
import SurveyWire

/// How one HTTP attempt ended: a status code, or an error kind without one. Retry policies
/// decide on it; metrics count it.
package enum AttemptOutcome: Sendable, Hashable {
    /// A response arrived with this status.
    case status(Int)
    /// No usable response: why.
    case error(ErrorKind)
}

/// One HTTP attempt, as the metrics see it (vegeta's `Result`): what was called, which try it
/// was, how it ended, and how long it took.
package struct AttemptRecord: Sendable, Hashable {
    /// The step whose call the attempt belongs to.
    var step: Step
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
    var connection: Optional<ConnectionInfo>
    /// Why it failed, beyond its kind (a certificate's fault, in OpenSSL's words), if known.
    var detail: Optional<String>

    /// A record; `startLag` is zero unless given.
    package init(
        step: Step, attempt: Int, outcome: AttemptOutcome, succeeded: Bool, serviceTime: Duration, startLag: Duration = .zero,
        start: UInt64, connection: ConnectionInfo? = nil, detail: String? = nil
    ) {
        // `connection` and `detail` are declared `Optional<…>`, not `…?`, which a `var` starts
        // as nil: the record then counted as made before this init's last line, and was built
        // on the stack, copied out and destroyed (a retain and a release of every reference in
        // it, each attempt).
        self.step = step
        self.attempt = attempt
        self.outcome = outcome
        self.succeeded = succeeded
        self.serviceTime = serviceTime
        self.startLag = startLag
        self.start = start
        self.connection = connection
        self.detail = detail
    }

    /// The service time plus the start lag: what a user arriving on schedule waited, the latency
    /// corrected for coordinated omission (wrk2, HdrHistogram). Equal to `serviceTime` in the
    /// closed model.
    var correctedLatency: Duration { serviceTime + startLag }
}
