import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyMetrics

/// The statistics of `diff` against values worked out independently (textbook tables and SciPy's
/// `binom`, `norm` and `chi2_contingency`).
@Suite struct DiffStatisticsTests {
    private func expectClose(
        _ actual: Double, _ expected: Double, within tolerance: Double = 1e-4, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(abs(actual - expected) <= tolerance, "\(actual) is not \(expected)", sourceLocation: sourceLocation)
    }

    @Test func normalQuantilesAreTheTabledOnes() {
        expectClose(DiffStatistics.normalQuantile(0.975), 1.959963984540054, within: 1e-9)
        expectClose(DiffStatistics.normalQuantile(0.995), 2.5758293035489004, within: 1e-9)
        expectClose(DiffStatistics.normalQuantile(0.001), -3.090232306167813, within: 1e-9)
        expectClose(DiffStatistics.normalQuantile(1e-10), -6.361340902404056, within: 1e-8)
        expectClose(DiffStatistics.z(confidence: 0.95), 1.959963984540054, within: 1e-9)
    }

    @Test func exactBinomialRanksOfAPercentile() {
        // The textbook median intervals: 10 samples → 2nd to 9th, 100 samples → 40th to 61st.
        #expect(DiffStatistics.quantileRanks(count: 10, quantile: 0.5, confidence: 0.95) == .init(lower: 2, upper: 9))
        #expect(DiffStatistics.quantileRanks(count: 100, quantile: 0.5, confidence: 0.95) == .init(lower: 40, upper: 61))
        #expect(DiffStatistics.quantileRanks(count: 1000, quantile: 0.9, confidence: 0.95) == .init(lower: 881, upper: 919))
        #expect(DiffStatistics.quantileRanks(count: 200, quantile: 0.95, confidence: 0.95) == .init(lower: 184, upper: 197))
        #expect(DiffStatistics.quantileRanks(count: 500, quantile: 0.99, confidence: 0.95) == .init(lower: 490, upper: 500))
        // 368 samples bound p99 on both sides; with 367 even the largest may lie below it.
        #expect(DiffStatistics.quantileRanks(count: 368, quantile: 0.99, confidence: 0.95) == .init(lower: 360, upper: 368))
        #expect(DiffStatistics.quantileRanks(count: 367, quantile: 0.99, confidence: 0.95).upper == 368)
    }

    @Test func largeSamplesUseTheNormalApproximationWithinOneRank() {
        let median = DiffStatistics.quantileRanks(count: 1_000_000, quantile: 0.5, confidence: 0.95)
        #expect(median == .init(lower: 499_020, upper: 500_981))  // exact: 499 020 and 500 981
        let p99 = DiffStatistics.quantileRanks(count: 20_000, quantile: 0.99, confidence: 0.95)
        #expect(abs(p99.lower - 19_772) <= 1 && abs(p99.upper - 19_828) <= 1, "\(p99)")
    }

    @Test func minimumSamplesOfAPercentileAreWhereItsIntervalCloses() {
        #expect(DiffStatistics.minimumSamples(quantile: 0.5, confidence: 0.95) == 6)
        #expect(DiffStatistics.minimumSamples(quantile: 0.9, confidence: 0.95) == 36)
        #expect(DiffStatistics.minimumSamples(quantile: 0.95, confidence: 0.95) == 72)
        #expect(DiffStatistics.minimumSamples(quantile: 0.99, confidence: 0.95) == 368)
        #expect(DiffStatistics.minimumSamples(quantile: 0.999, confidence: 0.95) == 3688)
        #expect(DiffStatistics.minimumSamples(quantile: 0.99, confidence: 0.99) == 528)
    }

    @Test func wilsonIntervalsOfKnownProportions() {
        let none = DiffStatistics.wilson(part: 0, whole: 10, confidence: 0.95)
        #expect(none.lowerBound == 0)
        expectClose(none.upperBound, 0.27753279986288915)
        let half = DiffStatistics.wilson(part: 5, whole: 10, confidence: 0.95)
        expectClose(half.lowerBound, 0.23659309051256405)
        expectClose(half.upperBound, 0.763406909487436)
        let some = DiffStatistics.wilson(part: 81, whole: 263, confidence: 0.95)
        expectClose(some.lowerBound, 0.2552885198782743)
        expectClose(some.upperBound, 0.3662095769828001)
        #expect(DiffStatistics.wilson(part: 20, whole: 20, confidence: 0.95).upperBound == 1)
    }

    @Test func twoProportionTestMatchesTheContinuityCorrectedChiSquare() {
        expectClose(DiffStatistics.twoProportionP(part1: 10, whole1: 100, part2: 20, whole2: 100), 0.07470593331213068)
        expectClose(DiffStatistics.twoProportionP(part1: 0, whole1: 220, part2: 6, whole2: 220), 0.039849749357146524)
        expectClose(DiffStatistics.twoProportionP(part1: 90, whole1: 1000, part2: 80, whole2: 1000), 0.4705292221818115)
        #expect(DiffStatistics.twoProportionP(part1: 5, whole1: 5, part2: 9, whole2: 9) == 1)
        // Two of two against none of two is no evidence at all; four of four against none is.
        #expect(DiffStatistics.twoProportionP(part1: 2, whole1: 2, part2: 0, whole2: 2) > 0.05)
        #expect(DiffStatistics.minimumTrials(confidence: 0.95) == 4)
    }

    @Test func meanTestAndHolmAdjustment() {
        expectClose(DiffStatistics.meanP(mean1: 10, standardError1: 0.3, mean2: 10, standardError2: 0.4), 1)
        // A difference of 1.96 standard errors of the difference: p = 0.05.
        expectClose(DiffStatistics.meanP(mean1: 10, standardError1: 0.3, mean2: 10 + 1.959963984540054 * 0.5, standardError2: 0.4), 0.05)
        let adjusted = DiffStatistics.holm([0.01, 0.04, 0.03, 0.5])
        expectClose(adjusted[0], 0.04)
        expectClose(adjusted[2], 0.09)
        expectClose(adjusted[1], 0.09)
        expectClose(adjusted[3], 0.5)
    }

    @Test func histogramRanksVarianceAndSplits() {
        var histogram = Histogram()
        for value in 1...100 { histogram.record(UInt64(value) * 1_000_000) }  // 1 ms … 100 ms
        let tenth = histogram.bounds(ofRank: 10)
        #expect(tenth.contains(10_000_000))
        #expect(tenth.upperBound - tenth.lowerBound <= 10_000_000 / 64)
        #expect(histogram.bounds(ofRank: 100).upperBound == 100_000_000)
        // The variance of 1…100 ms is 841.67 ms²; the buckets shift each value by under 1/128.
        expectClose(histogram.variance / 1e12, 841.67, within: 841.67 * 0.02)
        let split = histogram.bucketLower(atQuantile: 0.5)
        let counts = histogram.counts(below: split)
        #expect(counts.below + counts.at >= 50 && counts.below < 50)
    }
}
