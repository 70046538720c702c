/// The second stage of reading a plan: each line into tokens — its indentation, and a
/// `key: value` entry or a `- item` — with scalars quoted, listed and interpolated. Errors are
/// collected, never thrown: a broken line is reported and left out, and lexing goes on.
struct PlanLexer {
    /// One meaningful line: its number, its indentation, and what it holds.
    struct LexedLine {
        enum Kind {
            case entry(EntryToken)
            /// `- …`; `contentIndent` is the 0-based column where the item's content starts.
            case item(contentIndent: Int, content: ItemContent)
        }

        enum ItemContent {
            case empty
            case value(PlanNode)
            case entry(EntryToken)
        }

        let number: Int
        let indent: Int
        let kind: Kind
    }

    /// `key:` and the value after it on the same line, if any.
    struct EntryToken {
        let key: String
        let keyLocation: SourceLocation
        /// Nil when nothing follows the colon: a block is expected on the next lines.
        let value: PlanNode?
    }

    /// What `lexEntry` found.
    enum EntryLex {
        /// The text is not an entry (only reported when an entry was required).
        case notAnEntry
        /// An entry too broken to use; the error has been reported.
        case broken
        case entry(EntryToken)
    }

    let origin: SourceLocation.Origin
    let interpolation: PlanInterpolation
    private(set) var diagnostics: [Diagnostic] = []

    init(origin: SourceLocation.Origin, environment: [String: String]) {
        self.origin = origin
        interpolation = PlanInterpolation(environment: environment)
    }

    private mutating func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(message, at: location))
    }

    /// Lexes one line; nil for blank lines, comment lines and lines too broken to place.
    mutating func lex(line scalars: [Unicode.Scalar], number: Int) -> LexedLine? {
        var cursor = LineCursor(scalars: scalars, number: number, origin: origin)
        var indent = 0
        while let c = cursor.current, c == " " || c == "\t" {
            // Trailing tabs on a blank line are harmless.
            if c == "\t" && !cursor.atEndOrCommentAfterWhitespace {
                error("tab character in indentation; indent with spaces", at: cursor.here)
                return nil
            }
            indent += 1
            cursor.position += 1
        }
        if cursor.atEndOrComment { return nil }

        if cursor.current == "-" && (cursor.peek(1) == nil || cursor.isBlank(at: cursor.position + 1)) {
            cursor.position += 1
            cursor.skipSpaces()
            let contentIndent = cursor.position
            if cursor.atEndOrComment {
                return LexedLine(number: number, indent: indent, kind: .item(contentIndent: contentIndent, content: .empty))
            }
            switch lexEntry(&cursor, required: false) {
            case .broken:
                return nil
            case .entry(let token):
                return LexedLine(number: number, indent: indent, kind: .item(contentIndent: contentIndent, content: .entry(token)))
            case .notAnEntry:
                let value = lexValue(&cursor) ?? .invalid(at: cursor.here)
                return LexedLine(number: number, indent: indent, kind: .item(contentIndent: contentIndent, content: .value(value)))
            }
        }

        guard case .entry(let token) = lexEntry(&cursor, required: true) else { return nil }
        return LexedLine(number: number, indent: indent, kind: .entry(token))
    }

    /// Lexes `key: value`. Not finding an entry is an error only when one is `required`.
    mutating func lexEntry(_ cursor: inout LineCursor, required: Bool) -> EntryLex {
        let start = cursor.position
        let keyLocation = cursor.here
        var key: String
        if let quote = cursor.current, quote == "\"" || quote == "'" {
            var probe = cursor
            guard let quoted = lexQuoted(&probe, reportErrors: required) else {
                return required ? .broken : .notAnEntry
            }
            probe.skipSpaces()
            guard probe.current == ":" && (probe.peek(1) == nil || probe.isBlank(at: probe.position + 1)) else {
                guard required else { return .notAnEntry }
                error("expected ':' after the quoted key", at: probe.here)
                return .broken
            }
            guard !quoted.isFromEnvironment else {
                // A key is a name, shown in errors and reports (a header's name): it is written in the plan.
                error("a key cannot come from the environment: '\(quoted.display)' (${…} works in values)", at: keyLocation)
                return .broken
            }
            key = quoted.text
            cursor = probe
        } else {
            var i = start
            var colon: Int?
            while i < cursor.scalars.count {
                let c = cursor.scalars[i]
                if c == "#" && i > start && cursor.isBlank(at: i - 1) { break }
                if c == ":" && (i + 1 == cursor.scalars.count || cursor.isBlank(at: i + 1)) {
                    colon = i
                    break
                }
                i += 1
            }
            guard let colon else {
                guard required else { return .notAnEntry }
                // What was found stops at the comment, as the search for the colon did.
                error("expected 'key: value', found '\(cursor.text(start..<i))'", at: keyLocation)
                return .broken
            }
            key = String(String.UnicodeScalarView(cursor.scalars[start..<colon])).trimmingTrailingSpaces
            cursor.position = colon
            if key.isEmpty {
                error("missing key before ':'", at: keyLocation)
                return .broken
            }
        }
        cursor.position += 1  // the colon
        cursor.skipSpaces()
        if cursor.atEndOrComment {
            return .entry(EntryToken(key: key, keyLocation: keyLocation, value: nil))
        }
        let value = lexValue(&cursor) ?? .invalid(at: cursor.here)
        return .entry(EntryToken(key: key, keyLocation: keyLocation, value: value))
    }

    /// Lexes a value: a quoted string, an inline list or a bare scalar running to the end of
    /// the line (or a comment). Nil when nothing is there. Errors yield `.invalid`.
    mutating func lexValue(_ cursor: inout LineCursor) -> PlanNode? {
        cursor.skipSpaces()
        if cursor.atEndOrComment { return nil }
        let start = cursor.here
        switch cursor.current {
        case "\"", "'":
            guard let scalar = lexQuoted(&cursor, reportErrors: true) else { return .invalid(at: start) }
            guard expectEndOfLine(&cursor, after: "the closing quote") else { return .invalid(at: start) }
            return .scalar(scalar)
        case "[":
            guard let list = lexInlineList(&cursor) else { return .invalid(at: start) }
            guard expectEndOfLine(&cursor, after: "']'") else { return .invalid(at: start) }
            return list
        default:
            let begin = cursor.position
            while !cursor.atEndOrComment { cursor.position += 1 }
            var end = cursor.position
            while end > begin, cursor.isBlank(at: end - 1) { end -= 1 }
            guard let value = interpolation.substitute(cursor.scalars[begin..<end], in: cursor, diagnostics: &diagnostics) else {
                return .invalid(at: start)
            }
            return .scalar(PlanScalar(value, at: start))
        }
    }

    private mutating func expectEndOfLine(_ cursor: inout LineCursor, after what: String) -> Bool {
        cursor.skipSpaces()
        if cursor.atEndOrComment { return true }
        error("unexpected text after \(what)", at: cursor.here)
        return false
    }

    /// Lexes `"…"` (escapes and substitution) or `'…'` (literal, `''` is a quote).
    mutating func lexQuoted(_ cursor: inout LineCursor, reportErrors: Bool) -> PlanScalar? {
        let quote = cursor.scalars[cursor.position]
        let location = cursor.here
        cursor.position += 1
        var text = PlanText()
        while let c = cursor.current {
            if c == quote {
                if quote == "'" && cursor.peek(1) == "'" {
                    text.append("'")
                    cursor.position += 2
                    continue
                }
                cursor.position += 1
                return PlanScalar(text, at: location, isQuoted: true)
            }
            if quote == "\"" && c == "\\" {
                guard let next = cursor.peek(1) else { break }
                guard let replacement = Self.escapes[next] else {
                    if reportErrors {
                        error("unknown escape sequence '\\\(Character(next))' (known: \\\" \\\\ \\n \\t \\r \\$)", at: cursor.here)
                    }
                    return nil
                }
                text.append(replacement)
                cursor.position += 2
                continue
            }
            if quote == "\"" && c == "$" && cursor.peek(1) == "{" {
                // Errors inside a quoted key being probed are reported when it is lexed for real.
                var errors: [Diagnostic] = []
                guard let variable = interpolation.variable(at: cursor.position, in: cursor, diagnostics: &errors) else {
                    if reportErrors { diagnostics += errors }
                    return nil
                }
                text.append(variable.value)
                cursor.position = variable.end
                continue
            }
            text.append(c)
            cursor.position += 1
        }
        if reportErrors {
            error("unterminated string: missing closing \(quote == "\"" ? "\"" : "'")", at: location)
        }
        return nil
    }

    /// The escapes of double-quoted strings.
    private static let escapes: [Unicode.Scalar: Unicode.Scalar] = [
        "\"": "\"", "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "$": "$", "0": "\0",
    ]

    /// Lexes `[a, b, "c, d"]`. Items are scalars; nested lists are not part of the format.
    mutating func lexInlineList(_ cursor: inout LineCursor) -> PlanNode? {
        let location = cursor.here
        cursor.position += 1
        var items: [PlanNode] = []
        while true {
            cursor.skipSpaces()
            guard let c = cursor.current else {
                error("unterminated list: missing ']'", at: location)
                return nil
            }
            if c == "]" {
                cursor.position += 1
                return .list(items, at: location)
            }
            let itemLocation = cursor.here
            if c == "\"" || c == "'" {
                guard let scalar = lexQuoted(&cursor, reportErrors: true) else { return nil }
                items.append(.scalar(scalar))
            } else if c == "[" {
                error("nested lists are not supported", at: itemLocation)
                return nil
            } else if c == "," {
                error("empty list item", at: itemLocation)
                return nil
            } else {
                let begin = cursor.position
                while let d = cursor.current, d != "," && d != "]" { cursor.position += 1 }
                var end = cursor.position
                while end > begin, cursor.isBlank(at: end - 1) { end -= 1 }
                guard let value = interpolation.substitute(cursor.scalars[begin..<end], in: cursor, diagnostics: &diagnostics) else {
                    return nil
                }
                items.append(.scalar(PlanScalar(value, at: itemLocation)))
            }
            cursor.skipSpaces()
            if cursor.current == "," {
                cursor.position += 1
            } else if cursor.current != "]" {
                if cursor.atEnd {
                    error("unterminated list: missing ']'", at: location)
                } else {
                    error("expected ',' or ']' in the list", at: cursor.here)
                }
                return nil
            }
        }
    }
}
