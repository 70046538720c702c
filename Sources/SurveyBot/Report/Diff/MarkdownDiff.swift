/// A diff as a Markdown table, for a pull-request comment or a job summary.
enum MarkdownDiff: DiffRenderer {
    static func render(_ diff: ReportDiff) -> String {
        var lines = [
            "## survey-bot diff", "", "`\(diff.basePath)` → `\(diff.newPath)`", "", "| endpoint | metric | base | new | change | verdict |",
        ]
        lines.append("|---|---|---:|---:|---:|---|")
        for row in diff.rows {
            let mark =
                switch row.verdict {
                case .regressed, .missing: "❌ \(row.verdict.rawValue)"
                case .improved: "✅ improved"
                case .added: "➕ added"
                case .same: "same"
                }
            lines.append(
                "| \(row.endpoint) | \(row.metric) | \(ReportDiff.Row.format(row.base, row.unit)) | \(ReportDiff.Row.format(row.new, row.unit)) "
                    + "| \(row.changeText) | \(mark) |")
        }
        lines += ["", "**\(diff.summary)**"]
        return lines.joined(separator: "\n") + "\n"
    }
}
