import SurveyWire

#if canImport(Glibc)
    import Glibc
#endif

/// How long a respondent pauses before each submit: a draw from one of four distributions,
/// taken from the respondent's own seeded stream, so that a seed repeats every pause.
///
/// Every draw is a whole number of nanoseconds, never negative, and at most `Int64.max`
/// nanoseconds; a stop or the run's duration cuts a pause short.
public enum ThinkTime: Sendable, Hashable, CustomStringConvertible {
    /// Uniform over the range, both bounds included (`200ms..1s`); a single value is fixed.
    case uniform(DurationRange)
    /// Normal with this mean and standard deviation, truncated at 0: a negative draw is drawn
    /// again, so no pause is negative and none piles up at exactly 0 (`normal(500ms, 100ms)`).
    /// The plan checks that both are at least 0.
    case normal(mean: Duration, deviation: Duration)
    /// Exponential with this mean (`exponential(500ms)`): memoryless pauses, as between the
    /// arrivals of a Poisson process. The plan checks that the mean is at least 0.
    case exponential(mean: Duration)
    /// Log-normal, given by its median and 90th percentile (`lognormal(500ms, 2s)`): most pauses
    /// short, a few long, as people read. The plan checks that `0 < median <= p90`.
    case lognormal(median: Duration, p90: Duration)

    /// No pause at all: the default.
    public static let zero = ThinkTime.uniform(.zero)

    /// Whether every draw is zero.
    public var isZero: Bool {
        switch self {
        case .uniform(let range): range.isZero
        case .normal(let mean, let deviation): mean <= .zero && deviation <= .zero
        case .exponential(let mean): mean <= .zero
        case .lognormal(let median, _): median <= .zero
        }
    }

    /// The plan-file spelling: `200ms..1s`, `normal(500ms, 100ms)`, `exponential(500ms)`,
    /// `lognormal(500ms, 2s)`.
    public var description: String {
        switch self {
        case .uniform(let range): range.description
        case .normal(let mean, let deviation): "normal(\(mean.compactDescription), \(deviation.compactDescription))"
        case .exponential(let mean): "exponential(\(mean.compactDescription))"
        case .lognormal(let median, let p90): "lognormal(\(median.compactDescription), \(p90.compactDescription))"
        }
    }

    /// The standard normal's 90th percentile: a log-normal's σ is ln(p90 / median) / z₉₀.
    static let z90 = 1.2815515655446004

    /// One draw, from `random`.
    package func sample(using random: inout SplitMix64) -> Duration {
        switch self {
        case .uniform(let range):
            // The same draw as before distributions existed: a seed repeats older runs' pauses.
            return range.sample(using: &random)
        case .normal(let mean, let deviation):
            let mu = Double(mean.nanoseconds)
            let sigma = Double(deviation.nanoseconds)
            guard sigma > 0 else { return mean }
            // Truncation by rejection: with mu >= 0 at least half the draws are kept, so 64
            // rejections in a row (odds below 2^-64) end in the one value left, 0.
            for _ in 0..<64 {
                let value = mu + sigma * Self.standardNormal(&random)
                if value >= 0 { return Self.nanoseconds(value) }
            }
            return .zero
        case .exponential(let mean):
            let mu = Double(mean.nanoseconds)
            guard mu > 0 else { return .zero }
            // 1 - u is in (0, 1]: the logarithm is finite.
            return Self.nanoseconds(-mu * log(1 - Self.unit(&random)))
        case .lognormal(let median, let p90):
            let m = Double(median.nanoseconds)
            guard m > 0 else { return .zero }
            let sigma = log(max(Double(p90.nanoseconds), m) / m) / Self.z90
            guard sigma > 0 else { return median }
            return Self.nanoseconds(m * exp(sigma * Self.standardNormal(&random)))
        }
    }

    /// A uniform number in [0, 1) from 53 random bits.
    static func unit(_ random: inout SplitMix64) -> Double {
        Double(random.next() >> 11) * 0x1.0p-53
    }

    /// A standard normal draw (Box–Muller, one of the pair).
    static func standardNormal(_ random: inout SplitMix64) -> Double {
        let u1 = 1 - unit(&random)  // (0, 1]
        let u2 = unit(&random)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// `value` nanoseconds as a duration, rounded down, within 0...Int64.max.
    static func nanoseconds(_ value: Double) -> Duration {
        guard value > 0 else { return .zero }
        guard value < 9.2e18 else { return .nanoseconds(Int64.max) }
        return .nanoseconds(Int64(value))
    }
}
