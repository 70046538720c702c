import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport

/// Every report says which run it belongs to (`run_id`), which shard of it it is (`shard`), and
/// which plan it ran (`plan_digest`), so that `merge` can check what it is given.
@Suite struct RunIdentityTests {
    @Test func aReportCarriesItsRunShardAndPlanDigest() throws {
        let report = ReportFixtures.report(shard: Shard(index: 2, count: 3), runID: "job-7f3a")
        let value = try JSONValue.parse(Array(report.jsonText().utf8)).get()
        #expect(value["run_id"] == .string("job-7f3a"))
        #expect(value["shard"]?["index"] == .integer(2))
        #expect(value["shard"]?["count"] == .integer(3))
        #expect(value["plan_digest"] == .string(ReportFixtures.plan.digest))
        #expect(ReportFixtures.plan.digest.hasPrefix("sha256:") && ReportFixtures.plan.digest.count == 7 + 64)
        let whole = try JSONValue.parse(Array(ReportFixtures.report().jsonText().utf8)).get()
        #expect(whole["shard"]?["index"] == .integer(1) && whole["shard"]?["count"] == .integer(1), "an unsharded run is shard 1 of 1")
        #expect(whole["partial"] == nil && whole["missing_shards"] == nil, "only a merge says whether it is partial")
    }

    @Test func aReportOfAnEarlierVersionIsStillRead() throws {
        // Before run ids, a shard was the string "i/n" and a whole run had none.
        let report = ReportFixtures.report(shard: Shard(index: 2, count: 3))
        var text = try report.jsonText()
        text = text.replacingOccurrences(of: #""run_id" : "fixture-run","#, with: "")
        text.replace(#/"shard" : \{\s*"count" : 3,\s*"index" : 2\s*\}/#, with: #""shard" : "2/3""#)
        text.replace(#/"plan_digest" : "[^"]*",/#, with: "")
        #expect(!text.contains("run_id") && !text.contains("plan_digest") && text.contains(#""shard" : "2/3""#))
        let directory = try TemporaryDirectory()
        let old = try RunReport.read(path: try directory.write("old.json", text))
        #expect(old.runID == nil && old.planDigest == nil)
        #expect(old.shard == RunReport.ShardRecord(index: 2, count: 3))
        let bad = text.replacingOccurrences(of: #""shard" : "2/3""#, with: #""shard" : "4/3""#)
        #expect(throws: RunReport.ReadError.self) { try RunReport.read(path: try directory.write("bad.json", bad)) }
    }

    private static let plan = """
        name: identity
        target: builtin
        respondents: 4
        concurrency: 2
        seed: 3
        api:
          headers:
            Authorization: Bearer ${TOKEN}
        answers:
          "*": fine
        builtin:
          questions: 2
        """

    /// Runs the plan in-process (against the builtin server on loopback) and reads its report.
    private func run(
        _ directory: TemporaryDirectory, _ name: String, _ options: [String], token: String = "first", plan text: String = Self.plan
    ) async throws
        -> RunReport
    {
        let plan = try directory.write("\(name).plan", text)
        let out = directory.path + "/" + name
        let result = await runCommand(
            ["run", plan, "--out", out, "--quiet", "--format", "json"] + options, environment: ["TOKEN": token])
        #expect(result.status == .success, "\(result.err)")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first { $0.hasSuffix("-latest.json") })
        return try RunReport.read(path: out + "/" + file)
    }

    @Test func eachRunGetsAnIdOfItsOwnUnlessGivenOne() async throws {
        let directory = try TemporaryDirectory()
        let one = try await run(directory, "one", [])
        let two = try await run(directory, "two", [])
        let first = try #require(one.runID)
        #expect(first != two.runID)
        #expect(UUID(uuidString: first) != nil && first == first.lowercased(), "a generated id is a random UUID: \(first)")
        let given = try await run(directory, "given", ["--run-id", "gh-4242-1"])
        #expect(given.runID == "gh-4242-1")
    }

    @Test func theShardsOfOneRunShareItsIdAndPlanDigest() async throws {
        let directory = try TemporaryDirectory()
        let one = try await run(directory, "s1", ["--run-id", "k8s-uid-1", "--shard", "1/2"])
        // Another machine: another secret in the environment, the same plan.
        let two = try await run(directory, "s2", ["--run-id", "k8s-uid-1", "--shard", "2/2"], token: "second")
        #expect(one.runID == "k8s-uid-1" && two.runID == "k8s-uid-1")
        #expect(one.shard == RunReport.ShardRecord(index: 1, count: 2))
        #expect(two.shard == RunReport.ShardRecord(index: 2, count: 2))
        let digest = try #require(one.planDigest)
        #expect(two.planDigest == digest)
        let other = try await run(directory, "other", ["--run-id", "k8s-uid-1", "--shard", "2/2", "--concurrency", "1"])
        #expect(other.planDigest != digest, "an override is part of the plan as run")
    }

    @Test func withoutASeedTheShardsOfOneRunDrawTheSeedOfItsRunId() async throws {
        let directory = try TemporaryDirectory()
        let unseeded = Self.plan.replacingOccurrences(of: "seed: 3\n", with: "")
        let one = try await run(directory, "u1", ["--run-id", "k8s-uid-2", "--shard", "1/2"], plan: unseeded)
        let two = try await run(directory, "u2", ["--run-id", "k8s-uid-2", "--shard", "2/2"], plan: unseeded)
        // Pinned (see below): two machines draw the same seed, not only two shards in this process.
        #expect(one.seed == 883_507)
        #expect(two.seed == 883_507, "one run, one seed")
        let merged = try RunReport.merged([("u1.json", one), ("u2.json", two)])
        #expect(merged.seed == one.seed)
        // A plan's seed wins; another run id is another seed.
        let seeded = try await run(directory, "s", ["--run-id", "k8s-uid-2"])
        #expect(seeded.seed == 3)
        #expect(RunReport.seed(derivedFrom: "k8s-uid-3") == 871_386)
    }

    @Test func aSeedDerivedFromARunIdIsStableAndSmall() {
        // Pinned: a run id gives the same seed in every version, on every machine. The value is
        // the first 8 bytes of SHA-256("survey-bot seed " + run id), big-endian, mod 1 000 000,
        // computed apart from survey-bot (`printf 'survey-bot seed gh-4242-1' | sha256sum`).
        #expect(RunReport.seed(derivedFrom: "gh-4242-1") == 14_073)
        #expect(RunReport.seed(derivedFrom: "k8s-uid-2") == 883_507)
        let seeds = Set((0..<200).map { RunReport.seed(derivedFrom: "run-\($0)") })
        #expect(seeds.count > 190)
        #expect(seeds.allSatisfy { $0 <= 999_999 })
    }

    @Test func aShardWithoutARunIdIsWarnedThatItCannotBeMerged() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("identity.plan", Self.plan)
        let alone = await runCommand(
            ["run", plan, "--out", directory.path + "/a", "--quiet", "--shard", "1/2"], environment: ["TOKEN": "t"])
        #expect(alone.status == .success)
        #expect(
            alone.err.contains(
                "warning: --shard 1/2 without --run-id: this shard's reports name a run of their own, and merge will refuse them beside other shards; give every shard the same --run-id"
            ),
            "\(alone.err)")
        let given = await runCommand(
            ["run", plan, "--out", directory.path + "/b", "--quiet", "--shard", "1/2", "--run-id", "r"], environment: ["TOKEN": "t"])
        #expect(given.err.isEmpty, "\(given.err)")
    }

    /// A shard beyond the plan's respondents starts none, and its run fails as one that
    /// completed none: the warning says why. Shards that have respondents are not warned.
    @Test func aShardWithNothingToDoIsToldWhy() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("identity.plan", Self.plan)
        let idle = await runCommand(
            ["run", plan, "--out", directory.path + "/a", "--quiet", "--shard", "5/5", "--run-id", "r"], environment: ["TOKEN": "t"])
        #expect(idle.status == .failure)
        #expect(idle.err.contains("warning: --shard 5/5 has no respondents: the plan's 4 go to the shards in turn"), "\(idle.err)")
        let busy = await runCommand(
            ["run", plan, "--out", directory.path + "/b", "--quiet", "--shard", "4/5", "--run-id", "r"], environment: ["TOKEN": "t"])
        #expect(busy.status == .success)
        #expect(busy.err.isEmpty, "\(busy.err)")
    }

    @Test func aRunIdThatIsNotAnIdIsRefusedBeforeAnyTraffic() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("identity.plan", Self.plan)
        for bad in ["", "has space", String(repeating: "x", count: 129), "semi;colon"] {
            let result = await runCommand(["run", plan, "--out", directory.path, "--run-id", bad], environment: ["TOKEN": "t"])
            #expect(result.status == .validationFailure, "'\(bad)'")
            #expect(result.err.contains("--run-id"), "\(result.err)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["identity.plan"], "nothing written")
        }
    }
}
