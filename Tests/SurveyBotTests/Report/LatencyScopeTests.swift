import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport

/// Which attempts a latency figure covers, one rule for every format: the succeeded ones. A
/// failed attempt's time to fail — a refused connection's 50 µs, a timeout's 5 s — is no
/// measure of the server's answers; it is shown apart, and an attempt that failed before
/// anything was timed (a host that did not resolve) has none.
@Suite struct LatencyScopeTests {
    /// A run whose submit succeeds 10 times in 100 ms and is refused 90 times in 50 µs, and
    /// whose questions fail 4 times to resolve (in no time at all) after 4 answers in 2 ms.
    private static func metrics() -> RunMetrics {
        var metrics = RunMetrics()
        metrics.timeline = Timeline(interval: 1_000_000_000, origin: 1_795_000_000_250_000_000)
        func add(_ step: Step, _ outcome: AttemptOutcome, _ succeeded: Bool, _ time: Duration, at start: UInt64) {
            metrics.add(AttemptRecord(step: step, attempt: 1, outcome: outcome, succeeded: succeeded, serviceTime: time, start: start))
            metrics[step].endCall(succeeded: succeeded, attempts: 1)
        }
        for index in 0..<4 {
            metrics.respondentsStarted += 1
            metrics.timeline.respondentStarted(at: UInt64(index) * 500_000_000)
            add(.questions, .status(200), true, .milliseconds(2), at: UInt64(index) * 500_000_000)
            add(.questions, .error(.dns), false, .zero, at: UInt64(index) * 500_000_000 + 1)
            metrics.timeline.respondentFinished(at: UInt64(index) * 500_000_000 + 400_000_000)
            metrics.add(RespondentResult(ending: .finishedWithUnanswered, submitted: 0, unanswered: 25))
        }
        for index in 0..<100 {
            let refused = index % 10 != 0
            add(
                .submit, refused ? .error(.connectionRefused) : .status(200), !refused,
                refused ? .microseconds(50) : .milliseconds(100), at: UInt64(index) * 20_000_000)
        }
        return metrics
    }

    private static let report = ReportFixtures.report(metrics: metrics())

    @Test func theEngineKeepsFailedAttemptsOutOfTheLatency() {
        let metrics = Self.metrics()
        #expect(metrics[.submit].correctedLatency.count == 10 && metrics[.submit].serviceTime.count == 10)
        #expect(metrics[.submit].failedLatency.count == 90)
        // Failed to resolve: counted, but no time to fail to speak of.
        #expect(metrics[.questions].failedLatency.count == 0 && metrics[.questions].correctedLatency.count == 4)
        let succeeded = metrics.timeline.points.map { $0[.submit].latency.count }.reduce(0, +)
        #expect(succeeded == 10)
    }

    @Test func theJSONReportSaysLatencyOfSucceededAttemptsAndTimeToFailApart() throws {
        let submit = try #require(Self.report.stepReports["submit"])
        #expect(submit.correctedLatencyMs?.p50 == 100 && submit.correctedLatencyMs?.min == 100)
        #expect(submit.serviceTimeMs?.p50 == 100)
        #expect(submit.correctedHistogram.count == 10)
        #expect(submit.failedLatencyMs?.p50 == 0.05 && submit.failedHistogram?.count == 90)
        let questions = try #require(Self.report.stepReports["questions"])
        #expect(questions.correctedLatencyMs?.max == 2)
        #expect(questions.failedLatencyMs == nil && questions.failedHistogram?.count == 0)
        // The timeline's percentiles too.
        let points = try #require(Self.report.timeline?.stepPoints["submit"])
        #expect(points.compactMap(\.p50).allSatisfy { $0 > 99 })
        #expect(points.compactMap(\.histogram).map(\.count).reduce(0, +) == 10)
        // And the figures thresholds and diffs read.
        let figures = RunFigures(Self.report)
        #expect(figures.value(.p50, of: .step(.submit)) == 100)
        #expect(figures.value(.min, of: .survey) == 2)
    }

    @Test func everyFormatShowsTheSameLatencyAndSaysOfWhich() throws {
        let text = TextReport.render(Self.report)
        #expect(text.contains("latency of succeeded attempts\n  step "))
        #expect(text.contains("  submit         100       100      10%        10%        0   100 ms   100 ms   100 ms   100 ms"), "\(text)")
        #expect(text.contains("  time to fail: submit p50 0.05 ms, p95 0.05 ms, max 0.05 ms (90 failed attempts)"))
        #expect(!text.contains(" 0 ms"), "no figure without samples reads 0")
        let markdown = MarkdownReport.render(Self.report)
        #expect(markdown.contains("| retries | latency of succeeded attempts: p50 | p95 | p99 | max |"))
        #expect(markdown.contains("| submit | 100 | 100 | 10% | 10% | 0 | 100 ms | 100 ms | 100 ms | 100 ms |"))
        #expect(markdown.contains("**Time to fail** (failed attempts, apart from the latency): submit p50 0.05 ms"))
        #expect(markdown.contains("## Latency of submit (succeeded attempts)"))
        let html = HTMLReport.render(Self.report)
        #expect(html.contains("<th colspan=\"4\" class=\"group\">latency of succeeded attempts</th>"))
        #expect(html.contains("<td>submit</td><td class=\"num\">100</td><td class=\"num\">100</td>"))
        #expect(html.contains("<td class=\"num\">100 ms</td><td class=\"num\">100 ms</td><td class=\"num\">100 ms</td>"))
        #expect(html.contains("Latency of submit over time (succeeded attempts)"))
        #expect(html.contains("Latency distribution (share of succeeded attempts, log scale)"))
        let csv = CSVReport.render(Self.report).components(separatedBy: "\n")
        let submitRows = csv.filter { $0.contains(",submit,") }.map { $0.components(separatedBy: ",") }
        #expect(submitRows.allSatisfy { $0[10].isEmpty || Double($0[10]) ?? 0 > 99 }, "\(submitRows)")
        let prometheus = PrometheusReport.render(Self.report)
        #expect(prometheus.contains("survey_bot_latency_seconds_count{plan=\"smoke\",run_id=\"fixture-run\",endpoint=\"submit\"} 10\n"))
        #expect(
            prometheus.contains("survey_bot_time_to_fail_seconds_count{plan=\"smoke\",run_id=\"fixture-run\",endpoint=\"submit\"} 90\n"))
    }

    /// Against a dead target nothing succeeds: the tables show no latency, and the charts draw
    /// none, rather than the refusals' microseconds as a fast server.
    @Test func aDeadTargetHasNoLatencyAnywhere() throws {
        var metrics = RunMetrics()
        metrics.timeline = Timeline(interval: 1_000_000_000, origin: 1_795_000_000_250_000_000)
        for index in 0..<60 {
            metrics.add(
                AttemptRecord(
                    step: .questions, attempt: 1 + index % 3, outcome: .error(.connectionRefused), succeeded: false,
                    serviceTime: .microseconds(100), start: UInt64(index) * 40_000_000))
        }
        for _ in 0..<20 { metrics[.questions].endCall(succeeded: false, attempts: 3) }
        let report = ReportFixtures.report(metrics: metrics)
        #expect(report.stepReports["questions"]?.correctedLatencyMs == nil)
        let text = TextReport.render(report)
        #expect(text.contains("  questions       20        60       0%         0%       40        –        –        –        –"), "\(text)")
        #expect(text.contains("time to fail: questions p50 0.1 ms"))
        let html = HTMLReport.render(report)
        #expect(!html.contains("Latency of questions over time") && !html.contains("Latency distribution"))
        #expect(html.contains("No attempt succeeded: there is no latency to chart"))
        #expect(html.contains("Failed attempts per second, by kind"))
        #expect(!MarkdownReport.render(report).contains("## Latency of questions"))
        #expect(CSVReport.render(report).components(separatedBy: "\n").dropFirst().allSatisfy { !$0.contains(",0.1,") })
    }

    /// The live progress line follows the rule too: refusals are no p95, and no p95 is `–`.
    @Test func theProgressLinesP95IsOfSucceededAttempts() {
        var metrics = RunMetrics()
        metrics.add(
            AttemptRecord(
                step: .questions, attempt: 1, outcome: .error(.connectionRefused), succeeded: false, serviceTime: .microseconds(100),
                start: 0))
        #expect(ProgressLine.p95(metrics) == "–")
        #expect(ProgressLine.p95(Self.metrics()) == "100 ms")
    }

    /// A host that did not resolve fails before anything is timed: no latency, no time to
    /// fail — never a `0` for what was not measured.
    @Test func aDNSFailureIsNeverAZeroLatency() throws {
        var metrics = RunMetrics()
        for _ in 0..<20 {
            metrics.add(AttemptRecord(step: .questions, attempt: 1, outcome: .error(.dns), succeeded: false, serviceTime: .zero, start: 0))
            metrics[.questions].endCall(succeeded: false, attempts: 1)
        }
        let report = ReportFixtures.report(metrics: metrics)
        let questions = try #require(report.stepReports["questions"])
        #expect(questions.correctedLatencyMs == nil && questions.serviceTimeMs == nil && questions.failedLatencyMs == nil)
        let json = try report.jsonText()
        #expect(json.contains("\"latency_ms\" : null"))
        let text = TextReport.render(report)
        #expect(text.contains("  questions       20        20       0%         0%        0        –        –        –        –"), "\(text)")
        #expect(!text.contains("0 ms") && !text.contains("time to fail"))
    }
}

/// Reports written before failed attempts were kept apart counted them in `latency_ms` and
/// `histogram`: they are still read, and every format says which attempts their latency covers.
@Suite struct LatencyScopeOfOlderReportsTests {
    /// The fixture as an older version wrote it: no `failed_histogram`, every attempt in the
    /// latency (38 of submit's 228 failed).
    private static func older(shard: Shard = .whole) throws -> RunReport {
        var report = ReportFixtures.report(shard: shard)
        for name in report.stepReports.keys {
            guard var step = report.stepReports[name], var every = step.correctedHistogram.histogram else { continue }
            if let failed = step.failedHistogram?.histogram { every.merge(failed) }
            step.correctedHistogram = RunReport.HistogramRecord(every)
            step.correctedLatencyMs = .of(every)
            step.failedHistogram = nil
            step.failedLatencyMs = nil
            report.stepReports[name] = step
        }
        let directory = try TemporaryDirectory()
        return try RunReport.read(path: directory.write("old.json", report.jsonText()))
    }

    @Test func theirLatencyIsSaidToCountFailedAttemptsToo() throws {
        let report = try Self.older()
        #expect(!report.keepsFailedLatencyApart)
        #expect(report.stepReports["submit"]?.latencyCoversFailures == true)
        #expect(TextReport.render(report).contains("latency of every attempt, failed ones too\n  step "))
        #expect(MarkdownReport.render(report).contains("| latency of every attempt, failed ones too: p50 |"))
        #expect(HTMLReport.render(report).contains("Latency of submit over time (every attempt, failed ones too)"))
        #expect(PrometheusReport.render(report).contains("Latency of each attempt, failed ones too"))
        #expect(!PrometheusReport.render(report).contains("survey_bot_time_to_fail_seconds"))
    }

    @Test func aDiffAcrossTheChangeShowsLatencyWithoutJudgingIt() throws {
        let diff = ReportDiff(base: try Self.older(), new: ReportFixtures.report(), tolerances: .init())
        let p95 = try #require(diff.rows.first { $0.scope == "submit" && $0.metric == "p95" })
        #expect(p95.verdict == .same && p95.reason == .notGated)
        #expect(diff.rows.first { $0.scope == "submit" && $0.metric == "error_rate" }?.reason != .notGated)
        #expect(
            diff.summary.contains(
                "latency of questions, submit not judged: the base report counts failed attempts in it (written by a version before failed attempts were kept apart)"
            ))
    }

    @Test func mergeRefusesShardsOfBothKinds() throws {
        let old = try Self.older(shard: Shard(index: 2, count: 2))
        let new = ReportFixtures.report(shard: Shard(index: 1, count: 2))
        #expect {
            try RunReport.merged([("new.json", new), ("old.json", old)])
        } throws: { error in
            "\(error)".contains(
                "reports of different versions: the latency leaves failed attempts out in new.json and counts them in old.json")
        }
        // Shards all of the older kind merge as they were: their latency still counts failures.
        let other = try Self.older(shard: Shard(index: 1, count: 2))
        let merged = try RunReport.merged([("a.json", other), ("b.json", old)])
        #expect(!merged.keepsFailedLatencyApart)
        #expect(merged.stepReports["submit"]?.correctedHistogram.count == 2 * 228)
    }
}
