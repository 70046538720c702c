import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport

/// Every format lists steps in the journey's order, which a report keeps in `steps`; reports
/// written before it are read in the default journey's order.
@Suite struct StepOrderTests {
    /// The fixture report's JSON with `login` added as a step, and its `steps` given or left out.
    private func report(steps: [String]?, login: Bool = true) throws -> RunReport {
        var report = ReportFixtures.report()
        if login { report.stepReports["login"] = report.stepReports["questions"] }
        report.steps = steps
        let directory = try TemporaryDirectory()
        return try RunReport.read(path: try directory.write("r.json", report.jsonText()))
    }

    @Test func aReportWithoutStepsReadsInTheDefaultJourneysOrder() throws {
        let old = try report(steps: nil)
        #expect(old.steps == nil)
        #expect(old.stepNames == ["login", "questions", "submit"])
        #expect(
            TextReport.render(old).components(separatedBy: "\n").dropFirst(3).prefix(3).map { $0.prefix(11) } == [
                "  login    ", "  questions", "  submit   ",
            ])
    }

    @Test func aReportListsItsStepsInTheOrderItKeeps() throws {
        let report = try report(steps: ["submit", "login", "submit", "questions", "gone"])
        // Each once, and only those it has figures for.
        #expect(report.stepNames == ["submit", "login", "questions"])
        // A step the list leaves out still has its row, after the others.
        #expect(try self.report(steps: ["submit"]).stepNames == ["submit", "login", "questions"])
    }

    @Test func aStepOnlyTheNewRunHasGoesBeforeTheStepThatFollowsIt() throws {
        let base = try report(steps: ["questions", "submit"], login: false)
        let new = try report(steps: ["login", "questions", "submit"])
        #expect(RunReport.stepNames([base, new]) == ["login", "questions", "submit"])
        #expect(RunReport.stepNames([new, base]) == ["login", "questions", "submit"])
        let rows = ReportDiff(base: base, new: new, tolerances: .init()).rows.map(\.scope)
        #expect(rows.first == "login" && rows.last == "survey")
    }
}
