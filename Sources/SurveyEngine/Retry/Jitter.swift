/// Randomisation of backoff delays, so that many respondents failing together do not retry in
/// lock-step. The definitions are those of AWS's "Exponential Backoff and Jitter", with `v`
/// the backoff's delay for this retry and `U(a, b)` a uniform draw in [a, b] to the
/// nanosecond. The raw values are the plan's words.
public enum Jitter: String, Sendable, Hashable, CaseIterable {
    /// The base delay `v`, unchanged.
    case none
    /// `U(0, v)`: the widest spread.
    case full
    /// `v/2 + U(0, v/2)`: never less than half the base delay.
    case equal
    /// `min(max, U(initial, previous · 3))`, where `previous` is the delay used before the
    /// previous retry (`initial` before the first). Ignores the strategy's growth, except that
    /// a `none` strategy still means no delay.
    case decorrelated

    /// The delay to wait, given the base delay for this retry and the previous delay.
    func apply(to base: Duration, previous: Duration?, backoff: Backoff, using random: inout some RandomNumberGenerator) -> Duration {
        switch self {
        case .none:
            return base
        case .full:
            return Self.uniform(0, base.nanoseconds, using: &random)
        case .equal:
            let half = base.nanoseconds / 2
            return .nanoseconds(half) + Self.uniform(0, base.nanoseconds - half, using: &random)
        case .decorrelated:
            guard backoff.strategy != .none else { return .zero }
            let low = backoff.initial.nanoseconds
            let previous = (previous ?? backoff.initial).nanoseconds
            let (tripled, overflow) = previous.multipliedReportingOverflow(by: 3)
            let high = overflow ? Int64.max : Swift.max(low, tripled)
            return Swift.min(backoff.max, Self.uniform(low, high, using: &random))
        }
    }

    private static func uniform(_ low: Int64, _ high: Int64, using random: inout some RandomNumberGenerator) -> Duration {
        guard high > low else { return .nanoseconds(low) }
        return .nanoseconds(Int64.random(in: low...high, using: &random))
    }
}
