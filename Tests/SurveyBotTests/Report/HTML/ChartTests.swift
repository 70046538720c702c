import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyMetrics

@Suite struct ChartTests {
    @Test func ticksStepByOneTwoOrFiveTimesAPowerOfTen() {
        #expect(NiceTicks.ticks(low: 0, high: 97) == [0, 20, 40, 60, 80, 100])
        #expect(NiceTicks.ticks(low: 0, high: 1.3) == [0, 0.5, 1, 1.5])
        #expect(NiceTicks.ticks(low: 0, high: 0.031, count: 4) == [0, 0.01, 0.02, 0.03, 0.04])
        #expect(NiceTicks.ticks(low: 0, high: 3600, count: 6) == [0, 1000, 2000, 3000, 4000])
        #expect(NiceTicks.ticks(low: 12, high: 47, count: 4) == [10, 20, 30, 40, 50])
        for high in [0.7, 3.0, 13, 99, 101, 950, 12_345] {
            let ticks = NiceTicks.ticks(low: 0, high: high, count: 5)
            let step = ticks[1] - ticks[0]
            let mantissa = step / pow(10, log10(step).rounded(.down))
            #expect([1, 2, 5].contains { abs(mantissa - $0) < 1e-9 }, "step \(step) for \(high)")
            #expect(ticks.count <= 7 && ticks.first == 0 && (ticks.last ?? 0) >= high, "\(ticks) for \(high)")
        }
    }

    @Test func ticksOfAFlatOrMissingRangeAreStillTicks() {
        #expect(NiceTicks.ticks(low: 0, high: 0) == [0, 0.2, 0.4, 0.6, 0.8, 1])
        #expect(NiceTicks.ticks(low: 5, high: 5).first == 0)
        #expect(NiceTicks.ticks(low: .nan, high: .infinity).allSatisfy { $0.isFinite })
        #expect(NiceTicks.ticks(low: -1e308, high: 1e308) == [-1e308, 1e308])
    }

    @Test func tickValuesCarryNoFloatNoise() {
        #expect(NiceTicks.ticks(low: 0, high: 0.3, count: 3).contains(0.3))
        #expect(NiceTicks.label(0.30000000000000004, unit: "ms") == "0.3 ms")
        #expect(NiceTicks.label(25_000, unit: "/s") == "25k /s")
        #expect(NiceTicks.label(2, unit: "") == "2")
    }

    @Test func logTicksArePowersOfTenWithTwoAndFiveOnShortRanges() {
        #expect(NiceTicks.logTicks(low: 0.8, high: 30) == [0.5, 1, 2, 5, 10, 20, 50])
        #expect(NiceTicks.logTicks(low: 0.05, high: 4000) == [0.01, 0.1, 1, 10, 100, 1000, 10000])
        #expect(NiceTicks.logTicks(low: 0, high: 0).allSatisfy { $0 > 0 && $0.isFinite })
    }

    @Test func scalesMapDomainToRangeAndNeverGiveNaN() {
        let linear = ChartScale(domain: (0, 100), range: (200, 0))
        #expect(linear.position(0) == 200 && linear.position(50) == 100 && linear.position(100) == 0)
        let log = ChartScale(.log, domain: (1, 1000), range: (0, 300))
        #expect(abs(log.position(10) - 100) < 1e-9 && abs(log.position(100) - 200) < 1e-9)
        #expect(log.position(0) == 0)
        #expect(ChartScale(domain: (5, 5), range: (0, 10)).position(5) == 5)
        #expect(!linear.position(.nan).isNaN)
    }

    @Test func stepsBreakAtMissingValuesAndMarkLoneValues() {
        let points: [(from: Double, to: Double, y: Double)?] = [(0, 5, 10), (5, 10, 20.25), nil, (15, 20, 30), nil, (25, 25.5, 40)]
        #expect(SVGPath.steps(points) == "M0 10 L5 10 L5 20.3 L10 20.3 M15 30 L20 30 M25 40 L25.5 40")
        // The values without a neighbour, however narrow, get a dot in their middle.
        #expect(SVGPath.markers(points, radius: 3) == "M14.5 30 a3 3 0 1 0 6 0 a3 3 0 1 0 -6 0 M22.3 40 a3 3 0 1 0 6 0 a3 3 0 1 0 -6 0")
        #expect(SVGPath.markers([(0, 1, 2)], radius: 3) == "M-2.5 2 a3 3 0 1 0 6 0 a3 3 0 1 0 -6 0")
        #expect(SVGPath.steps([nil, nil]) == "" && SVGPath.markers([nil, nil], radius: 3) == "")
        #expect(SVGPath.coordinate(.nan) == "0")
        #expect(SVGPath.bars([(0, 10, 5)], baseline: 20) == "M0 20 V5 h10 V20 Z")
    }

    @Test func aChartHasADataPathPerSeriesAndTooltipBands() {
        let chart = LineChart(
            title: "Latency <p95>", yUnit: "ms",
            series: [
                ChartSeries(
                    name: "p50", colour: 0,
                    points: [.init(from: 0, to: 1, y: 1), .init(from: 1, to: 2, y: 2), .init(from: 2, to: 2.5, y: nil)]),
                ChartSeries(
                    name: "p95", colour: 4, dashed: true,
                    points: [.init(from: 0, to: 1, y: 3), .init(from: 1, to: 2, y: 5), .init(from: 2, to: 2.5, y: 4)]),
            ], xEnd: 2.5)
        let html = chart.html()
        #expect(html.components(separatedBy: "class=\"data ").count - 1 == 2)
        #expect(html.contains("class=\"data s4 dashed\""))
        #expect(html.components(separatedBy: "<rect class=\"band\"").count - 1 == 3)
        #expect(html.contains("<title>2–2.5 s\np50: –\np95: 4</title>"))
        #expect(html.contains("Latency &lt;p95&gt;"))
        #expect(html.contains(">6 ms</text>") && html.contains(">2 s</text>"))
        #expect(!html.contains("NaN") && !html.contains("inf"))
    }

    /// A linear axis ends where the run ended, not at the next round number past it: a 6 s run
    /// is not drawn on an axis of 8 s.
    @Test func theTimeAxisEndsWhereTheRunEnded() {
        let points = (0..<7).map { ChartPoint(from: Double($0), to: min(Double($0) + 1, 6.003), y: 950) }
        let chart = LineChart(title: "t", yUnit: "/s", series: [ChartSeries(name: "a", colour: 0, points: points)], xEnd: 6.003)
        let (domain, ticks) = chart.xAxis
        #expect(domain.0 == 0 && domain.1 == 6.003)
        #expect(ticks == [0, 2, 4, 6])
        #expect(chart.html().contains("L612 "), "the last value reaches the axis' end, at the plot's right edge")
        #expect(!chart.html().contains(">8 s<"))
    }

    /// A value alone between gaps — the only interval of a short run, a step called once — is a
    /// dot, not a dash a few pixels wide.
    @Test func aLoneValueIsAMarker() {
        let chart = LineChart(
            title: "t", yUnit: "ms",
            series: [ChartSeries(name: "a", colour: 3, points: [.init(from: 0, to: 0.2, y: 2), .init(from: 0.2, to: 6, y: nil)])],
            xEnd: 6)
        #expect(chart.html().contains("<path class=\"data marker s3\" d=\"M"))
    }

    @Test func aDistributionIsTheShareOfValuesPerLogBin() throws {
        var histogram = Histogram()
        for _ in 0..<3 { histogram.record(UInt64(1_000_000)) }  // 1 ms
        histogram.record(UInt64(10_000_000))  // 10 ms
        let points = LineChart.distribution(histogram)
        #expect(points.first?.y == 75)
        #expect(points.last?.y == 25)
        #expect(points.compactMap(\.y).reduce(0, +) == 100)
        #expect(points.first?.from == 1 && points.last?.to ?? 0 > 10)
    }
}
