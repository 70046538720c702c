/// A diff as a Markdown table, for a pull-request comment or a job summary.
enum MarkdownDiff: DiffRenderer {
    static func render(_ diff: ReportDiff) -> String {
        var lines = [
            "## survey-bot diff" + (diff.partialText(path: { MarkdownText.code($0) }).map { " — ⚠️ " + $0 } ?? ""), "",
            "\(MarkdownText.code(diff.basePath)) → \(MarkdownText.code(diff.newPath)) — tolerance \(Readable.percent(diff.tolerances.default)), "
                + "confidence \(Readable.percent(diff.confidence))",
            "", "| step | metric | base | new | change | verdict |",
        ]
        lines.append("|---|---|---:|---:|---:|---|")
        for row in diff.rows {
            let mark =
                switch row.verdict {
                case .regressed, .missing: "❌ \(row.verdictText)"
                case .improved: "✅ \(row.verdictText)"
                case .added: "➕ added"
                case .same: row.verdictText
                }
            lines.append(
                "| \(MarkdownText.text(row.scope)) | \(row.metric) | \(row.baseText) | \(row.newText) | \(row.changeText) | \(mark) |")
        }
        if let questions = diff.questionsText {
            lines += ["", "### Questions", "", questions.prefix(1).uppercased() + questions.dropFirst() + "."]
            let moved = diff.movedQuestions
            if !moved.isEmpty {
                lines += ["", "| " + QuestionChange.columns.joined(separator: " | ") + " |", "|---|---:|---:|---:|---|---|"]
                for change in moved {
                    lines.append("| " + change.cells.map { MarkdownText.text($0) }.joined(separator: " | ") + " |")
                }
            }
        }
        lines += [
            "",
            "[a, b]: where each figure lies at \(Readable.percent(diff.confidence)) confidence; ~: no change that counts, and why "
                + "(`within noise`: not significant; `too few samples`: the fewest each run needs).",
            "", "**\(MarkdownText.text(diff.summary))**",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
