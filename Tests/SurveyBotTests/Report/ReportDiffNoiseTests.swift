import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport
@testable import SurveyWire

/// A run drawn at random from a known distribution: each respondent fetches the questions
/// once, then submits `questions` answers, each attempt failing with probability `failRate`
/// and retried up to three attempts in all; latencies are uniform in `latencyMs`.
enum SampledRun {
    static func report(
        seed: UInt64, respondents: Int = 20, questions: Int = 10, failRate: Double = 0.05, latencyMs: ClosedRange<Double> = 1...3
    ) -> RunReport {
        var random = SplitMix64(seed: seed &* 7919 &+ 17)
        var metrics = RunMetrics()
        func uniform() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        func latency() -> Duration {
            .nanoseconds(Int64((latencyMs.lowerBound + (latencyMs.upperBound - latencyMs.lowerBound) * uniform()) * 1_000_000))
        }
        for _ in 0..<respondents {
            metrics.respondentsStarted += 1
            metrics.add(
                AttemptRecord(step: .questions, attempt: 1, outcome: .status(200), succeeded: true, serviceTime: latency(), start: 0))
            metrics[.questions].endCall(succeeded: true, attempts: 1)
            var unanswered = 0
            for _ in 0..<questions {
                var attempts = 0
                var succeeded = false
                while attempts < 3 && !succeeded {
                    attempts += 1
                    succeeded = uniform() >= failRate
                    metrics.add(
                        AttemptRecord(
                            step: .submit, attempt: attempts, outcome: .status(succeeded ? 200 : 400), succeeded: succeeded,
                            serviceTime: latency(), start: 0, connection: .reused))
                }
                metrics[.submit].endCall(succeeded: succeeded, attempts: attempts)
                if !succeeded { unanswered += 1 }
            }
            metrics.add(
                RespondentResult(
                    ending: unanswered == 0 ? .completed : .finishedWithUnanswered, submitted: questions - unanswered,
                    unanswered: unanswered))
        }
        return ReportFixtures.report(metrics: metrics)
    }
}

@Suite struct ReportDiffNoiseTests {
    @Test func runsDrawnFromTheSameDistributionAreNotRegressions() {
        // Ten pairs of smoke-sized runs (20 respondents, 200 submits) of one distribution: any
        // "regression" between them is noise.
        for seed in stride(from: UInt64(1), through: 19, by: 2) {
            let diff = ReportDiff(base: SampledRun.report(seed: seed), new: SampledRun.report(seed: seed + 1), tolerances: .init())
            #expect(diff.regressions.isEmpty, "seeds \(seed), \(seed + 1): \(diff.summary)")
        }
    }
}

private func row(_ diff: ReportDiff, _ scope: String, _ metric: String) -> ReportDiff.Row? {
    diff.rows.first { $0.scope == scope && $0.metric == metric }
}

@Suite struct ReportDiffStatisticsTests {
    @Test func thirtyPercentSlowerOnEnoughSamplesIsARegression() throws {
        let base = SampledRun.report(seed: 1, respondents: 50)
        let slower = SampledRun.report(seed: 2, respondents: 50, latencyMs: 1.3...3.9)
        let diff = ReportDiff(base: base, new: slower, tolerances: .init())
        for metric in ["mean", "p50", "p90", "p95"] {
            let submit = try #require(row(diff, "submit", metric))
            #expect(submit.verdict == .regressed, "\(metric): \(submit.reasonText)")
            #expect(submit.reason == .significant)
            #expect((submit.pValue ?? 1) <= 0.05)
        }
        #expect(try #require(row(diff, "submit", "p999")).reason == .tooFewSamples)
    }

    @Test func doubledFailRateOnEnoughSamplesIsARegression() throws {
        let base = SampledRun.report(seed: 3, respondents: 100, failRate: 0.1)
        let worse = SampledRun.report(seed: 4, respondents: 100, failRate: 0.2)
        let diff = ReportDiff(base: base, new: worse, tolerances: .init())
        #expect(try #require(row(diff, "submit", "error_rate")).verdict == .regressed)
        #expect(try #require(row(diff, "submit", "first_try_success_rate")).verdict == .regressed)
        #expect(diff.regressions.allSatisfy { $0.scope != "questions" })
    }

    @Test func tooFewSamplesSaysSoWithTheMinimum() throws {
        // 200 submits: p99 needs 368 at 95% confidence, 528 at 99%; the questions' 20 fetches are
        // too few for their mean (30) and p90 (36), enough for their median (6).
        let diff = ReportDiff(base: SampledRun.report(seed: 5), new: SampledRun.report(seed: 6, latencyMs: 2...6), tolerances: .init())
        let p99 = try #require(row(diff, "submit", "p99"))
        #expect(p99.verdict == .same)
        #expect(p99.reason == .tooFewSamples)
        #expect(p99.minimumSamples == 368)
        #expect(p99.baseInterval == nil)
        #expect(p99.verdictText.hasPrefix("~ too few samples: needs 368, has 2"))
        #expect(try #require(row(diff, "questions", "mean")).minimumSamples == 30)
        #expect(try #require(row(diff, "questions", "p90")).minimumSamples == 36)
        #expect(try #require(row(diff, "questions", "p50")).reason != .tooFewSamples)
        #expect(diff.summary.contains("too few samples"))
        let strict = ReportDiff(
            base: SampledRun.report(seed: 5), new: SampledRun.report(seed: 6), tolerances: .init(), confidence: 0.99)
        #expect(try #require(row(strict, "submit", "p99")).minimumSamples == 528)
    }

    @Test func everyTestedFigureShowsItsIntervalAroundItsValue() throws {
        let diff = ReportDiff(
            base: SampledRun.report(seed: 7, respondents: 50), new: SampledRun.report(seed: 8, respondents: 50), tolerances: .init())
        for metric in ["success_rate", "error_rate", "retries_per_call", "mean", "p50", "p90", "p95", "p99"] {
            let submit = try #require(row(diff, "submit", metric))
            let interval = try #require(submit.baseInterval, "\(metric)")
            let value = try #require(submit.base)
            #expect(interval[0] <= value && value <= interval[1], "\(metric): \(value) outside \(interval)")
        }
        let completion = try #require(row(diff, "survey", "completion_rate"))
        #expect(completion.newInterval != nil)
    }

    @Test func minAndMaxAreShownButNeverGateByDefault() throws {
        // One very slow attempt in the new run: max grows fiftyfold, nothing else moves.
        var metrics = ReportFixtures.metrics()
        metrics.add(
            AttemptRecord(step: .submit, attempt: 1, outcome: .status(200), succeeded: true, serviceTime: .milliseconds(100), start: 0))
        let new = ReportFixtures.report(metrics: metrics)
        let diff = ReportDiff(base: ReportFixtures.report(), new: new, tolerances: .init())
        let max = try #require(row(diff, "submit", "max"))
        #expect(max.verdict == .same && max.reason == .notGated)
        #expect(max.verdictText == "~ not gated")
        #expect(try #require(row(diff, "submit", "min")).reason == .notGated)
        #expect(diff.regressions.isEmpty)
        let gated = ReportDiff(base: ReportFixtures.report(), new: new, tolerances: .init(overrides: ["max": 0.5]))
        let judged = try #require(row(gated, "submit", "max"))
        #expect(judged.verdict == .regressed && judged.reason == .toleranceOnly)
    }
}

@Suite struct ReportDiffHandEditedTests {
    @Test func countsThatContradictEachOtherStillGiveAValidDiff() throws {
        // More successes than calls cannot come from a run, but a hand-edited report may say so:
        // the diff still shows every row, as valid JSON, with intervals inside 0…100%.
        var edited = SampledRun.report(seed: 21)
        let calls = try #require(edited.stepReports["submit"]?.calls)
        edited.stepReports["submit"]?.succeeded = calls + 50
        edited.stepReports["submit"]?.firstTrySucceeded = -4
        let diff = ReportDiff(base: SampledRun.report(seed: 22), new: edited, tolerances: .init())
        let json = try JSONValue.parse(Array(JSONDiff.render(diff).utf8)).get()
        #expect(json["rows"] != nil)
        for row in diff.rows where row.unit == .ratio && row.metric != "retries_per_call" {
            let value = try #require(row.new)
            let interval = try #require(row.newInterval)
            #expect(
                0 <= interval[0] && interval[0] <= value && value <= interval[1] && interval[1] <= 1, "\(row.metric): \(value) \(interval)")
        }
    }
}
