import SurveyEngine

/// A diff as JSON, for scripts: both paths, the regression count and every row, in the style of
/// the JSON report (keys sorted; a figure that is not there is `null`).
enum JSONDiff: DiffRenderer {
    private struct Document: Encodable {
        var base: String
        var new: String
        var regressions: Int
        var rows: [ReportDiff.Row]
    }

    static func render(_ diff: ReportDiff) throws(JSONEncodingError) -> String {
        try JSONValue.text(
            of: Document(base: diff.basePath, new: diff.newPath, regressions: diff.regressions.count, rows: diff.rows))
    }
}
