/// The latency histogram of one interval of a timeline: only its non-empty buckets, at a
/// quarter of `Histogram`'s resolution. A run keeps hundreds of intervals per step and per
/// lane, each seeing a few hundred of `Histogram`'s 2,304 buckets; grouped in fours they are a
/// few dozen, one word each.
///
/// A group is four neighbouring buckets of `Histogram` (index ÷ 4): four nanoseconds below
/// 128 ns, then 16 groups per power of two — 64 and 128 are multiples of four, so no group
/// straddles a power of two. In the dense form and in reports a group's count stands in its
/// third bucket (`bucket(ofGroup:)`), whose midpoint is nearest the group's, so a percentile
/// read from an interval is within 4% of the true value (a `Histogram`'s within 0.8%), and the
/// form reads back to the same groups. Counts add group by group: merges stay exact.
public struct SparseHistogram: Sendable, Hashable {
    /// `Histogram`'s buckets per group.
    static let groupSize = 4
    /// The bits of an entry that hold its count; the group is above them.
    private static let countBits: UInt64 = 48
    private static let countMask: UInt64 = (1 << countBits) - 1

    /// Each non-empty group as `group << 48 | count`, ascending by group. A count saturates at
    /// 2^48 − 1 (2.8 × 10^14 attempts in one interval); `count` stays exact.
    private var entries: [UInt64] = []
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

    /// The bucket of `Histogram` that holds group `group`'s count in the dense form.
    static func bucket(ofGroup group: Int) -> Int { group * groupSize + 2 }

    private static func group(of entry: UInt64) -> UInt64 { entry >> countBits }

    private static func adding(_ amount: UInt64, to entry: UInt64) -> UInt64 {
        let sum = (entry & countMask).addingReportingOverflow(amount)
        return (entry & ~countMask) | (sum.overflow ? countMask : Swift.min(sum.partialValue, countMask))
    }

    /// Where group `group` is in `entries`, or where it would go.
    @inline(__always)
    private func position(of group: UInt64) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if Self.group(of: entries[middle]) < group { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Adds `amount` to group `group`.
    private mutating func add(_ amount: UInt64, toGroup group: UInt64) {
        let at = position(of: group)
        if at < entries.count && Self.group(of: entries[at]) == group {
            entries[at] = Self.adding(amount, to: entries[at])
        } else {
            entries.insert(Self.adding(amount, to: group << Self.countBits), at: at)
        }
    }

    /// Records one value in nanoseconds.
    mutating func record(_ nanoseconds: UInt64) {
        add(1, toGroup: UInt64(Histogram.index(of: nanoseconds) / Self.groupSize))
        if count == 0 || nanoseconds < min { min = nanoseconds }
        if nanoseconds > max { max = nanoseconds }
        count &+= 1
        sum += Double(nanoseconds)
    }

    /// Adds every count of `other` (exact), in one pass over both, into storage of the size
    /// the union needs.
    public mutating func merge(_ other: SparseHistogram) {
        guard !other.isEmpty else { return }
        if isEmpty {
            self = other
            return
        }
        var union = entries.count + other.entries.count
        var (i, j) = (0, 0)
        while i < entries.count && j < other.entries.count {
            let (a, b) = (Self.group(of: entries[i]), Self.group(of: other.entries[j]))
            if a == b { union -= 1 }
            if a <= b { i += 1 }
            if b <= a { j += 1 }
        }
        var merged: [UInt64] = []
        merged.reserveCapacity(union)
        (i, j) = (0, 0)
        while i < entries.count || j < other.entries.count {
            let a = i < entries.count ? Self.group(of: entries[i]) : .max
            let b = j < other.entries.count ? Self.group(of: other.entries[j]) : .max
            if a == b {
                merged.append(Self.adding(other.entries[j] & Self.countMask, to: entries[i]))
                i += 1
                j += 1
            } else if a < b {
                merged.append(entries[i])
                i += 1
            } else {
                merged.append(other.entries[j])
                j += 1
            }
        }
        entries = merged
        if other.min < min { min = other.min }
        if other.max > max { max = other.max }
        count &+= other.count
        sum += other.sum
    }

    /// The non-empty groups as (index of the bucket that holds each, count), in index order:
    /// the compact form reports keep, in `Histogram`'s bucket indices.
    public var sparseBuckets: [(index: Int, count: UInt64)] {
        entries.map { (Self.bucket(ofGroup: Int(Self.group(of: $0))), $0 & Self.countMask) }
    }

    /// The same histogram in dense form, for percentiles.
    public var histogram: Histogram {
        Histogram(sparseBuckets: sparseBuckets, sum: sum, min: min, max: max) ?? Histogram()
    }

    /// Rebuilds one from `histogram`, each bucket's count in its group.
    public init(_ histogram: Histogram) {
        for (index, amount) in histogram.sparseBuckets {
            let group = UInt64(index / Self.groupSize)
            if let last = entries.last, Self.group(of: last) == group {
                entries[entries.count - 1] = Self.adding(amount, to: last)
            } else {
                entries.append(Self.adding(amount, to: group << Self.countBits))
            }
        }
        count = histogram.count
        sum = histogram.sum
        min = histogram.min
        max = histogram.max
    }
}
