import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport
@testable import SurveyWire

/// What a run counts: every response a kind, attempts this process could not make apart from
/// the attempts sent, and what a plan retries by default.
@Suite struct RunCountsTests {
    private func attempt(_ step: Step, _ outcome: AttemptOutcome, succeeded: Bool = false) -> AttemptRecord {
        AttemptRecord(step: step, attempt: 1, outcome: outcome, succeeded: succeeded, serviceTime: .milliseconds(1), start: 0)
    }

    @Test func aRedirectIsCountedAsHTTP3xx() {
        var metrics = RunMetrics()
        metrics.add(attempt(.questions, .status(302)))
        metrics.add(attempt(.questions, .status(301)))
        metrics[.questions].endCall(succeeded: false, attempts: 2)
        let report = ReportFixtures.report(metrics: metrics)
        let questions = report.stepReports["questions"]
        #expect(questions?.status == ["301": 1, "302": 1])
        #expect(questions?.errors == ["http_3xx": 2])
        #expect(questions?.failedAttempts == 2)
        #expect(MarkdownReport.render(report).contains("| questions | http_3xx | 2 |"))
    }

    /// The fixture's metrics with `count` submits that could not be made for want of descriptors.
    private func metricsOutOfDescriptors(_ count: Int) -> RunMetrics {
        var metrics = ReportFixtures.metrics()
        for _ in 0..<count {
            var record = attempt(.submit, .error(.localResource))
            record.detail = "socket(): Too many open files (EMFILE)"
            metrics.add(record)
            metrics[.submit].endCall(succeeded: false, attempts: 1)
        }
        return metrics
    }

    @Test func attemptsNotMadeForWantOfLocalResourcesFailTheRunAndAreCountedApart() throws {
        let base = ReportFixtures.report()
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let facts = RunReport.RunFacts(
            plan: ReportFixtures.plan, startedAt: start, endedAt: start, elapsed: .milliseconds(2500), seed: 42,
            shard: Shard(index: 1, count: 2), openFiles: OpenFilesLimit(soft: 40, hard: 40),
            runID: "fixture-run")
        let report = RunReport.make(metrics: metricsOutOfDescriptors(3), facts: facts)
        let submit = try #require(report.stepReports["submit"])
        let before = try #require(base.stepReports["submit"])
        #expect(submit.localResource == 3)
        #expect(submit.attempts == before.attempts, "not attempts sent")
        #expect(submit.failedAttempts == before.failedAttempts)
        #expect(submit.errors == before.errors)
        #expect(submit.calls == before.calls + 3)
        #expect(submit.retries == before.retries)
        #expect(report.throughput.timeline == base.throughput.timeline)
        #expect(report.localResource == RunReport.LocalResource(attempts: 3, openFilesLimit: 40, openFilesHardLimit: 40))
        // The fixture's plan has thresholds; this run fails whatever they say.
        #expect(!report.passed)
        #expect(report.verdict == .localResource(attempts: 3))
        #expect(RunFigures(report).perStep["submit"]?.errorRate == RunFigures(base).perStep["submit"]?.errorRate)
        let text = TextReport.render(report)
        #expect(text.hasPrefix("smoke: FAILED: out of local resources"))
        #expect(
            text.contains(
                "not sent: 3 attempts (local_resource): survey-bot ran out of file descriptors or local ports (ulimit -n 40 (hard limit 40))"
            ))
        #expect(MarkdownReport.render(report).contains("**Not sent:** 3 attempts (local_resource)"))
        #expect(JUnitReport.render(report).contains("name=\"every attempt sent\" time=\"0\">\n      <failure message=\"3 attempts"))
        // Read back, and merged, it stays counted and failing.
        let directory = try TemporaryDirectory()
        let read = try RunReport.read(path: try directory.write("r.json", report.jsonText()))
        #expect(read == report)
        let otherShard = ReportFixtures.report(shard: Shard(index: 2, count: 2))
        let merged = try RunReport.merged([("a.json", read), ("b.json", otherShard)])
        #expect(merged.localResource?.attempts == 3)
        #expect(merged.stepReports["submit"]?.localResource == 3)
        #expect(!merged.passed)
    }

    @Test func aRunWithoutThresholdsFailsWhenAttemptsCouldNotBeMade() throws {
        var plan = ReportFixtures.plan
        plan.thresholds = []
        #expect(ReportFixtures.report(metrics: ReportFixtures.metrics(), plan: plan).passed)
        let report = ReportFixtures.report(metrics: metricsOutOfDescriptors(1), plan: plan)
        #expect(!report.passed)
        #expect(report.localResource?.attempts == 1)
        #expect(report.localResource?.openFilesLimit == nil)
        #expect(
            TextReport.render(report).contains(
                "not sent: 1 attempt (local_resource): survey-bot ran out of file descriptors or local ports, so"))
    }

    /// `survey.completion_rate` is of the respondents whose survey ended: one cut short by the
    /// run's end, or still under way in a figure of the run so far, counts neither way; one that
    /// gave up counts against it.
    @Test func theCompletionRateLeavesOutRespondentsTheRunsEndCutShort() throws {
        func completion(_ metrics: RunMetrics) throws -> Double {
            try #require(RunFigures(ReportFixtures.report(metrics: metrics)).completionRate)
        }
        let whole = ReportFixtures.metrics()
        var cut = whole
        cut.respondentsStarted += 3
        for _ in 0..<2 { cut.add(RespondentResult(ending: .cutShort, submitted: 1, unanswered: 0)) }
        // The third is still under way: started, not ended.
        #expect(try completion(cut) == completion(whole))
        var gaveUp = whole
        gaveUp.respondentsStarted += 1
        gaveUp.add(RespondentResult(ending: .abandoned(.questionsUnavailable), submitted: 0, unanswered: 0))
        #expect(try completion(gaveUp) < completion(whole))
        // None ended: no value, and a threshold on it fails (`no samples`).
        var none = RunMetrics()
        none.respondentsStarted = 2
        for _ in 0..<2 { none.add(RespondentResult(ending: .cutShort, submitted: 0, unanswered: 0)) }
        #expect(RunFigures(ReportFixtures.report(metrics: none)).completionRate == nil)
    }

    @Test func aRunStoppedByItsDurationSaysSoAndCountsRespondentsCutShort() throws {
        var metrics = ReportFixtures.metrics()
        metrics.respondentsStarted += 2
        metrics.add(RespondentResult(ending: .cutShort, submitted: 3, unanswered: 1))
        metrics.add(RespondentResult(ending: .cutShort, submitted: 0, unanswered: 0))
        var plan = ReportFixtures.plan
        plan.run.duration = .seconds(90)
        plan.run.grace = .milliseconds(500)
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let facts = RunReport.RunFacts(
            plan: plan, startedAt: start, endedAt: start, elapsed: .milliseconds(90_500), seed: 42,
            shard: Shard(index: 1, count: 2), stoppedBy: .duration, runID: "fixture-run")
        let report = RunReport.make(metrics: metrics, facts: facts)
        #expect(report.stoppedBy == "duration")
        #expect(report.respondents.cutShort == 2)
        let respondents = report.respondents
        #expect(
            respondents.started == respondents.completed + respondents.finishedWithUnanswered + respondents.abandoned + 2,
            "cut short apart from completed and abandoned")
        #expect(report.plan.duration == "1m30s" && report.plan.grace == "500ms")
        let json = try JSONValue.parse(Array(report.jsonText().utf8)).get()
        #expect(json["stopped_by"] == .string("duration"))
        #expect(json["respondents"]?["cut_short"] == .integer(2))
        #expect(TextReport.render(report).contains("in 90.5 s against builtin, stopped at its duration"))
        #expect(TextReport.render(report).contains(", 2 cut short by the duration"))
        #expect(MarkdownReport.render(report).contains("90.5 s, stopped at its duration"))
        // Read back and merged with a shard that completed, it stays a run the duration stopped.
        let directory = try TemporaryDirectory()
        let read = try RunReport.read(path: try directory.write("r.json", report.jsonText()))
        #expect(read == report)
        let other = RunReport.make(
            metrics: ReportFixtures.metrics(),
            facts: RunReport.RunFacts(
                plan: plan, startedAt: start, endedAt: start, elapsed: .seconds(2), seed: 42,
                shard: Shard(index: 2, count: 2), runID: "fixture-run"))
        #expect(other.stoppedBy == "completed" && other.respondents.cutShort == 0)
        let merged = try RunReport.merged([("a.json", read), ("b.json", other)])
        #expect(merged.stoppedBy == "duration")
        #expect(merged.respondents.cutShort == 2)
        #expect(ReportFixtures.report(interrupted: true).stoppedBy == "signal")
    }

    @Test func aPlanRetriesNoRedirectMalformedAnswerOrLocalFailureByDefault() throws {
        let plan = try PlanLoader(environment: [:]).load(text: "target: builtin\n", path: "p.plan").get()
        var random = SplitMix64(seed: 1)
        for step in Journey.defaultSteps {
            let policy = plan.run.retry[step]
            #expect(policy.decide(afterAttempt: 1, outcome: .status(302), using: &random) == .notRetryable, "\(step)")
            #expect(policy.decide(afterAttempt: 1, outcome: .error(.malformedResponse), using: &random) == .notRetryable, "\(step)")
            #expect(policy.decide(afterAttempt: 1, outcome: .error(.localResource), using: &random) == .notRetryable, "\(step)")
            // What is retried by default still is.
            #expect(policy.decide(afterAttempt: 1, outcome: .status(503), using: &random) != .notRetryable, "\(step)")
        }
    }
}
