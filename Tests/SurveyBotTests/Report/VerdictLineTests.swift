import Testing

@testable import SurveyBot

/// The first line of the text and Markdown reports counts thresholds in plain English.
@Suite struct VerdictLineTests {
    private static func report(_ thresholds: KeyValuePairs<String, String>) throws -> RunReport {
        var plan = ReportFixtures.plan
        plan.thresholds = try PlanLoader.thresholds(thresholds)
        return ReportFixtures.report(plan: plan)
    }

    @Test func oneThresholdIsCountedInTheSingular() throws {
        let passed = try Self.report(["submit.success_rate": ">= 0%"])
        #expect(TextReport.verdict(passed) == "passed 1 threshold")
        #expect(MarkdownReport.verdict(passed) == "✅ passed 1 threshold")
        let failed = try Self.report(["submit.retries": "< 0"])
        #expect(TextReport.verdict(failed) == "FAILED 1 of 1 threshold")
        #expect(MarkdownReport.verdict(failed) == "❌ failed 1 of 1 threshold")
    }

    @Test func moreThresholdsAreCountedInThePlural() throws {
        let passed = try Self.report(["submit.success_rate": ">= 0%", "questions.success_rate": ">= 0%"])
        #expect(TextReport.verdict(passed) == "passed 2 thresholds")
        let failed = try Self.report(["submit.success_rate": ">= 0%", "submit.retries": "< 0"])
        #expect(TextReport.verdict(failed) == "FAILED 1 of 2 thresholds")
        #expect(MarkdownReport.verdict(failed) == "❌ failed 1 of 2 thresholds")
    }
}
