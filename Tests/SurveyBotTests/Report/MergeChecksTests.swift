import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport

/// The metrics of shard `index` of `count`: every `count`-th respondent of the fixture's run.
private func shardMetrics(_ index: Int, of count: Int) -> RunMetrics {
    ReportFixtures.metrics(seed: UInt64(index), respondents: 20 / count)
}

/// The report of shard `index` of `count`, of run `runID`, written to `directory`.
private func writeShard(
    _ directory: TemporaryDirectory, _ index: Int, of count: Int, runID: String = "run-1", plan: Plan = ReportFixtures.plan,
    name: String? = nil
) throws -> String {
    let report = ReportFixtures.report(
        metrics: shardMetrics(index, of: count), plan: plan, shard: Shard(index: index, count: count), runID: runID)
    return try directory.write(name ?? "shard-\(index)-of-\(count).json", report.jsonText())
}

@Suite struct MergeChecksTests {
    @Test func reportsOfDifferentRunsAreRefusedNamingEachFile() async throws {
        let directory = try TemporaryDirectory()
        let one = try writeShard(directory, 1, of: 2)
        let stale = try writeShard(directory, 2, of: 2, runID: "run-0")
        let result = await runCommand(["merge", one, stale, "--out", directory.path + "/merged.json"])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("reports of different runs: run id 'run-1' in \(one); run id 'run-0' in \(stale)"), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/merged.json"))
    }

    @Test func reportsOfDifferentPlansAreRefusedSayingWhatDiffers() async throws {
        let directory = try TemporaryDirectory()
        var busier = ReportFixtures.plan
        busier.run.concurrency = 99
        let one = try writeShard(directory, 1, of: 2)
        let two = try writeShard(directory, 2, of: 2, plan: busier)
        let result = await runCommand(["merge", one, two, "--out", directory.path + "/merged.json"])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("reports of different plans"), "\(result.err)")
        #expect(result.err.contains("concurrency: 5 in \(one); 99 in \(two)"), "\(result.err)")
        // A difference the report's plan does not show is still named as one, by digest.
        var bigger = ReportFixtures.plan
        bigger.run.client.maxBodyBytes *= 2
        let three = try writeShard(directory, 2, of: 2, plan: bigger, name: "bigger.json")
        let hidden = await runCommand(["merge", one, three, "--out", directory.path + "/merged.json"])
        #expect(hidden.status == .validationFailure)
        #expect(hidden.err.contains("a setting the report does not show"), "\(hidden.err)")
        #expect(hidden.err.contains(String(ReportFixtures.plan.digest.prefix(19))), "\(hidden.err)")
    }

    @Test func shardsOfOneRunWithDifferentSeedsAreRefused() async throws {
        // Shards of a plan without a seed, written before the seed came from the run id: each
        // drew its own, so their figures are not one repeatable run.
        let directory = try TemporaryDirectory()
        let one = try writeShard(directory, 1, of: 2)
        var other = ReportFixtures.report(metrics: shardMetrics(2, of: 2), shard: Shard(index: 2, count: 2), runID: "run-1")
        other.seed = 7
        let two = try directory.write("shard-2-of-2.json", other.jsonText())
        let result = await runCommand(["merge", one, two, "--out", directory.path + "/merged.json"])
        #expect(result.status == .validationFailure)
        #expect(
            result.err.contains(
                "shards of one run with different seeds: seed 42 in \(one); seed 7 in \(two) (give the plan a seed, or run the shards again"
            ),
            "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/merged.json"))
    }

    @Test func aShardGivenTwiceIsRefusedNamingBothFiles() async throws {
        let directory = try TemporaryDirectory()
        let one = try writeShard(directory, 1, of: 2)
        let two = try writeShard(directory, 2, of: 2)
        let other = try directory.write(
            "other-2.json",
            ReportFixtures.report(metrics: shardMetrics(3, of: 2), shard: Shard(index: 2, count: 2), runID: "run-1").jsonText())
        let result = await runCommand(["merge", one, two, other, "--out", directory.path + "/merged.json"])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("shard 2/2 given twice: \(two) and \(other)\n"), "\(result.err)")
    }

    @Test func theSameReportGivenTwiceIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let one = try writeShard(directory, 1, of: 2)
        let two = try writeShard(directory, 2, of: 2)
        let same = await runCommand(["merge", one, two, two, "--out", directory.path + "/merged.json"])
        #expect(same.status == .validationFailure)
        #expect(same.err.contains("shard 2/2 given twice: \(two) and \(two) (the same file)"), "\(same.err)")
        let copy = try directory.write("copy.json", try String(contentsOfFile: two, encoding: .utf8))
        let copied = await runCommand(["merge", one, two, copy, "--out", directory.path + "/merged.json"])
        #expect(copied.status == .validationFailure)
        #expect(copied.err.contains("shard 2/2 given twice: \(two) and \(copy) (the same report)"), "\(copied.err)")
        // One whole run given twice is the same mistake.
        let whole = try directory.write("whole.json", ReportFixtures.report().jsonText())
        let twice = await runCommand(["merge", whole, whole, "--out", directory.path + "/merged.json"])
        #expect(twice.status == .validationFailure)
        #expect(twice.err.contains("shard 1/1 given twice"), "\(twice.err)")
    }

    @Test func missingShardsAreRefusedUnlessAPartialMergeIsAskedFor() async throws {
        let directory = try TemporaryDirectory()
        let paths = try [1, 2, 4].map { try writeShard(directory, $0, of: 5) }
        let result = await runCommand(["merge"] + paths + ["--out", directory.path + "/merged.json"])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("missing shards 3, 5 of 5 (--allow-partial merges the rest, marked partial)"), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/merged.json"))
    }

    @Test func everyProblemIsNamedAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let one = try writeShard(directory, 1, of: 4)
        let stale = try writeShard(directory, 2, of: 4, runID: "run-0")
        let result = await runCommand(["merge", one, stale, stale, "--out", directory.path + "/merged.json"])
        #expect(result.status == .validationFailure)
        let errors = result.err.split(separator: "\n").filter { $0.hasPrefix("Error: ") }
        #expect(errors.count == 3, "\(result.err)")
        #expect(result.err.contains("reports of different runs"))
        #expect(result.err.contains("shard 2/4 given twice"))
        #expect(result.err.contains("missing shards 3, 4 of 4"))
        #expect(result.err.contains("3 problems; nothing was merged"), "\(result.err)")
    }

    @Test func aReportWithoutARunIdIsRefusedWithWhatToDo() async throws {
        let directory = try TemporaryDirectory()
        var text = try ReportFixtures.report(shard: Shard(index: 1, count: 1)).jsonText()
        text = text.replacingOccurrences(of: #""run_id" : "fixture-run","#, with: "")
        let old = try directory.write("old.json", text)
        let result = await runCommand(["merge", old, "--out", directory.path + "/merged.json"])
        #expect(result.status == .validationFailure)
        #expect(
            result.err.contains("\(old) has no run_id: it was written before reports named their run"), "\(result.err)")
        #expect(result.err.contains("run the shards again with the same --run-id"))
    }

    @Test func aCompleteMergeSaysWhatItMerged() throws {
        let parts = (1...3).map { index in
            (
                path: "s\(index).json",
                report: ReportFixtures.report(metrics: shardMetrics(index, of: 3), shard: Shard(index: index, count: 3))
            )
        }
        let merged = try RunReport.merged(parts.reversed())
        #expect(merged.runID == ReportFixtures.runID && merged.planDigest == ReportFixtures.plan.digest)
        #expect(merged.partial == false && merged.missingShards == nil && merged.mergedShards == [1, 2, 3])
        #expect(merged.shard == RunReport.ShardRecord(index: 1, count: 1))
        #expect(throws: RunReport.MergeError.self) { try RunReport.merged(Array(parts.dropLast())) }
    }
}

/// `--allow-partial`: what is there is merged, and every output says what is missing.
@Suite struct PartialMergeTests {
    /// Shards 1, 2 and 4 of 4 merged with `--allow-partial` (plus `options`); the merge's result
    /// and the merged report.
    private func partialMerge(_ directory: TemporaryDirectory, plan: Plan = ReportFixtures.plan) async throws -> (CommandResult, String) {
        let paths = try [1, 2, 4].map { try writeShard(directory, $0, of: 4, plan: plan) }
        let out = directory.path + "/merged.json"
        return (await runCommand(["merge"] + paths + ["--out", out, "--allow-partial"]), out)
    }

    @Test func aPartialMergeIsMarkedAndNeverAPass() async throws {
        let directory = try TemporaryDirectory()
        let (result, out) = try await partialMerge(directory)
        #expect(result.status == .failure, "thresholds that held on 3 of 4 shards are not a pass: \(result.err)")
        let merged = try RunReport.read(path: out)
        #expect(merged.partial == true && merged.missingShards == [3] && merged.mergedShards == [1, 2, 4])
        #expect(!merged.passed)
        #expect(merged.thresholds.allSatisfy { $0.passed }, "each threshold is still judged on what was merged")
        #expect(merged.shard == nil, "a partial merge is no shard and not the whole run")
        #expect(merged.verdict == .partial(held: 4))
        #expect(
            result.out.hasPrefix("smoke: PARTIAL merge, missing shard 3 of 4 — PARTIAL: 4 thresholds held on 3 of 4 shards"),
            "\(result.out)")
    }

    @Test func everyFormatSaysSoOnItsFirstLine() async throws {
        let directory = try TemporaryDirectory()
        let (_, out) = try await partialMerge(directory)
        let json = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        #expect(json.prefix(3) == ["{", #"  "partial" : true,"#, #"  "missing_shards" : [3],"#], "\(json.prefix(3))")
        // CSV is rows of figures under a header that parsers read: no line can say anything else.
        for format in ReportFormat.allCases where format != .csv {
            let rendered = await runCommand(["report", out, "--format", format.rawValue])
            let first = rendered.out.split(separator: "\n").first.map(String.init) ?? ""
            let line = format == .json ? String(rendered.out.split(separator: "\n")[1]) : first
            #expect(line.contains(format == .json ? #""partial" : true"# : "PARTIAL merge, missing shard 3 of 4"), "\(format): \(first)")
        }
        let junit = await runCommand(["report", out, "--format", "junit"])
        #expect(junit.out.contains(#"<failure message="missing shard 3 of 4: the figures cover 3 of 4 shards"/>"#), "\(junit.out)")
        let markdown = await runCommand(["report", out, "--format", "markdown"])
        #expect(markdown.out.contains("**⚠️ partial: 4 thresholds held on 3 of 4 shards**"), "\(markdown.out)")
    }

    @Test func aPartialMergeWhoseThresholdsFailSaysBoth() async throws {
        var plan = ReportFixtures.plan
        plan.thresholds.append(Threshold(scope: .step(.submit), metric: .p50, comparison: .less, limit: 0.001, limitText: "1us"))
        let directory = try TemporaryDirectory()
        let (result, out) = try await partialMerge(directory, plan: plan)
        #expect(result.status == .failure)
        #expect(result.out.hasPrefix("smoke: PARTIAL merge, missing shard 3 of 4 — FAILED 1 of 5 thresholds"), "\(result.out)")
        let again = await runCommand([
            "merge", out, try writeShard(directory, 3, of: 4, plan: plan), "--out", directory.path + "/again.json",
        ])
        #expect(again.status == .validationFailure)
        #expect(again.err.contains("\(out) is a partial merge (missing shard 3 of 4): merge the shards' own reports"), "\(again.err)")
    }
}
