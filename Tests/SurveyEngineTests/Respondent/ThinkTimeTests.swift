import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyWire

/// `count` draws of `think` from a fixed seed, in milliseconds, sorted.
private func draws(_ think: ThinkTime, count: Int = 20_000, seed: UInt64 = 42) -> [Double] {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { _ in think.sample(using: &random).milliseconds }.sorted()
}

private func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }

private func deviation(_ values: [Double]) -> Double {
    let m = mean(values)
    return (values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(values.count - 1)).squareRoot()
}

/// The q-quantile of sorted values.
private func quantile(_ sorted: [Double], _ q: Double) -> Double { sorted[Int(Double(sorted.count - 1) * q)] }

@Suite struct ThinkTimeTests {
    @Test func normalHasItsMeanAndDeviation() {
        let values = draws(.normal(mean: .milliseconds(500), deviation: .milliseconds(100)))
        #expect(abs(mean(values) - 500) < 3)
        #expect(abs(deviation(values) - 100) < 3)
        #expect(abs(quantile(values, 0.5) - 500) < 4)
    }

    @Test func normalIsTruncatedAtZeroByDrawingAgain() {
        // normal(100ms, 200ms) cut at 0: mean μ + σ·φ(α)/(1 − Φ(α)) with α = −μ/σ = −0.5,
        // that is 100 + 200 · 0.35207 / 0.69146 = 201.8 ms; none negative, none piled at 0.
        let values = draws(.normal(mean: .milliseconds(100), deviation: .milliseconds(200)))
        #expect(values.allSatisfy { $0 >= 0 })
        #expect(abs(mean(values) - 201.8) < 4)
        #expect(values.filter { $0 == 0 }.count < 5)
    }

    @Test func exponentialHasItsMeanAndMedian() {
        let values = draws(.exponential(mean: .milliseconds(500)))
        #expect(abs(mean(values) - 500) < 12)
        #expect(abs(quantile(values, 0.5) - 500 * 0.693_147) < 12)
        #expect(values.allSatisfy { $0 >= 0 })
    }

    @Test func lognormalHasItsMedianAndNinetiethPercentile() {
        let values = draws(.lognormal(median: .milliseconds(500), p90: .seconds(2)))
        #expect(abs(quantile(values, 0.5) / 500 - 1) < 0.03)
        #expect(abs(quantile(values, 0.9) / 2000 - 1) < 0.04)
    }

    @Test func lognormalWithP90AtTheMedianIsFixed() {
        #expect(Set(draws(.lognormal(median: .milliseconds(300), p90: .milliseconds(300)), count: 50)) == [300])
    }

    @Test func uniformDrawsAsBeforeDistributions() {
        // A seed repeats the pauses of runs made before `think` took distributions, which drew
        // `DurationRange.sample` directly: seed 7's first eight draws of 200ms..1s, in
        // nanoseconds, pinned. They were computed apart from survey-bot, with SplitMix64 and the
        // standard library's bounded draw (Lemire's, as `Int64.random(in:using:)` makes it)
        // written out in Python.
        var random = SplitMix64(seed: 7)
        let drawn = (0..<8).map { _ in ThinkTime.uniform(DurationRange(.milliseconds(200), .seconds(1))).sample(using: &random) }
        let pinned: [Int64] = [511_863_799, 213_430_635, 920_608_545, 666_344_235, 561_953_516, 399_545_218, 574_362_403, 462_461_391]
        #expect(drawn == pinned.map { Duration.nanoseconds($0) })
    }

    @Test func aSeedRepeatsEveryDistribution() {
        for think in [
            ThinkTime.normal(mean: .milliseconds(500), deviation: .milliseconds(100)), .exponential(mean: .milliseconds(500)),
            .lognormal(median: .milliseconds(500), p90: .seconds(2)),
        ] {
            #expect(draws(think, count: 100, seed: 9) == draws(think, count: 100, seed: 9))
            #expect(draws(think, count: 100, seed: 9) != draws(think, count: 100, seed: 10))
        }
    }

    @Test func descriptionsAreThePlanSpelling() {
        #expect(ThinkTime.uniform(DurationRange(.milliseconds(200), .seconds(1))).description == "200ms..1s")
        #expect(ThinkTime.normal(mean: .milliseconds(500), deviation: .milliseconds(100)).description == "normal(500ms, 100ms)")
        #expect(ThinkTime.exponential(mean: .seconds(1)).description == "exponential(1s)")
        #expect(ThinkTime.lognormal(median: .milliseconds(500), p90: .seconds(2)).description == "lognormal(500ms, 2s)")
    }
}
