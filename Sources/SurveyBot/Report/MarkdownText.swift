/// Text inside Markdown (the report and the diff, which GitHub renders in job summaries and
/// comments), escaped once for all of it: whatever a plan or a report file holds is shown as
/// the characters it is, never read as emphasis, a link, an image, an HTML tag or comment, a
/// table cell's end or a code span's end.
enum MarkdownText {
    /// The characters CommonMark or GitHub give a meaning inline: emphasis, code, links and
    /// images, raw HTML and entities, table cells, strikethrough, and the escape itself. Each
    /// is shown as itself after a backslash (CommonMark escapes any ASCII punctuation so).
    private static let special: Set<Unicode.Scalar> = ["\\", "`", "*", "_", "[", "]", "<", ">", "&", "|", "~", "!", "#"]

    /// `text` as literal inline text, in a paragraph, a heading or a table cell: control and
    /// invisible characters spelt as a terminal shows them (`\n`, `\u{1B}`, `TerminalText`),
    /// so that no line break can start a block, and every special character escaped (but `_`
    /// inside a word, which GitHub never reads as emphasis).
    static func text(_ text: String) -> String {
        let scalars = Array(TerminalText.escaped(text).unicodeScalars)
        func isWordScalar(_ index: Int) -> Bool {
            scalars.indices.contains(index) && scalars[index].properties.isAlphabetic
                || scalars.indices.contains(index)
                    && ("0"..."9").contains(scalars[index])
        }
        var escaped = ""
        for (index, scalar) in scalars.enumerated() {
            // `_` inside a word (`http_5xx`) can neither open nor close emphasis: left as it is.
            let intraword = scalar == "_" && isWordScalar(index - 1) && isWordScalar(index + 1)
            if special.contains(scalar) && !intraword { escaped += "\\" }
            escaped.unicodeScalars.append(scalar)
        }
        return escaped
    }

    /// `text` as a code span: control characters spelt as a terminal shows them, fenced by more
    /// backticks than it holds in a row (with a space inside when it begins or ends with one),
    /// so that no backtick in it closes the span. `inTable`: `|` as `\|` too, since GitHub
    /// splits a table row at every unescaped `|`, code spans included.
    static func code(_ text: String, inTable: Bool = false) -> String {
        var content = TerminalText.escaped(text)
        if inTable { content = content.replacingOccurrences(of: "|", with: "\\|") }
        var longest = 0
        var run = 0
        for scalar in content.unicodeScalars {
            run = scalar == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let padding = content.hasPrefix("`") || content.hasSuffix("`") || content.isEmpty ? " " : ""
        return fence + padding + content + padding + fence
    }
}
