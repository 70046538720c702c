import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport
@testable import SurveyWire

private func verdict(_ diff: ReportDiff, _ scope: String, _ metric: String) -> ReportDiff.Verdict? {
    diff.rows.first { $0.scope == scope && $0.metric == metric }?.verdict
}

/// The fixture report with the submit latencies scaled (the histograms and summaries too).
private func slower(by scale: Double) -> RunReport {
    ReportFixtures.report(metrics: ReportFixtures.metrics(submitLatencyScale: scale))
}

@Suite struct ReportDiffTests {
    let base = ReportFixtures.report()

    @Test func aReportComparedWithItselfHasNoRegressions() {
        let diff = ReportDiff(base: base, new: base, tolerances: .init())
        #expect(diff.regressions.isEmpty)
        #expect(diff.rows.allSatisfy { $0.verdict == .same })
    }

    @Test func thirtyPercentSlowerSubmitIsARegressionNamingTheRow() {
        let diff = ReportDiff(base: base, new: slower(by: 1.3), tolerances: .init())
        #expect(verdict(diff, "submit", "p95") == .regressed)
        #expect(verdict(diff, "questions", "p95") == .same)
        #expect(diff.summary.contains("submit p95"))
    }

    @Test func changesWithinToleranceAreTheSame() {
        let diff = ReportDiff(base: base, new: slower(by: 1.05), tolerances: .init())
        #expect(verdict(diff, "submit", "p95") == .same)
        let loose = ReportDiff(base: base, new: slower(by: 1.3), tolerances: .init(overrides: ["p95": 0.5, "p90": 0.5, "p99": 0.5]))
        #expect(verdict(loose, "submit", "p95") == .same)
        #expect(verdict(loose, "submit", "p50") == .regressed)
        let perEndpoint = ReportDiff(base: base, new: slower(by: 1.3), tolerances: .init(overrides: ["submit.p95": 0.5]))
        #expect(verdict(perEndpoint, "submit", "p95") == .same)
    }

    @Test func fasterIsAnImprovement() {
        let diff = ReportDiff(base: slower(by: 2), new: base, tolerances: .init())
        #expect(verdict(diff, "submit", "p50") == .improved)
        #expect(diff.regressions.isEmpty)
    }

    @Test func changesBelowTheNoiseFloorAreIgnored() {
        // 0.1 ms → 0.15 ms is +50% and, on a million samples, significant — but only 0.05 ms: noise.
        func mean(_ value: Double) -> DiffFigure { DiffFigure(value: value, samples: 1_000_000, evidence: .mean(standardError: 0.001)) }
        func row(_ base: Double, _ new: Double) -> ReportDiff.Row {
            ReportDiff.Comparison(
                scope: "submit", metric: "mean", unit: .ms, direction: .lowerIsBetter, base: mean(base), new: mean(new)
            )
            .row(pValue: 0.0001, confidence: 0.95, tolerances: .init())
        }
        #expect(row(0.1, 0.15).verdict == .same)
        #expect(row(0.1, 0.15).reason == .withinTolerance)
        #expect(row(1, 1.5).verdict == .regressed)
    }

    @Test func successRatesAreJudgedByTheirFailures() {
        // 99% → 95%: a 4% relative drop, but five times the failures.
        let base = DiffFigure.proportion(part: 990, whole: 1000, confidence: 0.95)
        let new = DiffFigure.proportion(part: 950, whole: 1000, confidence: 0.95)
        let comparison = ReportDiff.Comparison(
            scope: "submit", metric: "success_rate", unit: .ratio, direction: .higherIsBetter, base: base, new: new)
        let row = comparison.row(pValue: DiffFigure.pValue(base, new), confidence: 0.95, tolerances: .init())
        #expect(row.verdict == .regressed)
        #expect(row.changePercent == 400)
    }

    @Test func aMissingStepIsARegression() {
        var new = base
        new.stepReports["submit"]?.calls = 0
        let diff = ReportDiff(base: base, new: new, tolerances: .init())
        #expect(verdict(diff, "submit", "calls") == .missing)
        #expect(!diff.regressions.isEmpty)
        let reverse = ReportDiff(base: new, new: base, tolerances: .init())
        #expect(verdict(reverse, "submit", "calls") == .added)
        #expect(reverse.regressions.filter { $0.scope == "submit" }.isEmpty)
    }

    @Test func diffCommandExitsByVerdict() async throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write("a.json", base.jsonText())
        let b = try directory.write("b.json", slower(by: 1.3).jsonText())
        let same = await runCommand(["diff", a, a])
        #expect(same.status == .success)
        #expect(same.out.contains("no regressions"))
        let worse = await runCommand(["diff", a, b])
        #expect(worse.status == .failure)
        #expect(worse.out.split(separator: "\n").contains { $0.contains("submit") && $0.contains("p95") && $0.contains("REGRESSED") })
        let markdown = await runCommand(["diff", a, b, "--format", "markdown"])
        #expect(markdown.out.contains("| submit | p95 |"))
        let json = await runCommand(["diff", a, b, "--format", "json"])
        let value = try JSONValue.parse(Array(json.out.utf8)).get()
        // The JSON counts the regressions the diff finds, the rows it marks regressed.
        let regressions = ReportDiff(base: base, new: slower(by: 1.3), tolerances: .init()).regressions
        #expect(regressions.map { "\($0.scope) \($0.metric)" } == ["submit mean", "submit p50", "submit p90", "submit p95"])
        #expect(value["regressions"] == .integer(regressions.count))
        guard case .array(let rows)? = value["rows"] else {
            Issue.record("no rows: \(json.out)")
            return
        }
        #expect(rows.filter { $0["verdict"] == .string("regressed") }.count == regressions.count)
        let tolerated = await runCommand(["diff", a, b, "--tolerance", "60%"])
        #expect(tolerated.status == .success)
    }

    @Test func diffRefusesOtherSchemasAndBadInput() async throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write("a.json", base.jsonText())
        let other = try directory.write(
            "other.json", base.jsonText().replacingOccurrences(of: "survey-bot.report/1", with: "survey-bot.report/9"))
        let result = await runCommand(["diff", a, other])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("report schema 'survey-bot.report/9' is not 'survey-bot.report/1'"))
        let tolerance = await runCommand(["diff", a, a, "--tolerance", "p98=20%"])
        #expect(tolerance.status == .validationFailure)
        // p90, p95 and p99 are each one edit away: the first of them in the list of metrics is offered.
        #expect(tolerance.err.contains("--tolerance p98=20%: unknown metric 'p98' (did you mean 'p90'?)"), "\(tolerance.err)")
        let misspelt = await runCommand(["diff", a, a, "--tolerance", "submit.sucess_rate=1%"])
        #expect(misspelt.status == .validationFailure)
        #expect(
            misspelt.err.contains("--tolerance submit.sucess_rate=1%: unknown metric 'sucess_rate' (did you mean 'success_rate'?)"),
            "\(misspelt.err)")
        let one = await runCommand(["diff", a])
        #expect(one.status == .validationFailure)
    }
}

@Suite struct ReportMergeTests {
    @Test func mergeOfShardsIsTheWholeExactly() throws {
        // Build shard reports from disjoint record sets and check the merge reproduces the whole.
        var shards: [RunMetrics] = [RunMetrics(), RunMetrics(), RunMetrics()]
        var random = SplitMix64(seed: 3)
        var wholeMetrics = RunMetrics()
        for index in 0..<3000 {
            let record = AttemptRecord(
                step: index % 11 == 0 ? .questions : .submit, attempt: 1 + index % 2,
                outcome: index % 7 == 0 ? .status(400) : .status(200),
                succeeded: index % 7 != 0, serviceTime: .nanoseconds(Int64(200_000 + random.next() % 5_000_000)),
                start: UInt64(index) * 1_000_000)
            shards[index % 3].add(record)
            wholeMetrics.add(record)
        }
        let reports = shards.enumerated().map { index, metrics in
            (path: "shard\(index + 1).json", report: ReportFixtures.report(metrics: metrics, shard: Shard(index: index + 1, count: 3)))
        }
        let merged = try RunReport.merged(reports)
        let expected = ReportFixtures.report(metrics: wholeMetrics)
        #expect(merged.stepReports == expected.stepReports)
        #expect(merged.throughput == expected.throughput)
        #expect(merged.thresholds == expected.thresholds)
        #expect(merged.shard == RunReport.ShardRecord(index: 1, count: 1), "a complete merge is the whole run")
        #expect(merged.passed == expected.passed)
    }

    /// A step whose `expect` accepts a 404 and refuses a 202: its report says which statuses
    /// failed, its errors count only those, and a merge keeps both.
    @Test func statusesTheStepsExpectationDecidedSurviveTheReportAndAMerge() throws {
        var metrics = RunMetrics()
        for (status, succeeded) in [(404, true), (404, true), (202, false), (200, true), (500, false)] {
            metrics.add(
                AttemptRecord(
                    step: .submit, attempt: 1, outcome: .status(status), succeeded: succeeded, serviceTime: .milliseconds(1), start: 0))
        }
        let report = ReportFixtures.report(metrics: metrics)
        let submit = try #require(report.stepReports["submit"])
        #expect(submit.status == ["404": 2, "202": 1, "200": 1, "500": 1])
        #expect(submit.failedStatus == ["202": 1, "500": 1])
        #expect(submit.errors == ["http_2xx": 1, "http_5xx": 1])
        #expect(submit.failedAttempts == 2)
        let merged = try RunReport.merged([(path: "a.json", report: report)])
        #expect(merged.stepReports["submit"] == submit)
        // Statuses alone decided: no `failed_status`, and every status outside 2xx failed.
        var plain = RunMetrics()
        plain.add(
            AttemptRecord(step: .submit, attempt: 1, outcome: .status(404), succeeded: false, serviceTime: .milliseconds(1), start: 0))
        let plainReport = ReportFixtures.report(metrics: plain)
        #expect(plainReport.stepReports["submit"]?.failedStatus == nil)
        #expect(try RunReport.merged([(path: "b.json", report: plainReport)]).stepReports["submit"]?.errors == ["http_4xx": 1])
    }

    /// The server's reason for a failed status: the first of each class, under its class in
    /// `error_samples` with its status; a later one of the same class is not kept; a merge
    /// of shards keeps one a class, the first shard's.
    @Test func theServersReasonIsKeptOnceAClassAndSurvivesAMerge() throws {
        func metrics(_ failures: [(Int, String)]) -> RunMetrics {
            var metrics = RunMetrics()
            for (status, reason) in failures {
                metrics.add(
                    AttemptRecord(
                        step: .submit, attempt: 1, outcome: .status(status), succeeded: false, serviceTime: .milliseconds(1),
                        start: 0, detail: reason))
            }
            return metrics
        }
        let first = ReportFixtures.report(
            metrics: metrics([(401, #"{"error":"bad token"}"#), (404, "not found"), (503, "busy")]), shard: Shard(index: 1, count: 2))
        #expect(
            first.stepReports["submit"]?.errorSamples == ["http_4xx": #"401: {"error":"bad token"}"#, "http_5xx": "503: busy"])
        let second = ReportFixtures.report(metrics: metrics([(429, "slow down"), (502, "gateway")]), shard: Shard(index: 2, count: 2))
        let merged = try RunReport.merged([(path: "a.json", report: first), (path: "b.json", report: second)])
        #expect(
            merged.stepReports["submit"]?.errorSamples == ["http_4xx": #"401: {"error":"bad token"}"#, "http_5xx": "503: busy"])
        let alone = try RunReport.merged([
            (path: "c.json", report: ReportFixtures.report(metrics: metrics([(429, "slow down"), (502, "gateway")])))
        ])
        #expect(alone.stepReports["submit"]?.errorSamples == ["http_4xx": "429: slow down", "http_5xx": "502: gateway"])
    }

    @Test func mergeReadsTheFormerNameOfAnErrorKind() throws {
        var metrics = RunMetrics()
        metrics.add(
            AttemptRecord(
                step: .questions, attempt: 1, outcome: .error(.responseTooLarge), succeeded: false, serviceTime: .milliseconds(1),
                start: 0))
        var old = ReportFixtures.report(metrics: metrics)
        let count = try #require(old.stepReports["questions"]?.errors["response_too_large"])
        old.stepReports["questions"]?.errors = ["body_too_large": count]
        let merged = try RunReport.merged([(path: "old.json", report: old)])
        #expect(merged.stepReports["questions"]?.errors == ["response_too_large": count])
    }

    @Test func mergeRefusesReportsOfDifferentPlans() throws {
        var other = ReportFixtures.plan
        other.run.concurrency = 99
        let a = ReportFixtures.report(shard: Shard(index: 1, count: 2))
        let b = ReportFixtures.report(plan: other, shard: Shard(index: 2, count: 2))
        #expect(throws: RunReport.MergeError.self) { try RunReport.merged([("a.json", a), ("b.json", b)]) }
        #expect(throws: RunReport.MergeError.self) { try RunReport.merged([("a.json", a), ("a2.json", a)]) }
    }

    /// Shards run where each machine has a secret of its own — a token in a header and in a
    /// check — are one run: the digest names the variable, never its value, so they merge.
    @Test func shardsWithSecretsOfTheirOwnMerge() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "secrets.plan",
            """
            name: secrets
            target: builtin
            respondents: 6
            concurrency: 2
            seed: 3
            api:
              headers:
                Authorization: Bearer ${TOKEN}
            journey:
              questions:
                request: GET /questions
                questions: $[*]
                expect:
                  - body not contains ${TOKEN}
              submit:
                request: POST /question/submit
                runs: per_question
                body: '{"id": ${question.id}, "answer": "${answer}"}'
            answers:
              "*": fine
            report:
              formats: [json]
            """)
        var paths: [String] = []
        for (index, token) in [(1, "first-token-4711"), (2, "second-token-0815")] {
            let out = directory.path + "/s\(index)"
            let result = await runCommand(
                ["run", plan, "--shard", "\(index)/2", "--run-id", "secrets-1", "--out", out, "--quiet"], environment: ["TOKEN": token])
            #expect(result.status == .success, "\(result.err)")
            paths.append(out + "/secrets-shard-\(index)-of-2-latest.json")
        }
        let first = try RunReport.read(path: paths[0])
        let second = try RunReport.read(path: paths[1])
        #expect(first.planDigest == second.planDigest)
        let merge = await runCommand(["merge"] + paths + ["--out", directory.path + "/merged.json"])
        #expect(merge.status == .success, "\(merge.err)")
        let merged = try RunReport.read(path: directory.path + "/merged.json")
        #expect(merged.respondents.completed == 6, "\(merged.respondents)")
        let text = try String(contentsOfFile: directory.path + "/merged.json", encoding: .utf8)
        #expect(!text.contains("first-token-4711") && !text.contains("second-token-0815"))
    }

    @Test func shardedRunsOnTheReferenceServerMergeIntoTheUnshardedRun() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "shards.plan",
            """
            name: shards
            target: builtin
            respondents: 30
            concurrency: 6
            seed: 8
            answers:
              1: [red, green, blue]
              "*": fine
            thresholds:
              submit.success_rate: ">= 99%"
            """)
        var paths: [String] = []
        for index in 1...3 {
            let out = directory.path + "/s\(index)"
            let result = await runCommand([
                "run", plan, "--shard", "\(index)/3", "--run-id", "shards-1", "--out", out, "--quiet", "--format", "json",
            ])
            #expect(result.status == .success, "\(result.err)")
            paths.append(out + "/shards-shard-\(index)-of-3-latest.json")
        }
        let whole = await runCommand(["run", plan, "--out", directory.path + "/whole", "--quiet", "--format", "json"])
        #expect(whole.status == .success)
        // The unsharded run has a run id of its own: it cannot be merged with the shards.
        let mixed = await runCommand(["merge", paths[0], directory.path + "/whole/shards-latest.json", "--out", directory.path + "/m.json"])
        #expect(mixed.status == .validationFailure)
        #expect(mixed.err.contains("reports of different runs") && mixed.err.contains("cut into different numbers of shards"))
        let merge = await runCommand(["merge"] + paths + ["--out", directory.path + "/merged.json"])
        #expect(merge.status == .success, "\(merge.err)")
        let merged = try RunReport.read(path: directory.path + "/merged.json")
        let unsharded = try RunReport.read(path: directory.path + "/whole/shards-latest.json")
        #expect(merged.respondents == unsharded.respondents)
        #expect(merged.answers == unsharded.answers)
        // Each respondent answers as it would unsharded: the questions' figures add up to the same.
        #expect(merged.questions == unsharded.questions)
        #expect(merged.questions?.byID["1"]?.answers.count == 3, "\(String(describing: merged.questions?.byID["1"]))")
        for name in ["questions", "submit"] {
            let a = try #require(merged.stepReports[name])
            let b = try #require(unsharded.stepReports[name])
            #expect(a.calls == b.calls && a.attempts == b.attempts && a.status == b.status, "\(name)")
            #expect(a.correctedHistogram.count == UInt64(a.attempts))
        }
        #expect(merged.thresholds.map(\.passed) == [true])
    }
}
