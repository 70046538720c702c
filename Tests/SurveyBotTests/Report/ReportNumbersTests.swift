import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport

/// Every number a report or a diff writes is a JSON number or `null`: a figure with no samples is
/// `null`, a value that is not finite never reaches the encoder, and a document that cannot be
/// encoded is an error — never an empty file or an empty output.
@Suite struct ReportNumbersTests {
    @Test func aFigureWithNoSamplesIsWrittenAsNull() throws {
        // Nothing was sent at all: no latency to summarise, no rate to judge a threshold on.
        let report = ReportFixtures.report(metrics: RunMetrics())
        let text = try report.jsonText()
        guard case .success(let json) = JSONValue.parse(Array(text.utf8)) else {
            Issue.record("not JSON: \(text)")
            return
        }
        for name in ["questions", "submit"] {
            #expect(json["endpoints"]?[name]?["latency_ms"] == .null, "\(name)")
            #expect(json["endpoints"]?[name]?["service_latency_ms"] == .null, "\(name)")
        }
        guard case .array(let thresholds)? = json["thresholds"] else {
            Issue.record("no thresholds in \(text)")
            return
        }
        #expect(!thresholds.isEmpty)
        for threshold in thresholds { #expect(threshold["actual"] == .null, "\(threshold)") }
        // Read back, the nulls are the same figures: nothing to show.
        let directory = try TemporaryDirectory()
        let back = try RunReport.read(path: directory.write("empty.json", text))
        #expect(back == report)
        #expect(RunFigures(back).perStep["submit"]?.latency == nil)
        let submitLine = TextReport.render(back).split(separator: "\n").first { $0.hasPrefix("  submit") }
        #expect(submitLine?.contains("ms") == false, "\(String(describing: submitLine))")
    }

    @Test func aNumberThatIsNotFiniteIsAnErrorNamingItsField() {
        var report = ReportFixtures.report()
        report.durationS = .nan
        #expect {
            _ = try report.jsonText()
        } throws: { error in
            "\(error)".contains("duration_s") && "\(error)".contains("not a finite number")
        }
    }

    @Test func aReportThatCannotBeEncodedLeavesNoFileBehind() throws {
        let directory = try TemporaryDirectory()
        var report = ReportFixtures.report()
        report.throughput.attemptsPerS = .infinity
        let output = ReportOutput(directory: directory.path, formats: [.markdown, .json], shard: .whole)
        try output.prepare(name: "smoke")
        output.finish(report, started: Date(timeIntervalSince1970: 1_795_000_000))
        output.stop()
        #expect(output.failure?.description.contains("throughput.attempts_per_s") == true, "\(String(describing: output.failure))")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".json") || $0.contains("tmp")
        }
        #expect(left.isEmpty, "\(left)")
    }

    /// Two shards whose latency sums add up past the largest `Double`: the merged mean would be
    /// infinite. Today's answer was a one-byte report and exit 0.
    @Test func mergeNeverWritesAnEmptyReport() async throws {
        let directory = try TemporaryDirectory()
        var paths: [String] = []
        for index in 1...2 {
            var report = ReportFixtures.report(shard: Shard(index: index, count: 2))
            report.stepReports["submit"]?.correctedHistogram.sum = 1e308
            paths.append(try directory.write("shard\(index).json", report.jsonText()))
        }
        let out = directory.missing("merged.json")
        let result = await runCommand(["merge"] + paths + ["--out", out])
        #expect(result.status == .validationFailure, "\(result.err)")
        #expect(result.err.contains("shard1.json") && result.err.contains("histogram"), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A base latency so small that the relative change overflows: `diff --format json` printed
    /// nothing at all.
    @Test func jsonDiffIsNeverEmpty() async throws {
        let directory = try TemporaryDirectory()
        var base = ReportFixtures.report()
        base.stepReports["submit"]?.correctedLatencyMs?.p50 = .leastNonzeroMagnitude
        let basePath = try directory.write("base.json", base.jsonText())
        let newPath = try directory.write("new.json", ReportFixtures.report().jsonText())
        let result = await runCommand(["diff", basePath, newPath, "--format", "json"])
        guard case .success(let json) = JSONValue.parse(Array(result.out.utf8)) else {
            Issue.record("not JSON: '\(result.out)' \(result.err)")
            return
        }
        guard case .array(let rows)? = json["rows"] else {
            Issue.record("no rows: \(result.out)")
            return
        }
        let row = rows.first { $0["endpoint"] == .string("submit") && $0["metric"] == .string("p50") }
        // No relative change can be told from a base of almost nothing: null. The histograms
        // behind both p50s are the same, so the change is within noise, not a regression.
        #expect(row?["change_percent"] == .null, "\(String(describing: row))")
        #expect(row?["verdict"] == .string("same") && row?["reason"] == .string("within_noise"), "\(String(describing: row))")
        #expect(result.status == .success)
    }
}
