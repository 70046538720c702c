import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport

/// The tool's own lateness (`lag`): measured apart from the server's service time, in the JSON
/// report and its timeline, and a warning in every format when its p99 passes the plan's
/// `report.lag_limit` — a warning, not a failure.
@Suite struct LagReportTests {
    /// The fixture's metrics with `count` arrivals that started `arrivalMs` late and as many
    /// waits that ended `timerMs` late, spread over the run's first three seconds.
    static func metrics(count: Int = 100, arrivalMs: Double, timerMs: Double? = nil) -> RunMetrics {
        var metrics = ReportFixtures.metrics()
        for index in 0..<count {
            let at = UInt64(index) * 3_000_000_000 / UInt64(count)
            metrics.arrivalLag.record(UInt64(arrivalMs * 1e6))
            metrics.timeline.lagged(by: UInt64(arrivalMs * 1e6), at: at)
            if let timerMs {
                metrics.timerLag.record(UInt64(timerMs * 1e6))
                metrics.timeline.lagged(by: UInt64(timerMs * 1e6), at: at)
            }
        }
        return metrics
    }

    static let warning = "survey-bot itself fell behind"

    /// Every format's text of `report`.
    static func rendered(_ report: RunReport) throws -> [ReportFormat: String] {
        var texts: [ReportFormat: String] = [:]
        for format in ReportFormat.allCases { texts[format] = try format.render(report) }
        return texts
    }

    @Test func aRunThatKeptUpReportsItsLagWithoutAWarning() throws {
        let report = ReportFixtures.report(metrics: Self.metrics(arrivalMs: 0.2, timerMs: 0.5))
        let lag = try #require(report.lag)
        #expect(lag.limitMs == 10)
        #expect(abs((lag.arrivalsMs?.p99 ?? 0) - 0.2) < 0.002)
        #expect(abs((lag.timersMs?.p99 ?? 0) - 0.5) < 0.005)
        #expect(lag.overLimit.isEmpty)
        let texts = try Self.rendered(report)
        for (format, text) in texts { #expect(!text.contains(Self.warning), "\(format)") }
        #expect(texts[.text]?.contains("lag: arrivals p50 0.2 ms, p99 0.2 ms") == true, "\(texts[.text] ?? "")")
        #expect(texts[.markdown]?.contains("**Lag** (survey-bot's own): arrivals p50 0.2 ms") == true)
        let prometheus = (texts[.prometheus] ?? "").split(separator: "\n")
        for kind in ["arrival", "timer"] {
            #expect(
                prometheus.contains { $0.hasPrefix("survey_bot_lag_seconds_count{") && $0.contains("kind=\"\(kind)\"} 100") }, "\(kind)")
        }
    }

    @Test func aRunThatFellBehindWarnsInEveryFormatButStillPasses() throws {
        let behind = ReportFixtures.report(metrics: Self.metrics(arrivalMs: 30))
        let onTime = ReportFixtures.report(metrics: Self.metrics(arrivalMs: 0.1))
        #expect(behind.passed == onTime.passed, "a warning, not a failure")
        #expect(behind.lag?.overLimit.map(\.what) == ["arrivals"])
        let texts = try Self.rendered(behind)
        for format in [ReportFormat.text, .markdown, .html, .junit] {
            let text = try #require(texts[format])
            #expect(text.contains(Self.warning), "\(format)")
            #expect(text.contains("--threads") && text.contains("--shard"), "\(format): the advice")
        }
        #expect(texts[.junit]?.contains("<system-err>warning: survey-bot itself fell behind: arrivals started 30") == true)
        #expect(texts[.json]?.contains("\"arrivals_ms\"") == true)
        // The timeline's points carry the lag too: in the JSON report and the CSV.
        let points = try #require(behind.timeline?.survey)
        #expect(points.contains { ($0.lagP99 ?? 0) > 29 })
        let csv = try #require(texts[.csv]).split(separator: "\n")
        #expect(csv[0].hasSuffix(",lag_p99_ms"))
        #expect(csv.dropFirst().contains { $0.hasSuffix(",30") || $0.hasSuffix(",29.991") || $0.hasSuffix(",30.007") }, "\(csv)")
    }

    @Test func theLimitIsThePlans() throws {
        var plan = try #require(expectPlan(lines("name: lag", "target: builtin", "report:", "  lag_limit: 50ms")))
        #expect(plan.report.lagLimit == .milliseconds(50))
        plan.target = ReportFixtures.plan.target
        let report = ReportFixtures.report(metrics: Self.metrics(arrivalMs: 30), plan: plan)
        #expect(report.lag?.limitMs == 50)
        #expect(!TextReport.render(report).contains(Self.warning))
        let errors = expectErrors(lines("name: lag", "target: builtin", "report:", "  lag_limit: 0s"))
        #expect(errors.first?.message.contains("report.lag_limit") == true, "\(errors)")
    }

    @Test func aClosedRunWithoutTimersHasNoLagNorItsChart() {
        let report = ReportFixtures.report(metrics: ReportFixtures.metrics())
        #expect(report.lag == nil)
        #expect(!HTMLReport.render(report).contains("own lag (p99)"))
    }

    @Test func theHTMLReportChartsTheLagOverTimeAgainstItsLimit() throws {
        let report = ReportFixtures.report(metrics: Self.metrics(arrivalMs: 30))
        let chart = try #require(TimelineCharts(runs: [.init(report: report, label: nil, dashed: false)]).lag)
        #expect(chart.series.map(\.name) == ["survey-bot's lag p99", "limit"])
        let lags = chart.series[0].points.compactMap(\.y)
        #expect(!lags.isEmpty && lags.allSatisfy { abs($0 - 30) < 0.3 }, "\(lags)")
        #expect(chart.series[1].points.allSatisfy { $0.y == 10 })
        #expect(HTMLReport.render(report).contains("survey-bot&#39;s own lag (p99)"))
    }

    /// A diff draws one limit, unlabelled, across the longer run: not the base's, over the base.
    @Test func aDiffChartsOneLimitAcrossTheLongerRun() throws {
        let base = ReportFixtures.report(metrics: Self.metrics(count: 10, arrivalMs: 5))
        // The new run went on for 6 s, not 3: what it did after 3 s has no lag, but it ran.
        var metrics = Self.metrics(count: 10, arrivalMs: 30)
        metrics.timeline.lagged(by: 1_000_000, at: 5_500_000_000)
        let start = Date(timeIntervalSince1970: 1_795_000_000.25)
        let new = RunReport.make(
            metrics: metrics,
            facts: RunReport.RunFacts(
                plan: ReportFixtures.plan, startedAt: start, endedAt: start.addingTimeInterval(6), elapsed: .seconds(6), seed: 42,
                shard: .whole, stoppedBy: .completed, runID: ReportFixtures.runID))
        let chart = try #require(
            TimelineCharts(runs: [.init(report: base, label: "base", dashed: true), .init(report: new, label: "new", dashed: false)]).lag)
        #expect(chart.series.map(\.name) == ["base survey-bot's lag p99", "new survey-bot's lag p99", "limit"])
        let ends = chart.series.map { $0.points.last?.to ?? 0 }
        #expect(ends[2] == ends.max() && ends[2] > ends[0], "\(ends)")
    }

    @Test func mergeAddsTheShardsLag() throws {
        let first = ReportFixtures.report(metrics: Self.metrics(count: 99, arrivalMs: 1), shard: Shard(index: 1, count: 2))
        let second = ReportFixtures.report(metrics: Self.metrics(count: 1, arrivalMs: 40), shard: Shard(index: 2, count: 2))
        let merged = try RunReport.merged([("a.json", first), ("b.json", second)])
        let lag = try #require(merged.lag)
        #expect(lag.arrivalsHistogram?.count == 100)
        #expect(abs((lag.arrivalsMs?.max ?? 0) - 40) < 0.001)
        #expect(abs((lag.arrivalsMs?.p50 ?? 0) - 1) < 0.01)
        // The merged timeline's points hold both shards' lag.
        let counts = merged.timeline?.survey.compactMap(\.lag?.count).reduce(0, +)
        #expect(counts == 100)
    }

    /// Any limit a report may hold merges as it is: one past `Int64`'s nanoseconds (292 years)
    /// trapped converting to a `Duration`.
    @Test func mergeKeepsAnyLimitAReportMayHold() async throws {
        let directory = try TemporaryDirectory()
        var paths: [String] = []
        for index in 1...2 {
            var shard = ReportFixtures.report(metrics: Self.metrics(arrivalMs: 1), shard: Shard(index: index, count: 2))
            shard.lag?.limitMs = 1e14
            paths.append(try directory.write("\(index).json", shard.jsonText()))
        }
        let result = await runCommand(["merge"] + paths + ["--out", directory.path + "/merged.json"])
        #expect(result.status != .validationFailure, "\(result.err)")
        #expect(try RunReport.read(path: directory.path + "/merged.json").lag?.limitMs == 1e14)
    }

    @Test func aReportWhoseLagNoRunWritesIsRefused() async throws {
        var negative = ReportFixtures.report(metrics: Self.metrics(arrivalMs: 1))
        negative.lag?.limitMs = -1
        try await ReportInputTests().expectRefusedByEveryReader(negative, naming: "lag.limit_ms")
        var damaged = ReportFixtures.report(metrics: Self.metrics(arrivalMs: 1))
        damaged.lag?.arrivalsHistogram?.count += 1
        try await ReportInputTests().expectRefusedByEveryReader(damaged, naming: "lag.arrivals_histogram")
        let huge = ReportInputTests.withTimeline { $0.survey[0].lagP99 = 1e300 }
        try await ReportInputTests().expectRefusedByEveryReader(huge, naming: "lag_p99_ms")
    }
}
