import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

private let second: UInt64 = 1_000_000_000

/// Attempts and respondents spread over `seconds` seconds of a run that began at `origin`
/// (nanoseconds since 1970), split by `shardOf` into shards.
private func shardedMetrics(shards: Int, seconds: [UInt64], origins: [UInt64]) -> (shards: [RunMetrics], whole: RunMetrics) {
    var parts = origins.map { origin in
        var metrics = RunMetrics()
        metrics.timeline = Timeline(interval: second, origin: origin)
        return metrics
    }
    var whole = RunMetrics()
    whole.timeline = Timeline(interval: second, origin: origins.min() ?? 0)
    var random = SplitMix64(seed: 11)
    for index in 0..<4000 {
        let shard = index % shards
        let time = random.next() % (seconds[shard] * second)
        let record = AttemptRecord(
            step: index % 5 == 0 ? .questions : .submit, attempt: 1 + index % 3, outcome: index % 9 == 0 ? .status(503) : .status(200),
            succeeded: index % 9 != 0, serviceTime: .nanoseconds(Int64(100_000 + random.next() % 9_000_000)), start: time)
        parts[shard].add(record)
        // The same moment of wall-clock time, as the whole run's timeline sees it.
        let wholeTime = time + origins[shard] - (origins.min() ?? 0)
        var shifted = record
        shifted.start = wholeTime
        whole.add(shifted)
        parts[shard].timeline.respondentStarted(at: time)
        whole.timeline.respondentStarted(at: wholeTime)
        parts[shard].timeline.respondentFinished(at: time + 300_000_000)
        whole.timeline.respondentFinished(at: wholeTime + 300_000_000)
    }
    return (parts, whole)
}

@Suite struct TimelineReportTests {
    @Test func theReportKeepsOnePointPerIntervalWithPercentiles() throws {
        let report = ReportFixtures.report()
        let timeline = try #require(report.timeline)
        #expect(timeline.intervalS == 1)
        #expect(timeline.start == "2026-11-18T11:06:40.000Z")
        let submit = try #require(timeline.stepPoints["submit"])
        #expect(submit.map(\.t) == [0, 1, 2, 3])
        #expect(submit.map(\.attempts).reduce(0, +) == report.stepReports["submit"]?.attempts)
        #expect(submit[0].errors == ["http_4xx": 6, "timeout": 1])
        #expect(submit[0].p50 != nil && submit[3].p50 == nil && submit[3].histogram == nil)
        #expect(timeline.survey.map(\.respondentsStarted) == [8, 8, 4, 0])
        // Respondents from 0.25 s to 1.15 s of the grid, then 1.25–2.15 s, then 2.25–3.15 s.
        #expect(timeline.survey.map(\.respondentsActive) == [6, 7.2, 4.2, 0.6])
    }

    @Test func theTimelineSurvivesTheJSONReport() throws {
        let report = ReportFixtures.report()
        let text = try report.jsonText()
        let read = try JSONDecoder().decode(RunReport.self, from: Data(text.utf8))
        #expect(read.timeline == report.timeline)
        #expect(read.timeline?.grid?.record == report.timeline)
    }

    @Test func shardsThatRanAtOnceMergeIntoTheTimelineOfTheWhole() throws {
        // Three shards started at different moments within a few seconds, on one wall clock;
        // one ran long enough for its interval to double.
        let origins = [1_795_000_000 * second + 250_000_000, 1_795_000_001 * second + 900_000_000, 1_795_000_000 * second + 10]
        let (parts, whole) = shardedMetrics(shards: 3, seconds: [100, 1000, 50], origins: origins)
        #expect(parts[1].timeline.interval == 2 * second)
        let reports = parts.enumerated().map { index, metrics in
            (path: "shard\(index + 1).json", report: ReportFixtures.report(metrics: metrics, shard: Shard(index: index + 1, count: 3)))
        }
        let merged = try RunReport.merged(reports)
        let expected = try #require(RunReport.TimelineRecord(whole.timeline))
        let timeline = try #require(merged.timeline)
        #expect(timeline.intervalS == 2)
        #expect(timeline.start == expected.start)
        #expect(timeline.stepPoints == expected.stepPoints)
        #expect(timeline.survey.map(\.respondentsStarted) == expected.survey.map(\.respondentsStarted))
        for (a, b) in zip(timeline.survey, expected.survey) { #expect(abs(a.respondentsActive - b.respondentsActive) < 0.01) }
    }

    @Test func aShardWithoutTimelineLeavesTheMergeWithout() throws {
        var off = ReportFixtures.report(shard: Shard(index: 2, count: 2))
        off.timeline = nil
        let merged = try RunReport.merged([("a.json", ReportFixtures.report(shard: Shard(index: 1, count: 2))), ("b.json", off)])
        #expect(merged.timeline == nil)
    }

    @Test func anInconsistentTimelineIsRefusedByMerge() {
        var broken = ReportFixtures.report(shard: Shard(index: 2, count: 2))
        broken.timeline?.start = "2026-11-18T11:06:40.300Z"  // not on the grid of 1 s
        #expect(throws: RunReport.MergeError.self) {
            try RunReport.merged([("a.json", ReportFixtures.report(shard: Shard(index: 1, count: 2))), ("b.json", broken)])
        }
    }

    @Test func theIntervalIsAPlanKey() throws {
        let plan = try #require(expectPlan(lines("report:", "  interval: 500ms")))
        #expect(plan.run.timelineInterval == .milliseconds(500))
        #expect(expectPlan(lines("report:", "  interval: off"))?.run.timelineInterval == nil)
        #expect(expectPlan("name: x\n")?.run.timelineInterval == .seconds(1))
        expectSingleError(lines("report:", "  interval: 50ms"), line: 2, column: 13, contains: "at least 100ms")
        expectSingleError(lines("report:", "  interval: 100500us"), line: 2, column: 13, contains: "whole milliseconds")
        expectSingleError(lines("report:", "  interval: soon"), line: 2, column: 13, contains: "or off")
    }
}

@Suite struct CSVReportTests {
    @Test func oneRowPerIntervalAndStep() throws {
        let csv = CSVReport.render(ReportFixtures.report())
        let rows = csv.components(separatedBy: "\n").dropLast()
        #expect(rows.first == CSVReport.columns.joined(separator: ","))
        #expect(rows.count == 1 + 4 * 2)
        let first = rows[1].components(separatedBy: ",")
        #expect(first.count == CSVReport.columns.count)
        #expect(first[0] == "2026-11-18T11:06:40.000Z" && first[3] == "questions" && first[4] == "10")
        // Failed statuses and kinds in one field; an interval without attempts leaves its
        // latencies empty, never NaN.
        #expect(rows[2].contains(",http_4xx=6;timeout=1,"))
        #expect(rows[7].components(separatedBy: ",")[10...13] == ["", "", "", ""])
        #expect(!csv.contains("nan") && !csv.contains("inf"))
    }

    @Test func aReportWithoutTimelineGivesTheHeaderAlone() {
        var report = ReportFixtures.report()
        report.timeline = nil
        #expect(CSVReport.render(report) == CSVReport.columns.joined(separator: ",") + "\n")
    }

    @Test func fieldsWithCommasAreQuoted() {
        #expect(CSVReport.quoted("a,b") == "\"a,b\"")
        #expect(CSVReport.quoted("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSVReport.quoted("plain") == "plain")
    }
}

@Suite struct MarkdownChartTests {
    @Test func theMarkdownReportDrawsTheTimelineForGitHubWithATextFallback() {
        let markdown = MarkdownReport.render(ReportFixtures.report())
        #expect(markdown.components(separatedBy: "```mermaid\nxychart-beta\n").count - 1 == 3)
        #expect(markdown.contains("    bar [128, 107, 47, 0]"))  // 96 attempts in the 0.75 s of interval 0 the run covered
        #expect(markdown.contains("`█▆▃▁` attempts per second, every 1 s (peak 128)"))
        #expect(markdown.contains("p95 of submit, every 1 s"))
        #expect(!markdown.contains("NaN") && !markdown.contains("Infinity") && !markdown.contains("nan,") && !markdown.contains("inf,"))
    }

    /// Mermaid spreads a chart's values evenly, whatever a numeric axis says: each value is an
    /// interval of the list, labelled with the middle of the part of it the run covered.
    @Test func theXAxisListsTheIntervalsAtTheirTimes() {
        let markdown = MarkdownReport.render(ReportFixtures.report())
        #expect(
            markdown.contains("    x-axis \"seconds from the run's start (middle of each interval)\" [\"0.4\", \"1.3\", \"2.3\", \"2.9\"]"))
        #expect(!markdown.contains("-->"))
    }

    /// One line of attempts per second, the timeline's: not a second one of whole seconds that
    /// disagrees with it.
    @Test func attemptsPerSecondAreShownOnce() {
        let markdown = MarkdownReport.render(ReportFixtures.report())
        #expect(markdown.components(separatedBy: "` attempts per second").count - 1 == 1, "\(markdown)")
        // Without a timeline, the seconds of the run instead: once too.
        var report = ReportFixtures.report()
        report.timeline = nil
        let without = MarkdownReport.render(report)
        #expect(without.components(separatedBy: "` attempts per second").count - 1 == 1)
    }

    /// The seconds of a report without a timeline: the last is rated over the part the run covered.
    @Test func withoutATimelineTheLastSecondIsRatedOverWhatItCovered() {
        var report = ReportFixtures.report()
        report.timeline = nil
        report.durationS = 2.5
        report.throughput.timeline = [100, 100, 50]
        report.throughput.failuresTimeline = [0, 0, 0]
        #expect(MarkdownReport.perSecondSparkline(report) == "███")
        report.durationS = 3
        #expect(MarkdownReport.perSecondSparkline(report) == "██▄")
    }

    /// An interval without a succeeded attempt has no p95: a blank, not the lowest bar.
    @Test func anIntervalWithoutLatencyIsABlankNotAZero() throws {
        var report = ReportFixtures.report()
        var points = try #require(report.timeline?.stepPoints["submit"])
        points[1].p95 = nil
        report.timeline?.stepPoints["submit"] = points
        let markdown = MarkdownReport.render(report)
        // Interval 1 without a p95, and interval 3, in which no attempt started: blanks.
        let line = try #require(markdown.components(separatedBy: "\n").first { $0.contains("` p95 of submit, every 1 s") })
        #expect(Array(line)[2] == " " && Array(line)[4] == " ", "\(line)")
        #expect(Array(line)[1] != " " && Array(line)[3] != " ", "\(line)")
        #expect(markdown.contains("    bar [2.31, 0, 2.31, 0]"), "no bar where there is no p95")
    }

    /// A long timeline is shown coarser: no more intervals than Mermaid can label side by side.
    @Test func aLongTimelineIsShownInAtMostTwentyIntervals() throws {
        let origin: UInt64 = 1_795_000_000_250_000_000
        var metrics = RunMetrics()
        metrics.timeline = Timeline(interval: 1_000_000_000, origin: origin)
        for second in 0..<100 {
            metrics.add(
                AttemptRecord(
                    step: .submit, attempt: 1, outcome: .status(200), succeeded: true, serviceTime: .milliseconds(2),
                    start: UInt64(second) * 1_000_000_000 + 10))
        }
        let start = Date(timeIntervalSince1970: 1_795_000_000.25)
        let report = RunReport.make(
            metrics: metrics,
            facts: RunReport.RunFacts(
                plan: ReportFixtures.plan, startedAt: start, endedAt: start.addingTimeInterval(100), elapsed: .seconds(100), seed: 1,
                shard: .whole, runID: "long"))
        #expect(report.timeline?.survey.count == 100)
        let markdown = MarkdownReport.render(report)
        #expect(markdown.contains("attempts per second, every 8 s (peak 1)"), "\(markdown)")
        let bars = try #require(markdown.components(separatedBy: "\n").first { $0.hasPrefix("    bar [") })
        #expect(bars.components(separatedBy: ",").count == 13)
        // Each rated over what it covered: 8 attempts in the first 7.75 s, 4 in the last 4.25 s.
        #expect(bars == "    bar [1.03, " + Array(repeating: "1", count: 11).joined(separator: ", ") + ", 0.941]")
    }

    /// A fast step's p95 keeps its digits: rounded to 0.1 ms it drew as a flat zero.
    @Test func subMillisecondLatenciesAreNotDrawnAsZero() throws {
        var report = ReportFixtures.report()
        var points = try #require(report.timeline?.stepPoints["submit"])
        for index in points.indices { points[index].p95 = 0.045 }
        report.timeline?.stepPoints["submit"] = points
        let markdown = MarkdownReport.render(report)
        #expect(markdown.contains("    bar [0.045, 0.045, 0.045, 0.045]"), "\(markdown)")
    }

    @Test func aReportWithoutTimelineHasNoCharts() {
        var report = ReportFixtures.report()
        report.timeline = nil
        let markdown = MarkdownReport.render(report)
        #expect(!markdown.contains("mermaid") && !markdown.contains("## Over time"))
    }
}

@Suite struct TimelineCoverageTests {
    @Test func theReportSaysWhereTheRunBeganAndEndedOnItsTimeline() throws {
        // The fixture's run began 0.25 s into the timeline's first second and lasted 3 s.
        let report = ReportFixtures.report()
        let timeline = try #require(report.timeline)
        #expect(timeline.runStartS == 0.25 && timeline.runEndS == 3.25)
        let text = try report.jsonText()
        #expect(text.contains("\"run_start_s\" : 0.25,") && text.contains("\"run_end_s\" : 3.25,"))
        #expect(try JSONDecoder().decode(RunReport.self, from: Data(text.utf8)).timeline == timeline)
    }

    @Test func ratesOfTheFirstAndLastIntervalsAreOverThePartTheRunCovered() throws {
        let report = ReportFixtures.report()
        let timeline = try #require(report.timeline)
        let covered = timeline.covered(startedAt: report.startedAt, endedAt: report.endedAt)
        #expect(covered.map(\.from) == [0, 0.75, 1.75, 2.75])
        #expect(covered.map(\.seconds) == [0.75, 1, 1, 0.25])
        let csv = CSVReport.render(report).components(separatedBy: "\n")
        // Interval 0: 10 questions attempts in the 0.75 s the run covered.
        #expect(csv[1].hasPrefix("2026-11-18T11:06:40.000Z,0,1,questions,10,8,2,2,13.333,2.667,"))
        #expect(csv[1].hasSuffix(",0.75,"), "covered_s, then no lag_p99_ms")
    }

    /// The run: at 950 attempts a second, a run that ended 80 ms into its last
    /// interval. Rated over the whole interval that is 76/s; with a floor of a quarter of an
    /// interval, 304/s; over the 80 ms the run covered, 950/s — in every format.
    @Test func aShortLastIntervalIsRatedOverWhatItCovered() throws {
        var report = ReportFixtures.report()
        report.timeline?.runEndS = 3.08
        var questions = try #require(report.timeline?.stepPoints["questions"])
        questions[3].attempts = 76
        questions[3].succeeded = 76
        report.timeline?.stepPoints["questions"] = questions
        let csv = CSVReport.render(report).components(separatedBy: "\n")
        #expect(csv[7].hasPrefix("2026-11-18T11:06:43.000Z,3,1,questions,76,76,0,0,950,0,"), "\(csv[7])")
        #expect(csv[7].hasSuffix(",0.08,"), "covered_s, then no lag_p99_ms")
        let charts = TimelineCharts(runs: [TimelineCharts.Run(report: report, label: nil, dashed: false)])
        let succeeded = try #require(charts.attempts.series.first?.points.last)
        #expect(succeeded.y.map { ($0 * 1000).rounded() / 1000 } == 950 && succeeded.to == 2.83)
        #expect(charts.attempts.xAxis.domain == (0, 2.83))
        #expect(MarkdownReport.render(report).contains(", 950]") && MarkdownReport.render(report).contains("\"2.8\"]"))
    }

    /// Shards that ran at once: the merge spans the first one's start to the last one's end,
    /// and without every shard's span, none (their times say it then).
    @Test func aMergeSpansItsShards() throws {
        let first = ReportFixtures.report(shard: Shard(index: 1, count: 2))
        var second = ReportFixtures.report(shard: Shard(index: 2, count: 2))
        second.timeline?.runStartS = 0.5
        second.timeline?.runEndS = 3.75
        let merged = try #require(RunReport.merged([("a.json", first), ("b.json", second)]).timeline)
        #expect(merged.runStartS == 0.25 && merged.runEndS == 3.75)
        second.timeline?.runEndS = nil
        let without = try #require(RunReport.merged([("a.json", first), ("b.json", second)]).timeline)
        #expect(without.runStartS == nil && without.runEndS == nil)
    }

    /// A report written before `run_start_s` and `run_end_s`: its `started_at` and `ended_at`
    /// say where the run began and ended, to the millisecond.
    @Test func aReportWithoutTheRunsSpanUsesItsStartAndEndTimes() throws {
        var report = ReportFixtures.report()
        report.timeline?.runStartS = nil
        report.timeline?.runEndS = nil
        let timeline = try #require(report.timeline)
        #expect(timeline.covered(startedAt: report.startedAt, endedAt: report.endedAt).map(\.seconds) == [0.75, 1, 1, 0.25])
        // Times that cannot be read: whole intervals from the timeline's start.
        #expect(timeline.covered(startedAt: "soon", endedAt: report.endedAt).map(\.seconds) == [1, 1, 1, 1])
    }
}
