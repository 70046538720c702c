import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport

/// Runs that must not pass: none completed, latency of nothing, arrivals dropped, questions the
/// plan cannot answer.
@Suite struct VerdictHoleTests {
    /// Respondents who got the questions and then failed every submit: attempts were made, and
    /// were fast, but nothing succeeded.
    private static func metricsWhereEverySubmitFails(respondents: Int = 4) -> RunMetrics {
        var metrics = RunMetrics()
        for _ in 0..<respondents {
            metrics.respondentsStarted += 1
            metrics.add(
                AttemptRecord(
                    step: .questions, attempt: 1, outcome: .status(200), succeeded: true, serviceTime: .milliseconds(1), start: 0))
            metrics[.questions].endCall(succeeded: true, attempts: 1)
            for _ in 1...3 {
                metrics.add(
                    AttemptRecord(
                        step: .submit, attempt: 1, outcome: .error(.connectionRefused), succeeded: false,
                        serviceTime: .microseconds(50), start: 0))
                metrics[.submit].endCall(succeeded: false, attempts: 1)
            }
            metrics.add(RespondentResult(ending: .finishedWithUnanswered, submitted: 0, unanswered: 3))
        }
        return metrics
    }

    private static func planWithout(thresholds: [Threshold] = []) -> Plan {
        var plan = ReportFixtures.plan
        plan.thresholds = thresholds
        return plan
    }

    @Test func anInterruptedRunIsNeverAPassEvenWithEveryThresholdHeld() {
        // Ctrl-C, SIGTERM or SIGHUP: the figures are partial, as a partial merge's are, so the
        // JSON a CI gate reads must not say `passed: true` (the exit status is 128 + signal).
        let whole = ReportFixtures.report(plan: Self.planWithout())
        #expect(whole.passed, "some completed: the implicit threshold holds")
        let interrupted = ReportFixtures.report(plan: Self.planWithout(), interrupted: true)
        let held = interrupted.thresholds.allSatisfy { $0.passed }
        #expect(held)
        #expect(!interrupted.passed)
        #expect(interrupted.verdict == .interrupted)
    }

    @Test func aRunWithoutThresholdsInWhichNoneCompletedFailsByAnImplicitThreshold() throws {
        let report = ReportFixtures.report(metrics: Self.metricsWhereEverySubmitFails(), plan: Self.planWithout())
        #expect(!report.passed)
        #expect(report.thresholds.count == 1)
        let implicit = try #require(report.thresholds.first)
        #expect(implicit.threshold.implicit)
        #expect(implicit.threshold.description == "survey.completion_rate > 0")
        #expect(implicit.actual == 0)
        #expect(!implicit.passed)
        // Stated in every format, marked implicit.
        let json = try JSONValue.parse(Array(report.jsonText().utf8)).get()
        guard case .array(let written)? = json["thresholds"] else {
            Issue.record("no thresholds array")
            return
        }
        #expect(written.first?["implicit"] == .bool(true))
        #expect(written.first?["name"] == .string("survey.completion_rate"))
        let text = TextReport.render(report)
        #expect(text.hasPrefix("smoke: FAILED: no respondent completed the survey in"))
        #expect(text.contains("FAIL survey.completion_rate > 0 (actual 0%; implicit, the plan sets no thresholds)"))
        let markdown = MarkdownReport.render(report)
        #expect(markdown.contains("❌ failed: no respondent completed the survey"))
        #expect(markdown.contains("| `survey.completion_rate > 0` (implicit) | 0% | ❌ failed |"))
        let junit = JUnitReport.render(report)
        #expect(junit.contains("name=\"survey.completion_rate &gt; 0 (implicit)\""))
        #expect(junit.contains("<failure message=\"survey.completion_rate: actual 0%, limit &gt; 0"))
        // Read back, merged or not, it stays implicit and failed.
        let directory = try TemporaryDirectory()
        let read = try RunReport.read(path: try directory.write("r.json", report.jsonText()))
        #expect(read == report)
        let merged = try RunReport.merged([("r.json", read)])
        #expect(merged.thresholds.map(\.threshold.implicit) == [true])
        #expect(!merged.passed)
    }

    @Test func aRunWithoutThresholdsInWhichSomeCompletedPassesAndSaysCompleted() {
        let report = ReportFixtures.report(plan: Self.planWithout())
        #expect(report.passed)
        #expect(report.thresholds.map(\.threshold.implicit) == [true])
        #expect(report.verdict == .completed)
        #expect(TextReport.render(report).hasPrefix("smoke: completed in"))
    }

    @Test func aRunWithThresholdsHasNoImplicitOne() {
        let report = ReportFixtures.report()
        #expect(!report.thresholds.contains { $0.threshold.implicit })
    }

    @Test func aLatencyThresholdWithNoSuccessfulSampleFailsWithNoSamples() throws {
        // Every submit was refused in 50 µs: its latency would pass any limit.
        let p95 = try #require(PlanLoader.thresholds(["submit.p95": "< 300ms"]).first)
        let report = ReportFixtures.report(metrics: Self.metricsWhereEverySubmitFails(), plan: Self.planWithout(thresholds: [p95]))
        let result = try #require(report.thresholds.first)
        #expect(result.actual == nil)
        #expect(!result.passed)
        #expect(!report.passed)
        #expect(TextReport.render(report).contains("FAIL submit.p95 < 300ms (actual no samples)"))
        #expect(MarkdownReport.render(report).contains("| `submit.p95 < 300ms` | no samples | ❌ failed |"))
        let json = try JSONValue.parse(Array(report.jsonText().utf8)).get()
        guard case .array(let written)? = json["thresholds"] else {
            Issue.record("no thresholds array")
            return
        }
        #expect(written.first?["actual"] == JSONValue.null)
        // Nor do the step's own figures show the refusals' 50 µs as its latency, in any format:
        // that is their time to fail, shown apart.
        let submit = try #require(report.stepReports["submit"])
        #expect(submit.correctedLatencyMs == nil && submit.serviceTimeMs == nil)
        #expect(submit.failedLatencyMs?.p50 == 0.05)
        #expect(
            TextReport.render(report).contains(
                "  submit          12        12       0%         0%        0        –        –        –        –"))
        #expect(TextReport.render(report).contains("  time to fail: submit p50 0.05 ms, p95 0.05 ms, max 0.05 ms (12 failed attempts)"))
    }

    @Test func droppedArrivalsAreAThresholdMetric() throws {
        var metrics = ReportFixtures.metrics()
        metrics.dropped = 20  // 20 started, 20 dropped
        let dropped = try #require(PlanLoader.thresholds(["survey.dropped_rate": "< 1%"]).first)
        let report = ReportFixtures.report(metrics: metrics, plan: Self.planWithout(thresholds: [dropped]))
        #expect(report.thresholds.first?.actual == 0.5)
        #expect(!report.passed)
        #expect(RunFigures(ReportFixtures.report()).value(.droppedRate, of: .survey) == 0)
        #expect(RunFigures(ReportFixtures.report(metrics: RunMetrics())).value(.droppedRate, of: .survey) == nil)
    }

    @Test func droppedRateIsMeasuredForTheWholeSurveyOnly() {
        let diagnostics = PlanLoader.thresholdErrors(["submit.dropped_rate": "< 1%"])
        #expect(diagnostics.contains { $0.contains("'dropped_rate' is measured for the whole survey: write 'survey.dropped_rate'") })
    }

    @Test func skippedQuestionsAreTheirOwnCountInTheReport() throws {
        var metrics = ReportFixtures.metrics()
        metrics.add(RespondentResult(ending: .finishedWithUnanswered, submitted: 8, unanswered: 0, skipped: 2))
        metrics.respondentsStarted += 1
        let report = ReportFixtures.report(metrics: metrics)
        #expect(report.answers.skipped == 2)
        let json = try JSONValue.parse(Array(report.jsonText().utf8)).get()
        #expect(json["answers"]?["skipped"] == .integer(2))
        #expect(json["answers"]?["missing"] == nil)
        #expect(TextReport.render(report).contains(" unanswered, 2 skipped (no answer in the plan)"))
        #expect(MarkdownReport.render(report).contains(" unanswered, 2 skipped (no answer in the plan)"))
        // A report of an earlier version called them `missing`.
        let old = try report.jsonText().replacingOccurrences(of: "\"skipped\"", with: "\"missing\"")
        let directory = try TemporaryDirectory()
        #expect(try RunReport.read(path: try directory.write("old.json", old)).answers.skipped == 2)
    }

    @Test func validateWarnsWhenTheAnswersHaveNoFallbackButPasses() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "remote.plan", "target: http://127.0.0.1:9\nanswers:\n  1: red\n  2: [a, b]\n")
        let result = await runCommand(["validate", plan])
        #expect(result.status == .success)
        #expect(
            result.err.contains(
                "\(plan):2:1: warning: 'answers' has no \"*\" answer: a question without its own answer is skipped (never sent; counted in answers.skipped)"
            ), "\(result.err)")
        #expect(result.out.contains("\(plan): ok"))
        // `run` says it too before it starts, unless --quiet (nothing listens on port 9: the run
        // fails at once, which is not what is tested here).
        let run = await runCommand(["run", plan, "--out", directory.path + "/out", "--set", "retry.questions.attempts=1"])
        #expect(run.err.hasPrefix("\(plan):2:1: warning: 'answers' has no \"*\" answer"), "\(run.err)")
        let quiet = await runCommand(["run", plan, "--out", directory.path + "/out", "--set", "retry.questions.attempts=1", "--quiet"])
        #expect(!quiet.err.contains("warning"), "\(quiet.err)")
        // With a "*" answer, or without an answers block (every question answered `ok`), no warning.
        let fallback = try directory.write("fallback.plan", "target: http://127.0.0.1:9\nanswers:\n  1: red\n  \"*\": x\n")
        let plain = try directory.write("plain.plan", "target: http://127.0.0.1:9\n")
        for quiet in [fallback, plain] {
            let result = await runCommand(["validate", quiet])
            #expect(result.status == .success)
            #expect(!result.err.contains("warning"), "\(result.err)")
        }
    }
}

extension PlanLoader {
    /// The thresholds of a plan holding only `entries` (`name: "comparison"`).
    static func thresholds(_ entries: KeyValuePairs<String, String>) throws -> [Threshold] {
        let text = "thresholds:\n" + entries.map { "  \($0.key): \"\($0.value)\"" }.joined(separator: "\n") + "\n"
        return try PlanLoader(environment: [:]).load(text: text, path: "t.plan").get().thresholds
    }

    /// The errors of a plan holding only `entries`, as printed.
    static func thresholdErrors(_ entries: KeyValuePairs<String, String>) -> [String] {
        let text = "thresholds:\n" + entries.map { "  \($0.key): \"\($0.value)\"" }.joined(separator: "\n") + "\n"
        switch PlanLoader(environment: [:]).load(text: text, path: "t.plan") {
        case .success: return []
        case .failure(let failure): return failure.diagnostics.map(\.message)
        }
    }
}
