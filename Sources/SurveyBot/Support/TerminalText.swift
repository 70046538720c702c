import SurveyWire

/// Text from files and command lines made safe to print: a terminal acts on control
/// characters (an escape sequence can clear the screen, retitle the window or hide the lines
/// before it), shows text after a bidirectional override reordered and shows a zero-width
/// character not at all, so diagnostics never print them as they are.
enum TerminalText {
    /// How a terminal must be shown `scalar`: `HTTPSyntax.shownEscape`, the one spelling of
    /// diagnostics and of a server's words quoted in reports. Nil for a scalar that prints as
    /// itself.
    static func escape(_ scalar: Unicode.Scalar) -> String? {
        HTTPSyntax.shownEscape(scalar)
    }

    /// `text` with every unsafe scalar escaped, cut after about `limit` characters with "…".
    static func escaped(_ text: String, limit: Int = .max) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= limit {
                result += "…"
                break
            }
            if let escape = escape(scalar) {
                result += escape
                count += escape.count
            } else {
                result.unicodeScalars.append(scalar)
                count += 1
            }
        }
        return result
    }

    /// A source line to show under a diagnostic, escaped, with the caret line that points at
    /// `column` (1-based). Tabs stay tabs in both, so the caret lines up in any terminal. A line
    /// wider than `width` is cut to a window around the column, with "…" where it was cut.
    static func excerpt(_ line: String, column: Int, width: Int = 160) -> (line: String, caret: String) {
        let pieces = line.unicodeScalars.map { scalar in
            scalar == "\t" ? "\t" : escape(scalar) ?? String(scalar)
        }
        let at = min(max(0, column - 1), pieces.count)
        var start = 0
        var end = pieces.count
        if pieces.reduce(0, { $0 + $1.count }) > width {
            start = at
            var shown = 0
            while start > 0, shown + pieces[start - 1].count <= width / 2 {
                start -= 1
                shown += pieces[start].count
            }
            end = at
            while end < pieces.count, shown + pieces[end].count <= width {
                shown += pieces[end].count
                end += 1
            }
        }
        let head = start > 0 ? "…" : ""
        let text = head + pieces[start..<end].joined() + (end < pieces.count ? "…" : "")
        let caret = (start > 0 ? " " : "") + pieces[start..<at].map { $0 == "\t" ? "\t" : String(repeating: " ", count: $0.count) }.joined()
        return (text, caret + "^")
    }
}
