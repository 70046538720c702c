/// A latency histogram with log-linear buckets (HdrHistogram's layout): exact below 128 ns,
/// then 64 equal buckets per power of two, so a bucket is at most 1/64 of its lower bound
/// wide and the midpoint reported for a percentile is within 1/128 (0.78%) of every value in it.
///
/// It covers 1 ns to about 36 minutes in 2,304 buckets of fixed memory; longer values land in the top bucket
/// (`max` stays exact). Two histograms merge bucket by bucket, exactly: the merge of the parts
/// of a run is the histogram of the whole run.
public struct Histogram: Sendable, Hashable {
    /// Linear buckets per power of two: 2^subBucketBits / 2 = 64.
    static let subBucketBits = 7
    static let subBucketCount = 1 << subBucketBits
    static let subBucketHalf = subBucketCount / 2
    /// Powers of two above the first linear range: up to 2^41 ns ≈ 36 min.
    static let magnitudes = 40 - subBucketBits + 1
    static let bucketCount = subBucketCount + magnitudes * subBucketHalf

    /// The count of each bucket; empty until the first value, so that a histogram never
    /// recorded into (the TLS handshakes of an http run) costs no memory.
    private(set) var counts: [UInt64] = []
    /// Values recorded.
    public private(set) var count: UInt64 = 0
    /// Sum of every value, in nanoseconds (for the exact mean).
    public private(set) var sum: Double = 0
    /// The smallest value recorded in nanoseconds, exact; 0 when empty.
    public private(set) var min: UInt64 = 0
    /// The largest value recorded in nanoseconds, exact even beyond the top bucket; 0 when empty.
    public private(set) var max: UInt64 = 0

    /// An empty histogram; its buckets are allocated with the first value, once.
    public init() {}

    /// Allocates the buckets, once.
    private mutating func allocate() {
        if counts.isEmpty { counts = Array(repeating: 0, count: Self.bucketCount) }
    }

    var isEmpty: Bool { count == 0 }

    /// The bucket a value (ns) falls in.
    static func index(of value: UInt64) -> Int {
        if value < UInt64(subBucketCount) { return Int(value) }
        let magnitude = (63 - value.leadingZeroBitCount) - (subBucketBits - 1)  // ≥ 1
        let index = subBucketCount + (magnitude - 1) * subBucketHalf + Int(value >> UInt64(magnitude)) - subBucketHalf
        return Swift.min(index, bucketCount - 1)
    }

    /// The lowest value of a bucket and its width.
    static func range(of index: Int) -> (lower: UInt64, width: UInt64) {
        if index < subBucketCount { return (UInt64(index), 1) }
        let magnitude = (index - subBucketCount) / subBucketHalf + 1
        let sub = (index - subBucketCount) % subBucketHalf + subBucketHalf
        return (UInt64(sub) << UInt64(magnitude), 1 << UInt64(magnitude))
    }

    /// Records one value in nanoseconds.
    @inline(__always)
    mutating func record(_ nanoseconds: UInt64) {
        allocate()
        counts[Self.index(of: nanoseconds)] &+= 1
        if count == 0 || nanoseconds < min { min = nanoseconds }
        if nanoseconds > max { max = nanoseconds }
        count &+= 1
        sum += Double(nanoseconds)
    }

    mutating func record(_ duration: Duration) {
        record(duration.clampedNanoseconds)
    }

    /// Adds every count of `other` (exact).
    public mutating func merge(_ other: Histogram) {
        guard other.count > 0 else { return }
        allocate()
        for index in other.counts.indices where other.counts[index] != 0 {
            counts[index] &+= other.counts[index]
        }
        if count == 0 || other.min < min { min = other.min }
        if other.max > max { max = other.max }
        count &+= other.count
        sum += other.sum
    }

    /// The mean in nanoseconds; 0 when empty.
    public var mean: Double { count == 0 ? 0 : sum / Double(count) }

    /// The value at `percentile` (0–100) in nanoseconds: the midpoint of the bucket holding the
    /// rank, kept within [min, max]. 0 when empty.
    public func value(atPercentile percentile: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        if percentile >= 100 { return max }
        if percentile <= 0 { return min }
        let rank = Swift.max(1, UInt64((percentile / 100 * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for index in counts.indices where counts[index] != 0 {
            seen &+= counts[index]
            if seen >= rank {
                let (lower, width) = Self.range(of: index)
                return representative(of: Bucket(lower: lower, width: width, count: counts[index]))
            }
        }
        return max
    }

    /// The non-empty buckets as (index, count), in index order: the compact form reports keep.
    public var sparseBuckets: [(index: Int, count: UInt64)] {
        counts.indices.compactMap { counts[$0] == 0 ? nil : ($0, counts[$0]) }
    }

    /// Rebuilds a histogram from its compact form, `sparseBuckets` with `sum`, `min` and `max`
    /// in nanoseconds. Nil when an index is outside the buckets, a count is zero, or, with
    /// counts present, `min > max` or `sum < 0`. Without counts, the other parts are ignored.
    public init?(sparseBuckets: [(index: Int, count: UInt64)], sum: Double, min: UInt64, max: UInt64) {
        self.init()
        for (index, bucketCount) in sparseBuckets {
            guard index >= 0, index < Self.bucketCount, bucketCount > 0 else { return nil }
            allocate()
            counts[index] &+= bucketCount
            count &+= bucketCount
        }
        guard count == 0 || (min <= max && sum >= 0) else { return nil }
        self.sum = count == 0 ? 0 : sum
        self.min = count == 0 ? 0 : min
        self.max = count == 0 ? 0 : max
    }

    /// One non-empty bucket: how many values fell in `lower ..< lower + width` nanoseconds.
    public struct Bucket: Sendable, Hashable {
        /// The bucket's lowest value, in nanoseconds.
        public var lower: UInt64
        /// How many nanoseconds the bucket spans.
        public var width: UInt64
        /// How many values were recorded in it.
        public var count: UInt64
    }

    /// The non-empty buckets, lowest first.
    public var buckets: [Bucket] {
        counts.indices.compactMap { index in
            guard counts[index] != 0 else { return nil }
            let (lower, width) = Self.range(of: index)
            return Bucket(lower: lower, width: width, count: counts[index])
        }
    }

    /// The value a bucket stands for in percentiles: its midpoint, kept within [min, max].
    public func representative(of bucket: Bucket) -> UInt64 {
        Swift.min(Swift.max(bucket.lower + (bucket.width - 1) / 2, min), max)
    }
}
