import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport

/// `abort: true` thresholds: their plan syntax, how they are judged during a run, and a run they
/// stop.
@Suite struct AbortThresholdTests {
    // MARK: Plan syntax

    @Test func aThresholdWithOptionsIsABlockAndTheShortFormStillWorks() throws {
        let plan = try #require(
            expectPlan(
                lines(
                    "thresholds:", "  submit.success_rate:", "    check: \">= 95%\"", "    abort: true", "    after: 30s",
                    "  submit.p95: \"< 300ms\"", "  survey.completion_rate:", "    check: \"> 0\"")))
        #expect(plan.thresholds.map(\.description) == ["submit.success_rate >= 95%", "submit.p95 < 300ms", "survey.completion_rate > 0"])
        #expect(plan.thresholds.map(\.abort) == [true, false, false])
        #expect(plan.thresholds[0].abortAfter == .seconds(30))
        #expect(plan.thresholds[1].abortAfter == .zero)
        #expect(plan.thresholds[0].planText == "submit.success_rate >= 95% (abort after 30s)")
    }

    @Test func optionsAreCheckedAtTheirPlace() {
        let errors = expectErrors(
            lines(
                "thresholds:", "  submit.success_rate:", "    check: \">= 95%\"", "    abrot: true", "  submit.p95:", "    abort: true",
                "  submit.p99:", "    check: \"< 1s\"", "    after: 10s", "  submit.p50:", "    check: \"< 1s\"", "    abort: maybe"))
        let messages = errors.map { "\($0.location.line):\($0.location.column): \($0.message)" }
        #expect(messages.contains("4:5: unknown key 'abrot' in 'thresholds.submit.success_rate' (did you mean 'abort'?)"), "\(messages)")
        #expect(messages.contains("5:3: 'thresholds.submit.p95' needs 'check': the comparison, such as check: \"< 300ms\""), "\(messages)")
        #expect(messages.contains("9:5: 'after' needs 'abort: true': it is how long the run goes on before the threshold may stop it"))
        #expect(messages.contains { $0.hasPrefix("12:12: expected true or false for 'thresholds.submit.p50.abort'") }, "\(messages)")
    }

    @Test func setReachesAThresholdsOptionsAndItsCheck() throws {
        var overrides = PlanOverrides()
        try overrides.set(assignment: "thresholds.submit.success_rate.abort=true")
        try overrides.set(assignment: "thresholds.submit.success_rate.after=5s")
        try overrides.set(assignment: "thresholds.submit.p95=< 200ms")
        try overrides.set(assignment: "thresholds.questions.p99.abort=true")
        let plan = try #require(
            expectPlan(
                lines(
                    "thresholds:", "  submit.success_rate: \">= 95%\"", "  submit.p95:", "    check: \"< 300ms\"", "    abort: true",
                    "  questions.p99: \"< 1s\""),
                overrides: overrides))
        // The short form gains options; a block keeps its options when its check is set.
        #expect(
            plan.thresholds.map(\.planText) == [
                "submit.success_rate >= 95% (abort after 5s)", "submit.p95 < 200ms (abort)", "questions.p99 < 1s (abort)",
            ])
    }

    /// A misspelt option given with `--set` is named as the option it is, with the same
    /// did-you-mean as in a plan file — not as an unknown metric 'success_rate.abrot'.
    @Test func aMisspeltOptionGivenWithSetIsNamedAsAnOption() throws {
        var overrides = PlanOverrides()
        try overrides.set(assignment: "thresholds.submit.success_rate.abrot=true")
        let errors = expectErrors(lines("thresholds:", "  submit.success_rate: \">= 95%\""), overrides: overrides)
        let messages = errors.map(\.message)
        #expect(messages == ["unknown key 'abrot' in 'thresholds.submit.success_rate' (did you mean 'abort'?)"], "\(messages)")
    }

    @Test func theOptionsArePartOfThePlanDigest() throws {
        let short = try #require(expectPlan(lines("thresholds:", "  submit.p95: \"< 300ms\"")))
        let block = try #require(expectPlan(lines("thresholds:", "  submit.p95:", "    check: \"< 300ms\"")))
        let abort = try #require(expectPlan(lines("thresholds:", "  submit.p95:", "    check: \"< 300ms\"", "    abort: true")))
        #expect(short.digest == block.digest, "the same threshold, written two ways")
        #expect(abort.digest != short.digest)
    }

    // MARK: Judging during the run

    private static func figures(successRate: Double, calls: Int = 100) -> RunFigures {
        var metrics = RunMetrics()
        metrics.respondentsStarted = 1
        let succeeded = Int((Double(calls) * successRate).rounded())
        for call in 0..<calls {
            let ok = call < succeeded
            metrics.add(
                AttemptRecord(
                    step: .submit, attempt: 1, outcome: ok ? .status(200) : .status(400), succeeded: ok,
                    serviceTime: .milliseconds(5), start: 0))
            metrics[.submit].endCall(succeeded: ok, attempts: 1)
        }
        return RunFigures(ReportFixtures.report(metrics: metrics))
    }

    private static func threshold(_ text: String, abort: Bool = true, after: Duration = .zero) throws -> Threshold {
        var threshold = try #require(PlanLoader.thresholds(["submit.success_rate": text]).first)
        threshold.abort = abort
        threshold.abortAfter = after
        return threshold
    }

    @Test func anAbortThresholdIsJudgedOnlyAfterItsAfter() throws {
        let check = AbortCheck(try [Self.threshold(">= 95%", after: .seconds(30))])
        let failing = Self.figures(successRate: 0.5)
        #expect(check.firstFailing(failing, elapsed: .seconds(29)) == nil, "not judged before 30 s")
        let result = try #require(check.firstFailing(failing, elapsed: .seconds(30)))
        #expect(result.threshold.description == "submit.success_rate >= 95%")
        #expect(result.actual == 0.5)
        #expect(check.firstFailing(Self.figures(successRate: 0.99), elapsed: .seconds(60)) == nil, "a threshold that holds")
    }

    @Test func onlyAbortThresholdsAreJudgedAndNoSamplesYetIsNotAFailure() throws {
        let check = AbortCheck(try [Self.threshold(">= 95%", abort: false), Self.threshold(">= 99%")])
        #expect(check.thresholds.count == 1)
        // Nothing submitted yet (the questions are still coming): not judged, not failed.
        #expect(check.firstFailing(RunFigures(ReportFixtures.report(metrics: RunMetrics())), elapsed: .seconds(5)) == nil)
        #expect(check.firstFailing(Self.figures(successRate: 0.97), elapsed: .seconds(5))?.threshold.limit == 0.99)
        #expect(AbortCheck([Threshold.implicitCompletion]).thresholds.isEmpty, "the implicit threshold never aborts")
    }

    @Test func theWatchJudgesEverySecondOnTheFiguresSoFarAndEndsTheRunOnce() async throws {
        // Virtual time: each sleep moves it on; the success rate falls as it goes.
        let check = AbortCheck(try [Self.threshold(">= 95%", after: .seconds(3))])
        let now = Mutex<Duration>(.zero)
        let ended = Mutex<[String]>([])
        let sleeps = Mutex<[Duration]>([])
        let result = await check.watch(
            every: .seconds(1),
            elapsed: { now.withLock { $0 } },
            figures: { Self.figures(successRate: now.withLock { $0 } < .seconds(2) ? 1 : 0.9) },
            sleep: { interval in
                sleeps.withLock { $0.append(interval) }
                now.withLock { $0 += interval }
            },
            end: { failing in ended.withLock { $0.append(failing.threshold.description) } })
        #expect(result?.threshold.description == "submit.success_rate >= 95%")
        #expect(ended.withLock { $0 } == ["submit.success_rate >= 95%"])
        #expect(sleeps.withLock { $0 } == [.seconds(1), .seconds(1), .seconds(1)], "failing from 2 s, judged from 3 s")
    }

    @Test func aWatchWithNothingToJudgeReturnsAtOnce() async {
        let result = await AbortCheck([]).watch(
            every: .seconds(1), elapsed: { .zero }, figures: { RunFigures(ReportFixtures.report()) },
            sleep: { _ in Issue.record("slept with nothing to judge") }, end: { _ in Issue.record("ended") })
        #expect(result == nil)
    }

    // MARK: End to end, against the builtin server on loopback

    /// A run that would take 120 s (its duration caps it), against a builtin server failing 80%
    /// of submits: at most about 100 submits a second. The duration is long so that a busy
    /// machine, keeping the watch's task from the cooperative pool, cannot let it run out first.
    private static func failingPlan(after: String) -> String {
        lines(
            "name: abort", "target: builtin", "respondents: 100000", "concurrency: 2", "duration: 120s", "think: 20ms",
            "retry:", "  submit:", "    attempts: 1", "builtin:", "  questions: 3", "  fail_rate: 80%",
            "thresholds:", "  submit.success_rate:", "    check: \">= 95%\"", "    abort: true", "    after: \(after)",
            "  questions.p95: \"< 1s\"")
    }

    @Test func aFailingAbortThresholdStopsTheRunEarlyWritesItsReportsAndExitsOne() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("abort.plan", Self.failingPlan(after: "1s"))
        let began = ContinuousClock.now
        let result = await runCommand(["run", plan, "--out", directory.path + "/out", "--format", "json,markdown,junit"])
        let took = ContinuousClock.now - began
        #expect(result.status == .failure, "\(result.err)")
        // About 1 s alone; the watch sleeps on the shared pool, which a full `swift test` keeps
        // busy for seconds at a time, so the bound is the duration itself: a run its duration
        // ended takes all 120 s at least.
        #expect(took < .seconds(120), "stopped before its 120 s: \(took)")
        #expect(result.err.contains("submit.success_rate >= 95% failed "), "\(result.err)")
        #expect(result.err.contains("stopping (abort)"))
        #expect(result.out.hasPrefix("abort: FAILED: stopped by submit.success_rate >= 95% (abort) in "), "\(result.out)")
        let report = try RunReport.read(path: directory.path + "/out/abort-latest.json")
        #expect(report.stoppedBy == "threshold")
        #expect(report.stoppedByThreshold == "submit.success_rate >= 95%")
        #expect(!report.passed && !report.interrupted)
        #expect(report.durationS >= 1 && report.durationS < 120, "\(report.durationS)")
        #expect(report.thresholds.first { $0.threshold.abort }?.passed == false)
        #expect((report.respondents.cutShort ?? 0) > 0, "respondents under way were cut short")
        let markdown = try String(contentsOfFile: directory.path + "/out/abort-latest.md", encoding: .utf8)
        #expect(markdown.contains("stopped by `submit.success_rate >= 95%` (abort)"))
        let junit = try String(contentsOfFile: directory.path + "/out/abort-latest.xml", encoding: .utf8)
        #expect(junit.contains("name=\"run not stopped by a threshold\""))
    }

    /// On a terminal the progress line has no line feed: the abort notice used to be written
    /// on after it (`… p95 0.758 mssubmit.success_rate >= 95% failed …`). It now clears the
    /// line first, as the summary does.
    @Test func theAbortNoticeClearsTheProgressLineOnATerminal() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("abort.plan", Self.failingPlan(after: "1s"))
        let capture = CapturingConsole()
        var console = capture.console
        console.errorIsTerminal = true
        let status = await SurveyBotCommand.main(
            arguments: ["run", plan, "--out", directory.path + "/out", "--format", "json"], environment: [:], console: console)
        #expect(status == .failure)
        let err = capture.standardError
        #expect(err.contains("\r\u{1B}[Ksubmit.success_rate >= 95% failed "), "\(err.debugDescription)")
    }

    @Test func anAbortThresholdIsNotJudgedBeforeItsAfter() async throws {
        // The run ends by itself (40 respondents) long before the threshold may stop it: it is
        // judged at the end like any other, and fails; the run was not stopped.
        let directory = try TemporaryDirectory()
        let text = Self.failingPlan(after: "5m").replacingOccurrences(of: "respondents: 100000", with: "respondents: 40")
        let plan = try directory.write("late.plan", text)
        let result = await runCommand(["run", plan, "--out", directory.path + "/out", "--quiet", "--format", "json"])
        #expect(result.status == .failure)
        #expect(!result.err.contains("stopping (abort)"), "\(result.err)")
        let report = try RunReport.read(path: directory.path + "/out/abort-latest.json")
        #expect(report.stoppedBy == "completed")
        #expect(report.stoppedByThreshold == nil)
        #expect(report.verdict == .failed(1, of: 2))
    }

    // MARK: The report of a run an abort threshold stopped

    /// The Markdown report said "cut short by the duration" when the abort had stopped the run,
    /// and the text summary said "abandoned" without why (an interrupt, a failed login).
    @Test func theRespondentsLineSaysWhatCutThemShortAndWhyTheyWereAbandoned() {
        var plan = ReportFixtures.plan
        plan.thresholds[0].abort = true
        var metrics = ReportFixtures.metrics()
        metrics.respondentsStarted += 3
        metrics.add(RespondentResult(ending: .cutShort, submitted: 1, unanswered: 0))
        metrics.add(RespondentResult(ending: .abandoned(.interrupted), submitted: 0, unanswered: 0))
        metrics.add(RespondentResult(ending: .abandoned(.loginFailed), submitted: 0, unanswered: 0))
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let facts = RunReport.RunFacts(
            plan: plan, startedAt: start, endedAt: start, elapsed: .seconds(3), seed: 42, shard: .whole,
            stoppedBy: .endedEarly, runID: "r", abortedBy: plan.thresholds[0])
        let report = RunReport.make(metrics: metrics, facts: facts)
        let markdown = MarkdownReport.render(report)
        #expect(markdown.contains("2 abandoned (interrupted: 1, login_failed: 1), 1 cut short by the abort"), "\(markdown)")
        let text = TextReport.render(report)
        #expect(text.contains("2 abandoned (interrupted: 1, login_failed: 1), 1 cut short by the abort"), "\(text)")
    }

    @Test func aReportStoppedByAThresholdSaysWhichAndNeverPasses() throws {
        var plan = ReportFixtures.plan
        plan.thresholds[0].abort = true
        let stopper = plan.thresholds[0]
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let facts = RunReport.RunFacts(
            plan: plan, startedAt: start, endedAt: start, elapsed: .seconds(3), seed: 42, shard: .whole,
            stoppedBy: .endedEarly, runID: "r", abortedBy: stopper)
        let report = RunReport.make(metrics: ReportFixtures.metrics(), facts: facts)
        #expect(report.stoppedBy == "threshold")
        #expect(report.stoppedByThreshold == stopper.description)
        #expect(!report.passed, "stopped early is never a pass, even if the figures at the end hold")
        let json = try JSONValue.parse(Array(report.jsonText().utf8)).get()
        #expect(json["stopped_by"] == .string("threshold"))
        #expect(json["stopped_by_threshold"] == .string(stopper.description))
        guard case .array(let thresholds)? = json["thresholds"] else {
            Issue.record("no thresholds")
            return
        }
        #expect(thresholds.first?["abort"] == .bool(true))
        let text = TextReport.render(report)
        #expect(text.hasPrefix("smoke: FAILED: stopped by \(stopper.description) (abort) in 3 s against builtin"), "\(text)")
        #expect(MarkdownReport.render(report).contains("**❌ failed: stopped by `\(stopper.description)` (abort)**"))
        #expect(JUnitReport.render(report).contains("name=\"run not stopped by a threshold\""))
        #expect(JUnitReport.render(report).contains("<failure message=\"stopped early: \(XMLText.escape(stopper.description)) failed"))
        // Read back and merged with a shard that ran to its end, it is still stopped and failed.
        let directory = try TemporaryDirectory()
        let read = try RunReport.read(path: try directory.write("r.json", report.jsonText()))
        #expect(read == report)
        #expect(read.thresholds.first?.threshold.abort == true)
        var shard = facts
        shard.shard = Shard(index: 1, count: 2)
        let other = RunReport.make(
            metrics: ReportFixtures.metrics(),
            facts: RunReport.RunFacts(
                plan: plan, startedAt: start, endedAt: start, elapsed: .seconds(3), seed: 42, shard: Shard(index: 2, count: 2),
                runID: "r"))
        let merged = try RunReport.merged([("a.json", RunReport.make(metrics: ReportFixtures.metrics(), facts: shard)), ("b.json", other)])
        #expect(merged.stoppedBy == "threshold")
        #expect(merged.stoppedByThreshold == stopper.description)
        #expect(!merged.passed)
    }
}
