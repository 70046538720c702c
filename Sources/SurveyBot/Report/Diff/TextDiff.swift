/// A diff as an aligned table for a terminal or a CI log.
enum TextDiff: DiffRenderer {
    static func render(_ diff: ReportDiff) -> String {
        var lines = ["diff: \(diff.basePath) → \(diff.newPath) (tolerance \(Readable.percent(diff.tolerances.default)))"]
        let header = ["endpoint", "metric", "base", "new", "change", "verdict"]
        var table = [header]
        for row in diff.rows {
            table.append([
                row.endpoint, row.metric, ReportDiff.Row.format(row.base, row.unit), ReportDiff.Row.format(row.new, row.unit),
                row.changeText, row.verdict == .same ? "same" : row.verdict.rawValue.uppercased(),
            ])
        }
        let widths = (0..<header.count).map { column in table.map { $0[column].count }.max() ?? 0 }
        for line in table {
            let cells = line.enumerated().map { index, cell in
                let fill = String(repeating: " ", count: widths[index] - cell.count)
                return index < 2 || index == 5 ? cell + fill : fill + cell
            }
            var line = "  " + cells.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
        }
        lines.append(diff.summary)
        return lines.joined(separator: "\n") + "\n"
    }
}
