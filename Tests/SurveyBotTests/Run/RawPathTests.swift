import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// `--raw` empties the file it is given: never the plan being run, its data file or a file of
/// the run's own report, however the path is spelt.
@Suite struct RawPathTests {
    @Test func theRunsOwnInputsAndReportsAreRefusedAsTheRawFile() async throws {
        let directory = try TemporaryDirectory()
        let data = try directory.write("members.csv", "member\na\nb\n")
        let planText = lines(
            "name: clash", "target: builtin", "respondents: 1", "data: members.csv", "answers:", "  \"*\": yes",
            "api:", "  headers:", "    X-Member: ${row.member}")
        let plan = try directory.write("clash.plan", planText)
        let out = directory.path + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let cases: [(raw: String, says: String)] = [
            (plan, "is the plan being run"),
            (directory.path + "/out/../clash.plan", "is the plan being run"),
            (data, "is the plan's data file"),
            (out + "/clash-latest.json", "is where this run writes its json report"),
            (out + "/clash-20261126T003000Z.md", "is where this run writes its markdown report"),
        ]
        for (raw, says) in cases {
            let result = await runCommand(["run", plan, "--out", out, "--format", "json,markdown", "--raw", raw, "--quiet"])
            #expect(result.status == .validationFailure, "\(raw): \(result.err)")
            #expect(result.err.contains("--raw \(raw): \(says)"), "\(raw): \(result.err)")
        }
        #expect(try String(contentsOfFile: plan, encoding: .utf8) == planText)
        #expect(try String(contentsOfFile: data, encoding: .utf8) == "member\na\nb\n")
        // A file of its own is taken, and named with the reports, with the lines written in it.
        let fine = await runCommand(["run", plan, "--out", out, "--raw", out + "/clash.jsonl"])
        #expect(fine.status == .success, "\(fine.err)")
        let written = try String(contentsOfFile: out + "/clash.jsonl", encoding: .utf8).split(separator: "\n").count
        #expect(written > 0 && fine.out.contains("attempts: \(out)/clash.jsonl (\(written) lines)\n"), "\(fine.out)")
    }
}
