import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport

/// `survey-bot diff` on the command line: exit codes, options, help.
@Suite struct DiffCommandTests {
    @Test func noiseExitsZeroAndARegressionExitsOne() async throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write("a.json", SampledRun.report(seed: 11).jsonText())
        let b = try directory.write("b.json", SampledRun.report(seed: 12).jsonText())
        let slow = try directory.write("slow.json", SampledRun.report(seed: 13, latencyMs: 1.3...3.9).jsonText())
        let noise = await runCommand(["diff", a, b])
        #expect(noise.status == .success, "\(noise.out)")
        #expect(noise.out.contains("~ within noise"))
        let regression = await runCommand(["diff", a, slow])
        #expect(regression.status == .failure, "\(regression.out)")
        #expect(
            regression.out.split(separator: "\n").contains { $0.contains("submit") && $0.contains("p50") && $0.contains("REGRESSED (p") })
    }

    @Test func reportsOfDifferentPlansAreSaidToBeSoButStillCompared() async throws {
        // A diff across a plan change is legitimate (before and after a config change), but
        // its reader must know the figures may differ for that reason alone.
        let directory = try TemporaryDirectory()
        let report = ReportFixtures.report()
        var otherPlan = report
        otherPlan.planDigest = "sha256:" + String(repeating: "0", count: 64)
        let a = try directory.write("a.json", report.jsonText())
        let b = try directory.write("b.json", otherPlan.jsonText())
        let same = await runCommand(["diff", a, a])
        #expect(!same.out.contains("different plans"), "\(same.out)")
        let text = await runCommand(["diff", a, b])
        #expect(text.status == .success, "a plan change alone is no regression: \(text.out)")
        #expect(text.out.contains("the reports ran different plans (their plan_digest differs)"), "\(text.out)")
        let json = await runCommand(["diff", a, b, "--format", "json"])
        #expect(json.out.contains("\"different_plans\" : true"), "\(json.out)")
    }

    @Test func aPartialMergeIsNamedOnTheFirstLineAndIsNeverAPlainPass() async throws {
        let directory = try TemporaryDirectory()
        var partial = ReportFixtures.report()
        partial.partial = true
        partial.missingShards = [3]
        partial.mergedShards = [1, 2, 4]
        partial.shard = nil
        let whole = try directory.write("whole.json", ReportFixtures.report().jsonText())
        let merged = try directory.write("merged.json", partial.jsonText())
        // The same figures: nothing regressed, and still not a pass.
        let plain = await runCommand(["diff", whole, whole])
        #expect(plain.status == .success)
        let text = await runCommand(["diff", whole, merged])
        #expect(text.status == .failure, "\(text.out)")
        let first = text.out.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("diff: PARTIAL merge: \(merged) is missing shard 3 of 4 — "), "\(first)")
        #expect(text.out.contains("no regressions, but not a pass: \(merged) is a partial merge (missing shard 3 of 4)"), "\(text.out)")
        let markdown = await runCommand(["diff", merged, whole, "--format", "markdown"])
        #expect(markdown.status == .failure)
        #expect(
            markdown.out.hasPrefix("## survey-bot diff — ⚠️ PARTIAL merge: `\(merged)` is missing shard 3 of 4\n"), "\(markdown.out)")
        let json = await runCommand(["diff", whole, merged, "--format", "json"])
        #expect(json.status == .failure)
        let lines = json.out.split(separator: "\n").map(String.init)
        #expect(lines.count > 2 && lines[1].hasPrefix(#"  "partial" : ["#), "\(lines.prefix(3))")
        let value = try JSONValue.parse(Array(json.out.utf8)).get()
        guard case .array(let parts)? = value["partial"] else {
            Issue.record("no partial list")
            return
        }
        #expect(parts.first?["report"] == .string("new"))
        #expect(parts.first?["missing_shards"] == .array([.integer(3)]))
        #expect(value["passed"] == .bool(false))
    }

    @Test func toleranceTakesAnyNonNegativePercentage() async throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write("a.json", ReportFixtures.report().jsonText())
        let b = try directory.write("b.json", ReportFixtures.report(metrics: ReportFixtures.metrics(submitLatencyScale: 1.3)).jsonText())
        let loose = await runCommand(["diff", a, b, "--tolerance", "150%"])
        #expect(loose.status == .success, "\(loose.err)")
        #expect(loose.out.contains("tolerance 150%"))
        let perMetric = await runCommand(["diff", a, b, "--tolerance", "200%", "--tolerance", "submit.p50=0%"])
        #expect(perMetric.status == .failure)
        let bare = await runCommand(["diff", a, b, "--tolerance", "1.5"])
        #expect(bare.status == .validationFailure)
        #expect(bare.err.contains("--tolerance 1.5: a bare number is a fraction from 0 to 1: write 150%"))
        let negative = await runCommand(["diff", a, b, "--tolerance", "-5%"])
        #expect(negative.status == .validationFailure)
        #expect(negative.err.contains("--tolerance -5%: must not be negative"))
    }

    @Test func confidenceIsAPercentageBelowAHundred() async throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write("a.json", ReportFixtures.report().jsonText())
        let strict = await runCommand(["diff", a, a, "--confidence", "99%"])
        #expect(strict.status == .success)
        #expect(strict.out.contains("confidence 99%"))
        for bad in ["100%", "0", "high"] {
            let result = await runCommand(["diff", a, a, "--confidence", bad])
            #expect(result.status == .validationFailure, "\(bad)")
            #expect(result.err.contains("--confidence \(bad):"), "\(result.err)")
        }
    }

    @Test func helpShowsTheExitCodesOfDiff() async {
        let help = await runCommand(["diff", "--help"])
        #expect(help.status == .success)
        #expect(help.out.contains("EXIT CODES:"))
        #expect(help.out.contains("0  no regression"))
        #expect(help.out.contains("1  a regression"))
        #expect(help.out.contains("--confidence <confidence>"))
        #expect(!help.out.contains("threshold failed"))
        #expect(!help.out.contains("interrupted"))
    }
}
