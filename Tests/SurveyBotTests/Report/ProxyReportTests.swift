import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// The report's `plan.proxy`: read back, carried through a merge, and refused by every reader
/// when it shows credentials, which no run writes.
@Suite struct ProxyReportTests {
    @Test func aProxyShowingItsCredentialsIsRefusedByEveryReaderWithoutRepeatingThem() async throws {
        var report = ReportFixtures.report()
        report.plan.proxy = "http://mallory:opensesame@proxy.test:3128 (from HTTPS_PROXY)"
        try await ReportInputTests().expectRefusedByEveryReader(report, naming: "'plan.proxy'")
        let directory = try TemporaryDirectory()
        let path = try directory.write("hostile.json", report.jsonText())
        let result = await runCommand(["report", path, "--format", "text"])
        #expect(!result.err.contains("opensesame") && !result.err.contains("mallory"), "\(result.err)")
    }

    @Test func aProxyAsARunWritesItIsReadAndMerged() async throws {
        let directory = try TemporaryDirectory()
        for shown in [
            "http://***@proxy.test:3128 (from --proxy)", "http://proxy.test:3128 (from the plan)",
            "each respondent's own, from the data file's column 'a@b'", "none: NO_PROXY lists the target's host",
        ] {
            var report = ReportFixtures.report()
            report.plan.proxy = shown
            let path = try directory.write("run.json", report.jsonText())
            #expect(try RunReport.read(path: path).plan.proxy == shown)
        }
        // Absent in reports of versions before proxies: read as none.
        var old = ReportFixtures.report()
        old.plan.proxy = nil
        let path = try directory.write("old.json", old.jsonText())
        #expect(try RunReport.read(path: path).plan.proxy == nil)
        #expect(!(try String(contentsOfFile: path, encoding: .utf8)).contains("\"proxy\""))
    }
}
