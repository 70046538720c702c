/// A closed range of durations, such as think time `200ms..1s`; a single value is `d..d`.
public struct DurationRange: Sendable, Hashable, CustomStringConvertible {
    // Reachable from the inlinable `sample`, which the walk's targets call for every think.
    @usableFromInline var lower: Duration
    @usableFromInline var upper: Duration

    /// The durations from `lower` to `upper`, both included.
    ///
    /// - Precondition: `lower <= upper`.
    public init(_ lower: Duration, _ upper: Duration) {
        precondition(lower <= upper, "DurationRange lower bound above upper bound")
        self.lower = lower
        self.upper = upper
    }

    /// The single duration `value`, as the range `value..value`.
    public init(fixed value: Duration) {
        self.init(value, value)
    }

    /// Zero and only zero: the default think time, no pause at all.
    public static let zero = DurationRange(fixed: .zero)

    /// Whether the upper bound is zero: for a think time, no pause at all.
    public var isZero: Bool { upper == .zero }

    /// A uniformly drawn duration in the range (the lower bound when the range is a point).
    @inlinable
    package func sample(using random: inout some RandomNumberGenerator) -> Duration {
        let lo = lower.nanoseconds
        let hi = upper.nanoseconds
        guard hi > lo else { return lower }
        return .nanoseconds(Int64.random(in: lo...hi, using: &random))
    }

    /// The duration a fraction `unit` (in [0, 1)) of the way from `lower` to `upper`: with a
    /// uniform `unit`, a uniform draw that a stateless seeded stream can repeat. A `unit`
    /// outside [0, 1] is clamped to it; the result is whole nanoseconds, rounded down.
    public func value(at unit: Double) -> Duration {
        let lo = lower.nanoseconds
        let hi = upper.nanoseconds
        guard hi > lo else { return lower }
        return .nanoseconds(lo + Int64(Double(hi - lo) * min(max(unit, 0), 1)))
    }

    /// The plan-file spelling: `250ms` for a single value, `200ms..1s` for a range.
    public var description: String {
        lower == upper ? lower.compactDescription : "\(lower.compactDescription)..\(upper.compactDescription)"
    }
}

extension Duration {
    /// Whole nanoseconds (truncated toward zero), saturating at `Int64.min` and `Int64.max` for
    /// durations too long to count that way.
    ///
    /// From `attoseconds`, in 64-bit arithmetic when it fits (any duration under 9.2 s: every
    /// latency and think time worth recording), not `components`, whose 128-bit multiplications
    /// and divisions were 4% of the instructions of a run's every attempt.
    @inlinable
    package var nanoseconds: Int64 {
        let attoseconds = self.attoseconds
        if let small = Int64(exactly: attoseconds) { return small / 1_000_000_000 }
        let whole = attoseconds / 1_000_000_000
        return whole > Int128(Int64.max) ? .max : whole < Int128(Int64.min) ? .min : Int64(whole)
    }

    /// The duration in (fractional) seconds.
    public var seconds: Double {
        let (s, a) = components
        return Double(s) + Double(a) / 1e18
    }

    /// The duration in (fractional) milliseconds, the unit of every latency in reports.
    public var milliseconds: Double { seconds * 1000 }

    /// The plan-file spelling: `250ms`, `5s`, `1m30s`, `1h`, `1.5ms`, `0s`.
    public var compactDescription: String {
        let ns = nanoseconds
        if ns == 0 { return "0s" }
        if ns % 1_000_000_000 == 0 {
            var s = ns / 1_000_000_000
            var text = ""
            if s >= 3600 {
                text += "\(s / 3600)h"
                s %= 3600
            }
            if s >= 60 {
                text += "\(s / 60)m"
                s %= 60
            }
            if s > 0 { text += "\(s)s" }
            return text
        }
        if ns % 1_000_000 == 0 { return "\(ns / 1_000_000)ms" }
        if ns % 1_000 == 0 { return "\(ns / 1_000)us" }
        return "\(ns)ns"
    }
}
