/// A `Histogram` that keeps only its non-empty buckets, sorted: the histogram of one interval of
/// a timeline. An interval sees a few dozen distinct buckets, not 2,304, so a run's hundreds of
/// intervals cost kilobytes where dense histograms would cost megabytes. Same buckets as
/// `Histogram`, so the two merge exactly.
public struct SparseHistogram: Sendable, Hashable {
    /// The non-empty buckets' indices (`Histogram.index(of:)`), ascending.
    private var indices: [UInt16] = []
    /// The count of each bucket in `indices`.
    private var counts: [UInt64] = []
    /// Values recorded.
    public private(set) var count: UInt64 = 0
    /// Sum of every value, in nanoseconds.
    public private(set) var sum: Double = 0
    /// The smallest value recorded in nanoseconds, exact; 0 when empty.
    public private(set) var min: UInt64 = 0
    /// The largest value recorded in nanoseconds, exact; 0 when empty.
    public private(set) var max: UInt64 = 0

    /// An empty histogram; it allocates nothing until its first value.
    public init() {}

    /// Whether nothing was recorded.
    public var isEmpty: Bool { count == 0 }

    /// Where bucket `index` is in `indices`, or where it would go.
    @inline(__always)
    private func position(of index: UInt16) -> Int {
        var low = 0
        var high = indices.count
        while low < high {
            let middle = (low + high) / 2
            if indices[middle] < index { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Adds `amount` to bucket `index`.
    private mutating func add(_ amount: UInt64, toBucket index: UInt16) {
        let at = position(of: index)
        if at < indices.count && indices[at] == index {
            counts[at] &+= amount
        } else {
            indices.insert(index, at: at)
            counts.insert(amount, at: at)
        }
    }

    /// Records one value in nanoseconds.
    mutating func record(_ nanoseconds: UInt64) {
        add(1, toBucket: UInt16(Histogram.index(of: nanoseconds)))
        if count == 0 || nanoseconds < min { min = nanoseconds }
        if nanoseconds > max { max = nanoseconds }
        count &+= 1
        sum += Double(nanoseconds)
    }

    /// Adds every count of `other` (exact).
    public mutating func merge(_ other: SparseHistogram) {
        guard !other.isEmpty else { return }
        if isEmpty {
            self = other
            return
        }
        for (index, amount) in zip(other.indices, other.counts) { add(amount, toBucket: index) }
        if other.min < min { min = other.min }
        if other.max > max { max = other.max }
        count &+= other.count
        sum += other.sum
    }

    /// The non-empty buckets as (index, count), in index order: the compact form reports keep.
    public var sparseBuckets: [(index: Int, count: UInt64)] {
        zip(indices, counts).map { (Int($0), $1) }
    }

    /// The same histogram in dense form, for percentiles.
    public var histogram: Histogram {
        Histogram(sparseBuckets: sparseBuckets, sum: sum, min: min, max: max) ?? Histogram()
    }

    /// Rebuilds one from `histogram`.
    public init(_ histogram: Histogram) {
        for (index, amount) in histogram.sparseBuckets {
            indices.append(UInt16(index))
            counts.append(amount)
        }
        count = histogram.count
        sum = histogram.sum
        min = histogram.min
        max = histogram.max
    }
}
