/// Text from files and command lines made safe to print: a terminal acts on control
/// characters (an escape sequence can clear the screen, retitle the window or hide the lines
/// before it), shows text after a bidirectional override reordered and shows a zero-width
/// character not at all, so diagnostics never print them as they are.
enum TerminalText {
    /// `\0`, `\t`, `\n`, `\r` for those; `\u{1B}` for every other C0 or C1 control, DEL, and
    /// every invisible format character or separator — bidirectional overrides and isolates, a
    /// byte-order mark, a zero-width space, U+2028 — the spelling a double-quoted plan string
    /// would use. Nil for a scalar that prints as itself.
    static func escape(_ scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "\0": return "\\0"
        case "\t": return "\\t"
        case "\n": return "\\n"
        case "\r": return "\\r"
        default:
            let value = scalar.value
            if value >= 0x20 && value < 0x7F { return nil }
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator: break
            default: return nil
            }
            let hex = String(value, radix: 16, uppercase: true)
            return "\\u{" + (hex.count < 2 ? "0" : "") + hex + "}"
        }
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
