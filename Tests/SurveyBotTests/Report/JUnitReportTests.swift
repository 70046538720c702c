import Foundation
import Testing

@testable import SurveyBot

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite struct JUnitReportTests {
    /// A report read back from JSON may carry any text: a plan's name, the threshold that stopped
    /// the run. Control characters XML forbids and markup in them must not break the document
    /// Jenkins or GitLab parses.
    @Test func hostileTextStillGivesWellFormedXML() throws {
        var report = ReportFixtures.report()
        report.name = "smoke\u{1}<&\"'>\u{7F}\u{FFFE}"
        report.stoppedBy = RunReport.stoppedByThresholdCause
        report.stoppedByThreshold = "submit.p95 < 1ms \u{1B}[31m\u{0}"
        let junit = JUnitReport.render(report)
        let parser = XMLParser(data: Data(junit.utf8))
        #expect(parser.parse(), "not well-formed at line \(parser.lineNumber): \(parser.parserError.map { "\($0)" } ?? "")\n\(junit)")
        #expect(junit.contains("name=\"smoke\u{FFFD}&lt;&amp;&quot;&#39;&gt;\u{FFFD}\u{FFFD}\""))
        #expect(junit.contains("stopped early: submit.p95 &lt; 1ms \u{FFFD}[31m\u{FFFD} failed"))
    }
}
