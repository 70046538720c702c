import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyMetrics
@testable import SurveyWire

@Suite struct HistogramTests {
    /// Log-normal latencies from 10 µs to minutes, like a real run with a long tail.
    private func samples(_ count: Int, seed: UInt64) -> [UInt64] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let u1 = max(Double.ulpOfOne, Double(random.next() >> 11) * 0x1.0p-53)
            let u2 = Double(random.next() >> 11) * 0x1.0p-53
            let normal = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
            return UInt64(exp(14 + 2.5 * normal))  // median ≈ 1.2 ms
        }
    }

    @Test(arguments: [1, 2, 3])
    func percentilesAreWithinOnePercent(seed: UInt64) {
        let values = samples(100_000, seed: seed)
        var histogram = Histogram()
        for value in values { histogram.record(value) }
        let sorted = values.sorted()
        for percentile in [1.0, 10, 50, 90, 95, 99, 99.9, 99.99] {
            let rank = max(1, Int((percentile / 100 * Double(sorted.count)).rounded(.up)))
            let exact = Double(sorted[rank - 1])
            let estimate = Double(histogram.value(atPercentile: percentile))
            #expect(abs(estimate - exact) / exact <= 0.01, "p\(percentile): \(estimate) vs \(exact)")
        }
        #expect(histogram.min == sorted.first && histogram.max == sorted.last)
        #expect(histogram.count == 100_000)
    }

    @Test func mergeOfPartsIsTheWhole() {
        let values = samples(30_000, seed: 9)
        var whole = Histogram()
        var parts = [Histogram(), Histogram(), Histogram()]
        for (index, value) in values.enumerated() {
            whole.record(value)
            parts[index % 3].record(value)
        }
        var merged = Histogram()
        for part in parts { merged.merge(part) }
        #expect(merged.sparseBuckets.map(\.count) == whole.sparseBuckets.map(\.count))
        #expect(merged.sparseBuckets.map(\.index) == whole.sparseBuckets.map(\.index))
        #expect(merged.min == whole.min && merged.max == whole.max && merged.count == whole.count)
        #expect(abs(merged.sum - whole.sum) <= whole.sum * 1e-12)
    }

    @Test func compactFormRoundTrips() {
        var histogram = Histogram()
        for value in samples(5_000, seed: 4) { histogram.record(value) }
        let rebuilt = Histogram(sparseBuckets: histogram.sparseBuckets, sum: histogram.sum, min: histogram.min, max: histogram.max)
        #expect(rebuilt == histogram)
        #expect(Histogram(sparseBuckets: [(index: Histogram.bucketCount, count: 1)], sum: 1, min: 1, max: 1) == nil)
    }

    @Test func bucketsAreContiguousAndOrdered() {
        var previousEnd: UInt64 = 0
        for index in 0..<Histogram.bucketCount {
            let (lower, width) = Histogram.range(of: index)
            #expect(lower == previousEnd)
            #expect(Histogram.index(of: lower) == index && Histogram.index(of: lower + width - 1) == index)
            previousEnd = lower + width
        }
        // Ten minutes still fits below the top bucket.
        #expect(Histogram.index(of: 600_000_000_000) < Histogram.bucketCount - 1)
    }
}
