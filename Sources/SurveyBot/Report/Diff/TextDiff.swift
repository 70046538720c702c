/// A diff as an aligned table for a terminal or a CI log.
enum TextDiff: DiffRenderer {
    static func render(_ diff: ReportDiff) -> String {
        var lines = [
            "diff: \(diff.partialText().map { "\($0) — " } ?? "")\(diff.basePath) → \(diff.newPath) (tolerance \(Readable.percent(diff.tolerances.default)), "
                + "confidence \(Readable.percent(diff.confidence)))"
        ]
        let header = ["step", "metric", "base", "new", "change", "verdict"]
        var table = [header]
        for row in diff.rows {
            // What fails the diff stands out in capitals, as in the report's FAIL lines.
            let failing = row.verdict == .regressed || row.verdict == .missing
            let verdict = failing ? row.verdictText.uppercasedFirstWord : row.verdictText
            table.append([row.scope, row.metric, row.baseText, row.newText, row.changeText, verdict])
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
        if let questions = diff.questionsText {
            lines.append("questions: " + questions)
            let moved = diff.movedQuestions
            if !moved.isEmpty { lines += aligned([QuestionChange.columns] + moved.map(\.cells), leftColumns: [0, 4, 5]) }
        }
        lines.append("[a, b]: where each figure lies at \(Readable.percent(diff.confidence)) confidence; ~: no change that counts")
        lines.append(diff.summary)
        // What report files and their names hold reaches a terminal: control characters shown, not acted on.
        return lines.map { TerminalText.escaped($0) }.joined(separator: "\n") + "\n"
    }
}

extension TextDiff {
    /// `table`'s rows as lines of aligned columns, indented: numbers to the right, the columns
    /// of `leftColumns` to the left.
    static func aligned(_ table: [[String]], leftColumns: Set<Int>) -> [String] {
        let widths = (0..<(table.first?.count ?? 0)).map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { row in
            var line =
                "  "
                + row.enumerated().map { index, cell in
                    let fill = String(repeating: " ", count: widths[index] - cell.count)
                    return leftColumns.contains(index) ? cell + fill : fill + cell
                }.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}

extension String {
    /// `REGRESSED (p=0.002)` from `regressed (p=0.002)`: the first word in capitals.
    fileprivate var uppercasedFirstWord: String {
        guard let space = firstIndex(of: " ") else { return uppercased() }
        return self[..<space].uppercased() + self[space...]
    }
}
