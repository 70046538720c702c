/// A diff as one self-contained HTML page: the verdict and the regressions first, the two runs'
/// charts overlaid (the base dashed, the new solid; a chart whose figures regressed is framed
/// in red), then the table of every figure.
enum HTMLDiff: DiffRenderer {
    static func render(_ diff: ReportDiff) -> String {
        var html: [String] = ["<h1>survey-bot diff</h1>"]
        html.append(
            "<p class=\"meta\"><code>\(XMLText.escape(diff.basePath))</code> (base, dashed) → "
                + "<code>\(XMLText.escape(diff.newPath))</code> (new, solid) — tolerance "
                + "\(XMLText.escape(Readable.percent(diff.tolerances.default))), confidence "
                + "\(XMLText.escape(Readable.percent(diff.confidence)))</p>")
        html.append("<p class=\"verdict \(diff.regressions.isEmpty ? "ok" : "bad")\">\(XMLText.escape(diff.summary))</p>")
        if !diff.regressions.isEmpty {
            html.append("<h2>Regressions</h2>")
            html.append(table(diff.regressions))
        }
        let runs = TimelineCharts(runs: [
            .init(report: diff.baseReport, label: "base", dashed: true), .init(report: diff.newReport, label: "new", dashed: false),
        ])
        html.append(HTMLReport.charts(runs) { key in regressed(key, diff) })
        html.append("<h2>Every figure</h2>")
        html.append(table(diff.rows))
        if let questions = diff.questionsText {
            html.append(
                "<h2>Questions</h2><p class=\"note\">\(XMLText.escape(questions.prefix(1).uppercased() + questions.dropFirst())): "
                    + "how often each was shown, answered and refused, and how far its answers moved.</p>")
            let moved = diff.movedQuestions
            if !moved.isEmpty {
                html.append(HTMLPage.table(QuestionChange.columns, moved.map { $0.cells.map(XMLText.escape) }, numeric: [1, 2, 3]))
            }
        }
        html.append(
            "<p class=\"note\">[a, b]: where each figure lies at \(XMLText.escape(Readable.percent(diff.confidence))) confidence; "
                + "~: no change that counts, and why.</p>")
        return HTMLPage.document(title: "survey-bot diff", body: html.joined(separator: "\n"))
    }

    /// Whether the figures a chart shows regressed: a step's latencies for its latency
    /// chart and the distribution, rates for the attempts and errors charts.
    static func regressed(_ chart: String, _ diff: ReportDiff) -> Bool {
        diff.regressions.contains { row in
            switch chart {
            case "latency.\(row.scope)", "distribution": row.unit == .ms
            case "attempts", "errors": row.unit == .ratio || row.unit == .perSecond
            case "retries": row.metric.contains("retr")
            default: false
            }
        }
    }

    static func table(_ rows: [ReportDiff.Row]) -> String {
        HTMLPage.table(
            ["step", "metric", "base", "new", "change", "verdict"],
            rows.map { row in
                let mark =
                    switch row.verdict {
                    case .regressed, .missing: "✗ \(row.verdictText)"
                    case .improved: "✓ \(row.verdictText)"
                    case .added: "+ added"
                    case .same: row.verdictText
                    }
                return [row.scope, row.metric, row.baseText, row.newText, row.changeText, mark].map(XMLText.escape)
            }, numeric: [2, 3, 4],
            rowClasses: rows.map { row in
                switch row.verdict {
                case .regressed, .missing: "regressed"
                case .improved: "improved"
                default: nil
                }
            })
    }
}
