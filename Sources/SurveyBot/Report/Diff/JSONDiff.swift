import SurveyEngine
import SurveyJourney

/// A diff as JSON, for scripts: both paths, the confidence and default tolerance, the
/// regression count and every row with its intervals, p-value, verdict and reason, in the style
/// of the JSON report (keys sorted; a figure that is not there is `null`).
enum JSONDiff: DiffRenderer {
    private struct Document: Encodable {
        /// Present only when a report is a partial merge; written first.
        var partial: [ReportDiff.PartialReport]?
        /// False when anything regressed or a report is a partial merge: the exit code's verdict.
        var passed: Bool
        var base: String
        var new: String
        var confidence: Double
        var tolerance: Double
        var regressions: Int
        var tooFewSamples: Int
        /// Whether the reports' `plan_digest`s differ.
        var differentPlans: Bool
        var rows: [ReportDiff.Row]
        /// How each question's figures moved; absent when neither report has them.
        var questions: [QuestionChange]?

        enum CodingKeys: String, CodingKey {
            case partial, passed, base, new, confidence, tolerance, regressions, rows, questions
            case tooFewSamples = "too_few_samples"
            case differentPlans = "different_plans"
        }
    }

    static func render(_ diff: ReportDiff) throws(JSONEncodingError) -> String {
        try JSONValue.text(
            of: Document(
                partial: diff.partialReports.isEmpty ? nil : diff.partialReports, passed: diff.passed, base: diff.basePath,
                new: diff.newPath, confidence: diff.confidence, tolerance: diff.tolerances.default,
                regressions: diff.regressions.count, tooFewSamples: diff.tooFewSamples.count,
                differentPlans: diff.differentPlans, rows: diff.rows, questions: diff.questions.isEmpty ? nil : diff.questions),
            first: diff.partialReports.isEmpty ? [] : ["partial"])
    }
}
