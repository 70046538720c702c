import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// The JSON report is the source of truth (`report`, `diff` and `merge` read it): whatever
/// formats are asked for, it is written too, as k6's and Gatling's machine-readable files are.
@Suite struct JSONReportAlwaysWrittenTests {
    private static let plan = """
        name: formats
        target: builtin
        respondents: 2
        concurrency: 2
        answers:
          "*": fine
        builtin:
          questions: 2
        """

    @Test(arguments: [
        (["--format", "markdown"], "", ["formats-latest.json", "formats-latest.md"]),
        (["--format", "text,junit"], "", ["formats-latest.json", "formats-latest.txt", "formats-latest.xml"]),
        ([], "report:\n  formats: [markdown]\n", ["formats-latest.json", "formats-latest.md"]),
    ])
    func theJSONReportIsWrittenWhateverTheFormats(options: [String], planLines: String, latest: [String]) async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("formats.plan", Self.plan + "\n" + planLines)
        let out = directory.path + "/out"
        let result = await runCommand(["run", plan, "--out", out] + options)
        #expect(result.status == .success, "\(result.err)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(files.filter { $0.contains("-latest.") }.sorted() == latest)
        #expect(result.out.contains("report: \(out)/formats-") && result.out.contains("Z.json\n"), "\(result.out)")
        _ = try RunReport.read(path: out + "/formats-latest.json")
    }

    @Test func theHelpSaysSo() async {
        // The help is wrapped to the terminal's width: read it as one line.
        let help = await runCommand(["run", "--help"]).out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("JSON is always written"), "\(help)")
    }
}
