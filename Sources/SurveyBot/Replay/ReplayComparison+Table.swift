/// The replay's verdict as printed: a table of the steps, then the first divergence and the
/// value that probably needed a capture.
extension ReplayComparison {
    /// The table, a line a row: step, recorded status, replayed status, shape. Steps are labelled
    /// as the table says them (`page #2`); nothing of a request or a body but its shape is shown.
    var table: [String] {
        let header = ["step", "recorded", "replayed", "shape"]
        var cells = rows.map { row in
            [TerminalText.escaped(row.label), row.recordedStatus, TerminalText.escaped(row.replayedStatus), row.shape]
        }
        for (index, step) in unreplayed {
            cells.append([
                "\(TerminalText.escaped(step)) (not replayed)", recorded[index].response.map { String($0.status) } ?? "none", "—", "—",
            ])
        }
        let widths = (0..<3).map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        return ([header] + cells).map { line in
            (0..<3).map { line[$0].padding(toLength: widths[$0] + 2, withPad: " ", startingAt: 0) }.joined() + line[3]
        }
    }

    /// What the replay concludes, a line each: that every step matched, or the first step that
    /// diverged and why, with `hint` when one was found.
    /// - Parameter shownCall: a step's method and path as shown (`POST /submit`), by its name.
    func verdict(hint: CaptureHint?, shownCall: (String) -> String) -> [String] {
        var lines: [String] = []
        if let first = firstDivergence {
            let row = rows[first]
            lines.append(
                "first divergence: step \(TerminalText.escaped(row.label)) (\(shownCall(row.attempt.step))): \(row.divergence ?? "")")
        } else if let first = unreplayed.first?.index {
            let request = recorded[first]
            let shown = URLDisplay.redacting(TerminalText.escaped(String(request.path), limit: 80))
            let more = unreplayed.count > 1 ? " and \(unreplayed.count - 1) more" : ""
            lines.append(
                "first divergence: the recording goes on where the replay stopped: request #\(first + 1) (\(request.method) \(shown))"
                    + "\(more), which the plan's steps stand for, not replayed")
        } else if rows.isEmpty {
            lines.append("first divergence: the replay sent nothing")
        } else {
            let unchecked = rows.filter { $0.shape.hasPrefix("not compared") }.count
            lines.append(
                unchecked == 0
                    ? "ok: every step matched the recording — same status, same shape"
                    : "ok: every step matched the recording's status; the shape of \(unchecked) of \(rows.count) responses was not "
                        + "compared: the recording holds no body of them")
        }
        if let hint { lines.append("hint: " + hint.sentence) }
        return lines
    }
}
