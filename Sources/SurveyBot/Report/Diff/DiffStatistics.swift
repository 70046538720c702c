import Foundation

/// The statistics behind `diff`, each a pure function of counts: confidence intervals of a
/// percentile (order statistics), a proportion (Wilson) and a mean (standard error); tests of
/// a change in each; and Holm's correction for testing every figure of a diff at once.
/// docs/diff.md explains them to a user.
enum DiffStatistics {
    /// Above this many samples the binomial distribution of a percentile's rank is taken as
    /// normal; at or below it, it is summed exactly.
    static let exactRankLimit = 10_000

    // MARK: The normal distribution

    /// Φ(x), the standard normal distribution function.
    static func normalCDF(_ x: Double) -> Double {
        0.5 * erfc(-x / 2.0.squareRoot())
    }

    /// The two-sided p-value of a standard normal statistic: P(|Z| ≥ |z|).
    static func twoSidedP(_ z: Double) -> Double {
        Swift.min(1, erfc(abs(z) / 2.0.squareRoot()))
    }

    /// Φ⁻¹(p) for 0 < p < 1: Acklam's rational approximation, refined by one Halley step
    /// (relative error below 1e-12).
    static func normalQuantile(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "a probability strictly between 0 and 1")
        let a = [
            -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01,
            2.506628277459239e+00,
        ]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01]
        let c = [
            -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00,
            2.938163982698783e+00,
        ]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let low = 0.02425
        var x: Double
        if p < low || p > 1 - low {
            let q = (-2 * log(p < low ? p : 1 - p)).squareRoot()
            x =
                (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
            if p > 1 - low { x = -x }
        } else {
            let q = p - 0.5
            let r = q * q
            x =
                (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        }
        let e = normalCDF(x) - p
        let u = e * (2 * Double.pi).squareRoot() * exp(x * x / 2)
        return x - u / (1 + x * u / 2)
    }

    /// The z of a two-sided interval at `confidence`: 1.96 at 95%.
    static func z(confidence: Double) -> Double {
        normalQuantile(1 - (1 - confidence) / 2)
    }

    // MARK: Percentiles

    /// The ranks of the order statistics that bound a confidence interval of a quantile.
    struct RankInterval: Equatable, Sendable {
        /// 1-based; 0 when the interval is unbounded below (too few samples).
        var lower: Int
        /// 1-based; `count + 1` when the interval is unbounded above (too few samples).
        var upper: Int
    }

    /// The confidence interval of the `quantile` (0–1) of `count` samples, as ranks: the
    /// number of samples below the true quantile is Binomial(count, quantile), so the interval
    /// from the `lower`-th to the `upper`-th smallest sample holds it with probability at least
    /// `confidence`, with at most half the rest in each tail. Summed exactly up to
    /// `exactRankLimit` samples, from the normal approximation (continuity corrected) above.
    static func quantileRanks(count: Int, quantile: Double, confidence: Double) -> RankInterval {
        let tail = (1 - confidence) / 2
        guard count > exactRankLimit else { return exactQuantileRanks(count: count, quantile: quantile, tail: tail) }
        let n = Double(count)
        let mean = n * quantile
        let spread = z(confidence: confidence) * (mean * (1 - quantile)).squareRoot()
        let lower = clamped((mean - spread + 0.5).rounded(.down), to: 0...count)
        let upper = clamped((mean + spread + 0.5).rounded(.up), to: 1...(count == Int.max ? count : count + 1))
        return RankInterval(lower: lower, upper: upper)
    }

    private static func exactQuantileRanks(count n: Int, quantile q: Double, tail: Double) -> RankInterval {
        // P(B = k) in log space, for B ~ Binomial(n, q): exact where q^n underflows.
        let logQ = log(q)
        let logNotQ = log1p(-q)
        var logFactorial = [0.0]
        logFactorial.reserveCapacity(n + 1)
        for k in stride(from: 1, through: n, by: 1) { logFactorial.append(logFactorial[k - 1] + log(Double(k))) }
        func probability(_ k: Int) -> Double {
            exp(logFactorial[n] - logFactorial[k] - logFactorial[n - k] + Double(k) * logQ + Double(n - k) * logNotQ)
        }
        // Sums of binomial terms carry rounding: a tail equal to the limit must count as within it.
        let limit = tail * (1 + 1e-9)
        var lower = 0
        var below = 0.0  // P(B ≤ k) = P(B < lower) for lower = k + 1
        for k in 0...n {
            below += probability(k)
            guard below <= limit else { break }
            lower = k + 1
        }
        var upper = n + 1
        var above = 0.0  // P(B ≥ k)
        for k in stride(from: n, through: 0, by: -1) {
            above += probability(k)
            guard above <= limit else { break }
            upper = k
        }
        return RankInterval(lower: lower, upper: upper)
    }

    /// The fewest samples whose confidence interval of `quantile` is bounded on both sides:
    /// with fewer, even the smallest or largest sample may lie on the wrong side of the true
    /// quantile with probability above (1 − confidence) / 2. p99 at 95% needs 368.
    static func minimumSamples(quantile: Double, confidence: Double) -> Int {
        let tail = (1 - confidence) / 2
        let likelier = Swift.max(quantile, 1 - quantile)
        guard likelier < 1 else { return Int.max }
        var n = Swift.max(1, Int((log(tail) / log(likelier)).rounded(.up)) - 1)
        while pow(likelier, Double(n)) > tail * (1 + 1e-9) { n += 1 }
        return n
    }

    /// `value` as an integer within `range`, whatever its size (no trap beyond `Int.max`).
    static func clamped(_ value: Double, to range: ClosedRange<Int>) -> Int {
        if !(value > Double(range.lowerBound)) { return range.lowerBound }
        if value >= Double(range.upperBound) { return range.upperBound }
        return Int(value)
    }

    // MARK: Proportions

    /// The Wilson score interval of `part` out of `whole` at `confidence`: unlike the plain
    /// p ± z·√(p(1−p)/n), it stays inside 0…1 and is not zero-width at 0% or 100%.
    static func wilson(part: Int, whole: Int, confidence: Double) -> ClosedRange<Double> {
        guard whole > 0 else { return 0...1 }
        let n = Double(whole)
        let p = Double(part) / n
        let z = z(confidence: confidence)
        let z2 = z * z
        let denominator = 1 + z2 / n
        let center = (p + z2 / (2 * n)) / denominator
        let half = z * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot() / denominator
        let lower = part == 0 ? 0 : Swift.max(0, center - half)
        let upper = part == whole ? 1 : Swift.min(1, center + half)
        return lower...upper
    }

    /// The two-sided p-value of the pooled two-proportion z-test of `part1/whole1` against
    /// `part2/whole2`, with Yates' continuity correction (which keeps it honest on small counts,
    /// close to Fisher's exact test). 1 when either whole is empty or the pooled rate is 0 or 1.
    static func twoProportionP(part1: Int, whole1: Int, part2: Int, whole2: Int) -> Double {
        guard whole1 > 0, whole2 > 0 else { return 1 }
        let n1 = Double(whole1)
        let n2 = Double(whole2)
        let pooled = Double(part1 + part2) / (n1 + n2)
        guard pooled > 0, pooled < 1 else { return 1 }
        let spread = (pooled * (1 - pooled) * (1 / n1 + 1 / n2)).squareRoot()
        let difference = Swift.max(0, abs(Double(part1) / n1 - Double(part2) / n2) - 0.5 * (1 / n1 + 1 / n2))
        return twoSidedP(difference / spread)
    }

    /// The fewest trials per run with which a proportion's change can be significant at all:
    /// none of n against all of n must give a p-value of at most 1 − confidence.
    static func minimumTrials(confidence: Double) -> Int {
        var n = 1
        while n < 10_000 && twoProportionP(part1: 0, whole1: n, part2: n, whole2: n) > 1 - confidence { n += 1 }
        return n
    }

    // MARK: Means

    /// The fewest values whose mean is taken as normal (the usual rule for the central limit
    /// theorem; latencies are skewed, so no fewer).
    static let minimumMeanSamples = 30

    /// The two-sided p-value of the z-test of two means with their standard errors (Welch's
    /// test with large samples).
    static func meanP(mean1: Double, standardError1: Double, mean2: Double, standardError2: Double) -> Double {
        let spread = (standardError1 * standardError1 + standardError2 * standardError2).squareRoot()
        guard spread > 0 else { return mean1 == mean2 ? 1 : 0 }
        return twoSidedP((mean2 - mean1) / spread)
    }

    // MARK: Many figures at once

    /// Holm's step-down adjustment: each p-value made comparable with the family's α, so that
    /// the chance of any false finding among all of them stays at most α. In the order given.
    static func holm(_ pValues: [Double]) -> [Double] {
        let pValues = pValues.map { $0.isNaN ? 1 : $0 }
        let order = pValues.indices.sorted { pValues[$0] < pValues[$1] }
        var adjusted = pValues
        var running = 0.0
        for (step, index) in order.enumerated() {
            running = Swift.max(running, Swift.min(1, Double(pValues.count - step) * pValues[index]))
            adjusted[index] = running
        }
        return adjusted
    }
}
