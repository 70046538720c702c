/// How long to wait before each retry, before jitter.
///
/// `initial` is the first retry's delay; every delay is capped at `max`. Counting retries
/// from 1, the n-th retry waits as its `strategy` says.
public struct Backoff: Sendable, Hashable {
    /// How the delay grows with the retry number. The raw values are the plan's words.
    public enum Strategy: String, Sendable, Hashable, CaseIterable {
        /// No delay: retry at once.
        case none
        /// `initial` before every retry.
        case constant
        /// `initial · n` before the n-th retry.
        case linear
        /// `initial · multiplier^(n-1)` before the n-th retry.
        case exponential
    }

    /// How the delay grows from one retry to the next.
    public var strategy: Strategy
    /// The first retry's delay, and the lower bound of decorrelated jitter.
    public var initial: Duration
    /// The cap on every delay, jittered or taken from `Retry-After`: a retry never waits longer.
    public var max: Duration
    /// The exponential strategy's factor from one retry to the next; the others ignore it. A
    /// delay that overflows, even to infinity, is capped at `max`.
    public var multiplier: Double

    /// A backoff of `strategy`: 200 ms at first, at most 10 s, doubling, unless given.
    public init(_ strategy: Strategy, initial: Duration = .milliseconds(200), max: Duration = .seconds(10), multiplier: Double = 2) {
        self.strategy = strategy
        self.initial = initial
        self.max = max
        self.multiplier = multiplier
    }

    /// The delay before the `retry`-th retry (1 for the first retry), capped at `max`.
    func baseDelay(beforeRetry retry: Int) -> Duration {
        let n = Swift.max(1, retry)
        let seconds: Double
        switch strategy {
        case .none: return .zero
        case .constant: seconds = initial.seconds
        case .linear: seconds = initial.seconds * Double(n)
        case .exponential: seconds = initial.seconds * pow(multiplier, n - 1)
        }
        return Self.clamp(seconds, to: max)
    }

    /// Seconds as a duration, capped at `limit`; infinities and NaN from huge exponents cap too.
    static func clamp(_ seconds: Double, to limit: Duration) -> Duration {
        guard seconds.isFinite, seconds < limit.seconds else { return limit }
        return .nanoseconds(Int64(Swift.max(0, seconds) * 1e9))
    }
}

/// `base^exponent` for a small non-negative integer exponent, without Foundation.
private func pow(_ base: Double, _ exponent: Int) -> Double {
    var result = 1.0
    var i = 0
    while i < exponent && result.isFinite {
        result *= base
        i += 1
    }
    return result
}
