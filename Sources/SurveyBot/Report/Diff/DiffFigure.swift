import SurveyEngine
import SurveyMetrics

/// One figure of one run as `diff` sees it: the value, how many samples it rests on, the
/// interval it lies in at the diff's confidence, and the evidence a test of its change reads.
struct DiffFigure {
    enum Evidence {
        /// A proportion: `part` of `whole` (calls that succeeded of calls, failed attempts of
        /// attempts, retries of attempts, completed respondents of those started).
        case proportion(part: Int, whole: Int)
        /// A percentile (0–1) of a latency histogram.
        case percentile(Double, Histogram)
        /// A mean with its standard error, in the figure's unit.
        case mean(standardError: Double)
        /// A figure without an interval: an extreme value (max, min) or a throughput.
        case none
    }

    var value: Double
    /// The samples behind the value: trials of a proportion, values of a latency.
    var samples: Int
    /// Where the value lies at the diff's confidence; nil when there is none, or too few samples.
    var interval: ClosedRange<Double>?
    var evidence: Evidence

    /// A proportion with its Wilson interval; `transform` maps the proportion to the figure
    /// shown (retries of attempts → retries per call).
    static func proportion(part: Int, whole: Int, confidence: Double, transform: (Double) -> Double = { $0 }) -> DiffFigure {
        // A hand-edited report may claim more successes than calls: keep the proportion a proportion.
        let whole = Swift.max(0, whole)
        let part = Swift.min(Swift.max(0, part), whole)
        let wilson = DiffStatistics.wilson(part: part, whole: whole, confidence: confidence)
        return DiffFigure(
            value: transform(Double(part) / Double(whole)), samples: whole,
            interval: transform(wilson.lowerBound)...transform(wilson.upperBound),
            evidence: .proportion(part: part, whole: whole))
    }

    /// A percentile of a latency histogram, in milliseconds, with the interval of its rank
    /// mapped through the buckets; `value` is the report's own figure.
    static func percentile(_ quantile: Double, value: Double, histogram: Histogram, confidence: Double) -> DiffFigure {
        let count = Int(clamping: histogram.count)
        let ranks = DiffStatistics.quantileRanks(count: count, quantile: quantile, confidence: confidence)
        var interval: ClosedRange<Double>?
        if ranks.lower >= 1 && ranks.upper <= count {
            let lower = histogram.bounds(ofRank: ranks.lower).lowerBound / 1_000_000
            let upper = histogram.bounds(ofRank: ranks.upper).upperBound / 1_000_000
            interval = Swift.min(lower, value)...Swift.max(upper, value)
        }
        return DiffFigure(value: value, samples: count, interval: interval, evidence: .percentile(quantile, histogram))
    }

    /// A histogram's mean in milliseconds, ± z standard errors, the variance read from the buckets.
    static func mean(value: Double, histogram: Histogram, confidence: Double) -> DiffFigure {
        let count = Int(clamping: histogram.count)
        let standardError = count > 1 ? (histogram.variance / Double(count)).squareRoot() / 1_000_000 : 0
        let half = DiffStatistics.z(confidence: confidence) * standardError
        let interval = count >= DiffStatistics.minimumMeanSamples ? Swift.max(0, value - half)...(value + half) : nil
        return DiffFigure(value: value, samples: count, interval: interval, evidence: .mean(standardError: standardError))
    }

    /// The fewest samples each run needs before a change of this figure can be judged; nil for
    /// a figure without a test.
    func minimumSamples(confidence: Double) -> Int? {
        switch evidence {
        case .proportion: DiffStatistics.minimumTrials(confidence: confidence)
        case .percentile(let quantile, _): DiffStatistics.minimumSamples(quantile: quantile, confidence: confidence)
        case .mean: DiffStatistics.minimumMeanSamples
        case .none: nil
        }
    }

    /// The two-sided p-value of the change from `base` to `new`: the two-proportion test, the
    /// quantile test, or the test of two means; nil for figures without a test.
    static func pValue(_ base: DiffFigure, _ new: DiffFigure) -> Double? {
        switch (base.evidence, new.evidence) {
        case (.proportion(let part1, let whole1), .proportion(let part2, let whole2)):
            return DiffStatistics.twoProportionP(part1: part1, whole1: whole1, part2: part2, whole2: whole2)
        case (.percentile(let quantile, let before), .percentile(_, let after)):
            return quantileP(quantile, before, after)
        case (.mean(let error1), .mean(let error2)):
            return DiffStatistics.meanP(mean1: base.value, standardError1: error1, mean2: new.value, standardError2: error2)
        default:
            return nil
        }
    }

    /// The quantile test (Mood's median test, at any quantile): split both runs at the bucket
    /// holding the quantile of the two together, and compare the fractions below the split
    /// with the two-proportion test. A shift of that percentile moves the fractions; whatever
    /// the distribution, the test holds its level when nothing moved. Values in the bucket at
    /// the split go to whichever side brings the pooled fraction nearer the quantile.
    private static func quantileP(_ quantile: Double, _ before: Histogram, _ after: Histogram) -> Double {
        var pooled = before
        pooled.merge(after)
        let split = pooled.bucketLower(atQuantile: quantile)
        let a = before.counts(below: split)
        let b = after.counts(below: split)
        let total = Double(pooled.count)
        let strictly = Double(a.below + b.below) / total
        let inclusive = Double(a.below + a.at + b.below + b.at) / total
        let includeTies = abs(inclusive - quantile) < abs(strictly - quantile)
        let part1 = a.below + (includeTies ? a.at : 0)
        let part2 = b.below + (includeTies ? b.at : 0)
        return DiffStatistics.twoProportionP(
            part1: part1, whole1: Int(clamping: before.count), part2: part2, whole2: Int(clamping: after.count))
    }
}
