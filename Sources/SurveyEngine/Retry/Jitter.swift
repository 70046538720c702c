/// Randomisation of backoff delays, so that many respondents failing together do not retry in
/// lock-step. The definitions are those of AWS's "Exponential Backoff and Jitter":
/// - `none`: the base delay `v`.
/// - `full`: `U(0, v)`.
/// - `equal`: `v/2 + U(0, v/2)`.
/// - `decorrelated`: `min(max, U(initial, previous · 3))`, where `previous` is the delay used
///   before the previous retry (`initial` before the first).
public enum Jitter: String, Sendable, Hashable, CaseIterable {
    case none, full, equal, decorrelated

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
