import SurveyMetrics

/// A retry policy as a pure value: given what happened on an attempt, stop or wait how long.
///
/// `attempts` counts every attempt, the first one included (gRPC's and urllib3's meaning), so
/// `attempts: 1` never retries.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first one included; less than 1 acts as 1.
    public var attempts: Int
    /// The delay before each retry, before jitter.
    public var backoff: Backoff
    /// How the delay is randomised.
    public var jitter: Jitter
    /// Which outcomes are retried.
    public var retryOn: RetryConditions

    /// A policy; `jitter` is none unless given.
    public init(attempts: Int, backoff: Backoff, jitter: Jitter = .none, retryOn: RetryConditions) {
        self.attempts = attempts
        self.backoff = backoff
        self.jitter = jitter
        self.retryOn = retryOn
    }

    /// A policy that never retries.
    public static let never = RetryPolicy(attempts: 1, backoff: Backoff(.none), retryOn: RetryConditions())

    /// The verdict after a failed attempt.
    enum Decision: Sendable, Hashable {
        /// Retry after this delay.
        case retry(after: Duration)
        /// The outcome is not in `retryOn`.
        case notRetryable
        /// `attempts` attempts have been made.
        case attemptsExhausted
    }

    /// Whether to retry after the `attempt`-th attempt (1-based) ended with `outcome`.
    ///
    /// - Parameters:
    ///   - retryAfter: the response's `Retry-After`, already converted to a delay; it wins over
    ///     the computed backoff, is floored at zero and capped at `backoff.max`.
    ///   - previousDelay: the delay used before the previous retry, for decorrelated jitter.
    func decide(
        afterAttempt attempt: Int, outcome: AttemptOutcome, retryAfter: Duration? = nil, previousDelay: Duration? = nil,
        using random: inout some RandomNumberGenerator
    ) -> Decision {
        let retryable: Bool
        switch outcome {
        case .status(let status): retryable = retryOn.matches(status: status)
        case .error(let kind): retryable = retryOn.matches(kind)
        }
        guard retryable else { return .notRetryable }
        guard attempt < attempts else { return .attemptsExhausted }
        if let retryAfter {
            return .retry(after: Swift.min(Swift.max(retryAfter, .zero), backoff.max))
        }
        let base = backoff.baseDelay(beforeRetry: attempt)
        return .retry(after: jitter.apply(to: base, previous: previousDelay, backoff: backoff, using: &random))
    }
}

/// A run-wide cap on retries (Finagle's and Envoy's retry budgets): a retry is allowed while
/// `retries < ratio · calls + minimum`, so a broken server is not hammered by retry storms and
/// a small run can still retry.
public struct RetryBudgetPolicy: Sendable, Hashable {
    /// Retries allowed per logical call, such as 0.2 for 20%.
    public var ratio: Double
    /// Retries always allowed, whatever the number of calls.
    public var minimum: Int

    /// A budget of `ratio` retries per call, plus `minimum` always allowed.
    public init(ratio: Double, minimum: Int = 10) {
        self.ratio = ratio
        self.minimum = minimum
    }
}
