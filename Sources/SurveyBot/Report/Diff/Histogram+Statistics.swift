import SurveyEngine
import SurveyMetrics

/// What `diff` reads from a latency histogram beyond its percentiles: where a given rank lies,
/// the variance, and how many values fall below a boundary.
extension Histogram {
    /// The values, in nanoseconds, between which the `rank`-th smallest value (1-based) lies:
    /// the bounds of its bucket, kept within [min, max]. A bucket is at most 1/64 of its
    /// lower bound wide, so the bounds are that close.
    func bounds(ofRank rank: Int) -> ClosedRange<Double> {
        var seen = 0
        for bucket in buckets {
            seen = seen.addingSaturated(bucket.count)
            if seen >= rank {
                let lower = Swift.max(bucket.lower, min)
                let upper = Swift.min(bucket.lower + bucket.width - 1, max)
                return Double(lower)...Double(Swift.max(lower, upper))
            }
        }
        return Double(max)...Double(max)
    }

    /// The sample variance in ns², each value taken at its bucket's representative value and
    /// compared with the exact mean; 0 with fewer than two values.
    var variance: Double {
        guard count > 1 else { return 0 }
        let mean = self.mean
        var squares = 0.0
        for bucket in buckets {
            let distance = Double(representative(of: bucket)) - mean
            squares += Double(bucket.count) * distance * distance
        }
        return squares / Double(count - 1)
    }

    /// How many values lie in buckets that start below `lower` (ns), and how many in the bucket
    /// that starts at it.
    func counts(below lower: UInt64) -> (below: Int, at: Int) {
        var below = 0
        var at = 0
        for bucket in buckets {
            if bucket.lower < lower {
                below = below.addingSaturated(bucket.count)
            } else if bucket.lower == lower {
                at = Int(clamping: bucket.count)
            } else {
                break
            }
        }
        return (below, at)
    }

    /// The lowest value of the bucket holding the `quantile` (0–1) of the values: where the
    /// quantile test splits the samples.
    func bucketLower(atQuantile quantile: Double) -> UInt64 {
        let rank = DiffStatistics.clamped((quantile * Double(count)).rounded(.up), to: 1...Int.max)
        var seen = 0
        for bucket in buckets {
            seen = seen.addingSaturated(bucket.count)
            if seen >= rank { return bucket.lower }
        }
        return buckets.last?.lower ?? 0
    }
}

extension Int {
    /// `self + count`, stopping at `Int.max`: a hand-edited report's counts must not trap.
    fileprivate func addingSaturated(_ count: UInt64) -> Int {
        let (sum, overflow) = addingReportingOverflow(Int(clamping: count))
        return overflow ? Int.max : sum
    }
}
