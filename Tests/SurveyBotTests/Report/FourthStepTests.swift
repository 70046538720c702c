import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport

/// A journey is data: a fourth step, added here and nowhere else, is counted by the engine and
/// found in every report format, in a threshold, in diff and in merge — the same as the default
/// journey's own steps, in the journey's order.
@Suite struct FourthStepTests {
    /// A step no journey of survey-bot's has: only this test knows it.
    private static let finish = Step("finish")

    /// The default journey with a login, then `finish`.
    private static let journey = Journey.defaultSteps + [finish]

    /// Metrics of `respondents` respondents of the four-step journey, recorded by the engine's
    /// own recorder over two lanes, with a timeline: each step called once per respondent,
    /// `finish` in `finishMilliseconds` to a millisecond more, and failing for every fifth
    /// respondent.
    private static func metrics(respondents: Int = 40, finishMilliseconds: Int64 = 2) -> RunMetrics {
        let recorder = MetricsRecorder(lanes: 2, steps: journey)
        recorder.startTimeline(interval: 1_000_000_000, origin: 1_795_000_000_000_000_000)
        for respondent in 0..<respondents {
            let lane = respondent % 2
            let start = UInt64(respondent) * 50_000_000
            recorder.respondentStarted(at: start, lane: lane)
            for step in journey {
                let failed = step == finish && respondent % 5 == 0
                let milliseconds = step == finish ? finishMilliseconds : 1
                recorder.record(
                    AttemptRecord(
                        step: step, attempt: 1, outcome: failed ? .status(500) : .status(200), succeeded: !failed,
                        serviceTime: .microseconds(milliseconds * 1000 + Int64(respondent * 37 % 1000)), start: start),
                    lane: lane)
                recorder.endCall(step, succeeded: !failed, attempts: 1, retriesDenied: 0, lane: lane)
            }
            recorder.respondentFinished(
                RespondentResult(ending: .completed, submitted: 1, unanswered: 0), at: start + 10_000_000, lane: lane)
        }
        return recorder.snapshot()
    }

    /// The smoke plan with a threshold on `finish`.
    private static let plan: Plan = {
        var plan = ReportFixtures.plan
        plan.thresholds.append(
            Threshold(scope: .step(finish), metric: .p95, comparison: .less, limit: 3, limitText: "3ms"))
        return plan
    }()

    @Test func theEngineCountsTheFourthStepInItsOrder() {
        let metrics = Self.metrics()
        #expect(metrics.steps == Self.journey)
        #expect(metrics[Self.finish].calls == 40)
        #expect(metrics[Self.finish].succeeded == 32)
        #expect(metrics[Self.finish].statuses == [200: 32, 500: 8])
        #expect(metrics.timeline.steps == Self.journey)
        #expect(metrics.timeline.points.map { $0[Self.finish].attempts }.reduce(0, +) == 40)
    }

    @Test func everyReportFormatHasTheFourthStep() throws {
        let report = ReportFixtures.report(metrics: Self.metrics(), plan: Self.plan)
        #expect(report.steps == Self.journey.map(\.name))
        #expect(report.stepNames == ["login", "questions", "submit", "finish"])
        #expect(report.stepReports["finish"]?.calls == 40)
        #expect(report.timeline?.stepPoints["finish"]?.map(\.attempts).reduce(0, +) == 40)
        for format in ReportFormat.allCases {
            let text = try format.render(report)
            let expected =
                switch format {
                case .json: #""finish" : {"#
                case .markdown: "| finish | 40 | 40 | 80% |"
                case .junit: "name=\"finish.p95 &lt; 3ms\""
                case .text: "  finish          40        40      80%"
                case .csv: ",1,finish,"
                case .html: "<tr><td>finish</td>"
                case .prometheus: #"survey_bot_calls_total{plan="smoke",run_id="fixture-run",endpoint="finish",result="failed"} 8"#
                }
            #expect(text.contains(expected), "\(format) lacks \(expected)")
        }
        // In the journey's order: after the submits, wherever a format lists steps.
        let markdown = MarkdownReport.render(report)
        let submit = try #require(markdown.range(of: "| submit |"))
        let finish = try #require(markdown.range(of: "| finish |"))
        #expect(submit.lowerBound < finish.lowerBound)
        #expect(HTMLReport.render(report).contains("Latency of finish over time"))
    }

    @Test func aThresholdJudgesTheFourthStep() throws {
        let fast = ReportFixtures.report(metrics: Self.metrics(finishMilliseconds: 1), plan: Self.plan)
        let slow = ReportFixtures.report(metrics: Self.metrics(finishMilliseconds: 8), plan: Self.plan)
        let onFast = try #require(fast.thresholds.first { $0.threshold.name == "finish.p95" })
        let onSlow = try #require(slow.thresholds.first { $0.threshold.name == "finish.p95" })
        #expect(onFast.passed && onFast.actual == RunFigures(fast).perStep["finish"]?.latency?.p95)
        #expect(!onSlow.passed && (onSlow.actual ?? 0) > 8)
        // Read back from JSON, the threshold is the same.
        let directory = try TemporaryDirectory()
        let read = try RunReport.read(path: try directory.write("r.json", slow.jsonText()))
        #expect(read.thresholds == slow.thresholds)
    }

    @Test func diffComparesTheFourthStep() throws {
        let base = ReportFixtures.report(metrics: Self.metrics(respondents: 400, finishMilliseconds: 1), plan: Self.plan)
        let new = ReportFixtures.report(metrics: Self.metrics(respondents: 400, finishMilliseconds: 8), plan: Self.plan)
        let diff = ReportDiff(base: base, new: new, tolerances: .init())
        let p95 = diff.rows.first { $0.scope == "finish" && $0.metric == "p95" }
        #expect(p95?.verdict == .regressed, "\(String(describing: p95))")
        #expect(diff.regressions.contains { $0.scope == "finish" })
        let lastSubmit = try #require(diff.rows.lastIndex { $0.scope == "submit" })
        let firstFinish = try #require(diff.rows.firstIndex { $0.scope == "finish" })
        #expect(lastSubmit < firstFinish, "finish comes after submit, as in the journey")
        #expect(TextDiff.render(diff).contains("finish     p95"))
    }

    @Test func mergeAddsUpTheFourthStep() throws {
        let directory = try TemporaryDirectory()
        let shards: [(path: String, report: RunReport)] = try [1, 2].map { index in
            let report = ReportFixtures.report(
                metrics: Self.metrics(finishMilliseconds: Int64(index)), plan: Self.plan, shard: Shard(index: index, count: 2))
            let path = try directory.write("shard-\(index).json", report.jsonText())
            return (path, try RunReport.read(path: path))
        }
        let merged = try RunReport.merged(shards)
        #expect(merged.steps == Self.journey.map(\.name))
        #expect(merged.stepReports["finish"]?.calls == 80)
        // 64 succeeded, 16 failed: the latency is of the first, the time to fail of the others.
        #expect(merged.stepReports["finish"]?.correctedHistogram.count == 64)
        #expect(merged.stepReports["finish"]?.failedHistogram?.count == 16)
        #expect(merged.timeline?.stepPoints["finish"]?.map(\.attempts).reduce(0, +) == 80)
        #expect(merged.thresholds.contains { $0.threshold.name == "finish.p95" && $0.actual != nil })
    }
}
