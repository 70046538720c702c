/// Parses the text of a plan file into a tree of `PlanNode`s.
///
/// The format is a small, YAML-like language: `key: value` lines nested by indentation with
/// spaces, `# comments`, bare and quoted scalars, inline `[a, b]` and block `- item` lists, and
/// `${NAME}` / `${NAME:-default}` environment substitution. The parser never stops at the first
/// error: it reports every error it can find, recovering line by line.
public struct PlanParser {
    /// Where the text came from, used in every diagnostic.
    public let path: String
    let environment: [String: String]
    private(set) var diagnostics: [Diagnostic] = []

    public init(path: String, environment: [String: String]) {
        self.path = path
        self.environment = environment
    }

    /// Parses a whole file. The root is always a mapping (empty for an empty file).
    public static func parse(_ text: String, path: String, environment: [String: String]) -> (root: PlanNode, diagnostics: [Diagnostic]) {
        var parser = PlanParser(path: path, environment: environment)
        let lines = splitLines(text)
        var lexed: [LexedLine] = []
        for (index, line) in lines.enumerated() {
            if let l = parser.lex(line: line, number: index + 1) { lexed.append(l) }
        }
        var builder = TreeBuilder(lines: lexed, path: path)
        let entries = builder.parseMapping(indent: 0, first: nil)
        if builder.index < lexed.count {
            // Only reachable if the top level could not take a line; report it rather than drop it.
            let line = lexed[builder.index]
            builder.error("bad indentation", line: line.number, column: line.indent + 1)
        }
        let root = PlanNode.mapping(entries, at: SourceLocation(origin: .file(path), line: 1, column: 1))
        return (root, parser.diagnostics + builder.diagnostics)
    }

    /// Parses one value as it would appear after `key: ` — used for `--set key=value` overrides.
    public static func parseValue(_ text: String, origin: SourceLocation.Origin, environment: [String: String]) -> (PlanNode, [Diagnostic])
    {
        var parser = PlanParser(path: "", environment: environment)
        let scalars = Array(text.unicodeScalars)
        var cursor = LineCursor(scalars: scalars, number: 1, origin: origin)
        let node: PlanNode
        if let token = parser.lexValue(&cursor) {
            node = token
        } else {
            node = .scalar(PlanScalar("", at: SourceLocation(origin: origin, line: 1, column: 1)))
        }
        return (node, parser.diagnostics)
    }

    // MARK: - Lines

    /// Splits on `\n`, `\r\n` and lone `\r`, keeping line numbers the way editors count them.
    static func splitLines(_ text: String) -> [[Unicode.Scalar]] {
        var lines: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                if !previousWasCR { lines.append(current) }
                current = []
                previousWasCR = false
            } else if scalar == "\r" {
                lines.append(current)
                current = []
                previousWasCR = true
            } else {
                current.append(scalar)
                previousWasCR = false
            }
        }
        lines.append(current)
        return lines
    }

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

    struct EntryToken {
        let key: String
        let keyLocation: SourceLocation
        /// Nil when nothing follows the colon: a block is expected on the next lines.
        let value: PlanNode?
    }

    /// A position inside one line.
    struct LineCursor {
        let scalars: [Unicode.Scalar]
        let number: Int
        let origin: SourceLocation.Origin
        var position = 0

        init(scalars: [Unicode.Scalar], number: Int, origin: SourceLocation.Origin) {
            self.scalars = scalars
            self.number = number
            self.origin = origin
        }

        var atEnd: Bool { position >= scalars.count }
        var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }
        func peek(_ offset: Int) -> Unicode.Scalar? {
            let i = position + offset
            return i < scalars.count ? scalars[i] : nil
        }
        func location(_ index: Int) -> SourceLocation {
            SourceLocation(origin: origin, line: number, column: index + 1)
        }
        var here: SourceLocation { location(position) }
        mutating func skipSpaces() {
            while let c = current, c == " " || c == "\t" { position += 1 }
        }
        /// True at end of line or at a comment: `#` starting the rest or following whitespace.
        var atEndOrComment: Bool {
            guard let c = current else { return true }
            return c == "#" && (position == 0 || scalars[position - 1] == " " || scalars[position - 1] == "\t")
        }
    }

    private mutating func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(message, at: location))
    }

    // MARK: - Lexing a line

    /// Lexes one line; nil for blank lines, comment lines and lines too broken to place.
    mutating func lex(line scalars: [Unicode.Scalar], number: Int) -> LexedLine? {
        var cursor = LineCursor(scalars: scalars, number: number, origin: .file(path))
        var indent = 0
        while let c = cursor.current, c == " " || c == "\t" {
            if c == "\t" {
                if !cursor.atEndOrCommentAfterWhitespace {
                    error("tab character in indentation; indent with spaces", at: cursor.here)
                    return nil
                }
                // Trailing tabs on a blank line are harmless.
            }
            indent += 1
            cursor.position += 1
        }
        if cursor.atEndOrComment { return nil }

        if cursor.current == "-" && (cursor.peek(1) == nil || cursor.peek(1) == " " || cursor.peek(1) == "\t") {
            cursor.position += 1
            cursor.skipSpaces()
            let contentIndent = cursor.position
            if cursor.atEndOrComment {
                return LexedLine(number: number, indent: indent, kind: .item(contentIndent: contentIndent, content: .empty))
            }
            if let entry = lexEntry(&cursor, required: false) {
                guard case .some(let token) = entry else { return nil }
                return LexedLine(number: number, indent: indent, kind: .item(contentIndent: contentIndent, content: .entry(token)))
            }
            let value = lexValue(&cursor) ?? .invalid(at: cursor.here)
            return LexedLine(number: number, indent: indent, kind: .item(contentIndent: contentIndent, content: .value(value)))
        }

        guard let entry = lexEntry(&cursor, required: true), let token = entry else { return nil }
        return LexedLine(number: number, indent: indent, kind: .entry(token))
    }

    /// Lexes `key: value`. Returns nil when the text is not an entry (only when `required` is
    /// false), `.some(nil)` when it is an entry too broken to use (the error is reported).
    mutating func lexEntry(_ cursor: inout LineCursor, required: Bool) -> EntryToken?? {
        let start = cursor.position
        let keyLocation = cursor.here
        var key: String
        if let quote = cursor.current, quote == "\"" || quote == "'" {
            var probe = cursor
            guard let quoted = lexQuoted(&probe, reportErrors: required) else {
                return required ? .some(nil) : nil
            }
            probe.skipSpaces()
            guard probe.current == ":" && (probe.peek(1) == nil || probe.peek(1) == " " || probe.peek(1) == "\t") else {
                if required {
                    error("expected ':' after the quoted key", at: probe.here)
                    return .some(nil)
                }
                return nil
            }
            key = quoted.text
            cursor = probe
        } else {
            var i = start
            var colon: Int?
            while i < cursor.scalars.count {
                let c = cursor.scalars[i]
                if c == "#" && i > start && (cursor.scalars[i - 1] == " " || cursor.scalars[i - 1] == "\t") { break }
                if c == ":" && (i + 1 == cursor.scalars.count || cursor.scalars[i + 1] == " " || cursor.scalars[i + 1] == "\t") {
                    colon = i
                    break
                }
                i += 1
            }
            guard let colon else {
                if required {
                    error(
                        "expected 'key: value', found '\(String(String.UnicodeScalarView(cursor.scalars[start...]))).trimmingTrailingSpaces)'",
                        at: keyLocation)
                    return .some(nil)
                }
                return nil
            }
            key = String(String.UnicodeScalarView(cursor.scalars[start..<colon])).trimmingTrailingSpaces
            cursor.position = colon
            if key.isEmpty {
                error("missing key before ':'", at: keyLocation)
                return .some(nil)
            }
        }
        cursor.position += 1  // the colon
        cursor.skipSpaces()
        if cursor.atEndOrComment {
            return .some(EntryToken(key: key, keyLocation: keyLocation, value: nil))
        }
        let value = lexValue(&cursor) ?? .invalid(at: cursor.here)
        return .some(EntryToken(key: key, keyLocation: keyLocation, value: value))
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
            while end > begin, cursor.scalars[end - 1] == " " || cursor.scalars[end - 1] == "\t" { end -= 1 }
            guard let (text, fromEnvironment) = substitute(cursor.scalars[begin..<end], cursor: cursor, offset: begin) else {
                return .invalid(at: start)
            }
            return .scalar(PlanScalar(text, at: start, isFromEnvironment: fromEnvironment))
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
        let open = cursor.position
        let quote = cursor.scalars[open]
        let location = cursor.here
        cursor.position += 1
        var text = String.UnicodeScalarView()
        var fromEnvironment = false
        while let c = cursor.current {
            if c == quote {
                if quote == "'" && cursor.peek(1) == "'" {
                    text.append("'")
                    cursor.position += 2
                    continue
                }
                cursor.position += 1
                return PlanScalar(String(text), at: location, isQuoted: true, isFromEnvironment: fromEnvironment)
            }
            if quote == "\"" && c == "\\" {
                guard let next = cursor.peek(1) else { break }
                let replacement: Unicode.Scalar?
                switch next {
                case "\"": replacement = "\""
                case "\\": replacement = "\\"
                case "n": replacement = "\n"
                case "t": replacement = "\t"
                case "r": replacement = "\r"
                case "$": replacement = "$"
                case "0": replacement = "\0"
                default: replacement = nil
                }
                guard let replacement else {
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
                guard let (value, end, fromVariable) = substituteVariable(at: cursor.position, cursor: cursor) else { return nil }
                text.append(contentsOf: value.unicodeScalars)
                fromEnvironment = fromEnvironment || fromVariable
                cursor.position = end
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
                while end > begin, cursor.scalars[end - 1] == " " || cursor.scalars[end - 1] == "\t" { end -= 1 }
                guard let (text, fromEnvironment) = substitute(cursor.scalars[begin..<end], cursor: cursor, offset: begin) else {
                    return nil
                }
                items.append(.scalar(PlanScalar(text, at: itemLocation, isFromEnvironment: fromEnvironment)))
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

    // MARK: - Environment

    /// Replaces every `${NAME}` / `${NAME:-default}` in a bare piece of text.
    private mutating func substitute(_ slice: ArraySlice<Unicode.Scalar>, cursor: LineCursor, offset: Int) -> (String, Bool)? {
        var text = String.UnicodeScalarView()
        var fromEnvironment = false
        var i = slice.startIndex
        while i < slice.endIndex {
            if slice[i] == "$" && i + 1 < slice.endIndex && slice[i + 1] == "{" {
                guard let (value, end, fromVariable) = substituteVariable(at: i, cursor: cursor) else { return nil }
                guard end <= slice.endIndex else {
                    error("unterminated '${': missing '}'", at: cursor.location(i))
                    return nil
                }
                text.append(contentsOf: value.unicodeScalars)
                fromEnvironment = fromEnvironment || fromVariable
                i = end
            } else {
                text.append(slice[i])
                i += 1
            }
        }
        return (String(text), fromEnvironment)
    }

    /// Reads `${NAME}` or `${NAME:-default}` starting at `start` (the `$`). Returns the value,
    /// the index just past the closing brace, and whether the value came from the environment.
    private mutating func substituteVariable(at start: Int, cursor: LineCursor) -> (String, Int, fromEnvironment: Bool)? {
        let scalars = cursor.scalars
        var i = start + 2
        var name = String.UnicodeScalarView()
        while i < scalars.count, scalars[i] != "}" && scalars[i] != ":" {
            name.append(scalars[i])
            i += 1
        }
        var defaultValue: String?
        if i < scalars.count && scalars[i] == ":" {
            guard i + 1 < scalars.count, scalars[i + 1] == "-" else {
                error("expected ':-' after the variable name (as in ${NAME:-default})", at: cursor.location(i))
                return nil
            }
            i += 2
            var value = String.UnicodeScalarView()
            while i < scalars.count, scalars[i] != "}" {
                value.append(scalars[i])
                i += 1
            }
            defaultValue = String(value)
        }
        guard i < scalars.count else {
            error("unterminated '${': missing '}'", at: cursor.location(start))
            return nil
        }
        let variable = String(name)
        guard Self.isVariableName(variable) else {
            error(
                "invalid environment variable name '\(variable)' (letters, digits and '_', not starting with a digit)",
                at: cursor.location(start + 2))
            return nil
        }
        if let value = environment[variable] {
            return (value, i + 1, true)
        }
        if let defaultValue {
            return (defaultValue, i + 1, false)
        }
        error("environment variable '\(variable)' is not set (give a default with ${\(variable):-default})", at: cursor.location(start))
        return nil
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}

extension PlanParser.LineCursor {
    /// In leading whitespace: true when only whitespace (or a comment) remains on the line.
    var atEndOrCommentAfterWhitespace: Bool {
        var i = position
        while i < scalars.count, scalars[i] == " " || scalars[i] == "\t" { i += 1 }
        return i >= scalars.count || scalars[i] == "#"
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var scalars = Substring(self).unicodeScalars
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}

// MARK: - Structure

/// Builds the tree from lexed lines by indentation.
private struct TreeBuilder {
    let lines: [PlanParser.LexedLine]
    let path: String
    var index = 0
    var diagnostics: [Diagnostic] = []

    init(lines: [PlanParser.LexedLine], path: String) {
        self.lines = lines
        self.path = path
    }

    mutating func error(_ message: String, line: Int, column: Int) {
        diagnostics.append(Diagnostic(message, at: SourceLocation(origin: .file(path), line: line, column: column)))
    }

    func location(_ line: Int, _ column: Int) -> SourceLocation {
        SourceLocation(origin: .file(path), line: line, column: column)
    }

    /// Skips every following line indented deeper than `indent`.
    mutating func skipDeeper(than indent: Int) {
        while index < lines.count, lines[index].indent > indent { index += 1 }
    }

    mutating func badIndentation(_ line: PlanParser.LexedLine, expected indent: Int) {
        error("bad indentation: \(line.indent) spaces where this block uses \(indent)", line: line.number, column: line.indent + 1)
        index += 1
        skipDeeper(than: indent)
    }

    /// A mapping whose keys sit at `indent`. `first` is a key already lexed on a list item line
    /// (`- key: value`), which opens a mapping at the item's content column.
    mutating func parseMapping(indent: Int, first: (PlanParser.EntryToken, line: Int)?) -> [PlanEntry] {
        var entries: [PlanEntry] = []
        var firstLines: [String: Int] = [:]
        if let (token, line) = first {
            add(token, line: line, indent: indent, to: &entries, firstLines: &firstLines)
        }
        while index < lines.count {
            let line = lines[index]
            if line.indent < indent { break }
            if line.indent > indent {
                badIndentation(line, expected: indent)
                continue
            }
            switch line.kind {
            case .item:
                error("expected 'key: value' here, found a list item", line: line.number, column: line.indent + 1)
                index += 1
                skipDeeper(than: indent)
            case .entry(let token):
                index += 1
                add(token, line: line.number, indent: indent, to: &entries, firstLines: &firstLines)
            }
        }
        return entries
    }

    private mutating func add(
        _ token: PlanParser.EntryToken, line: Int, indent: Int, to entries: inout [PlanEntry], firstLines: inout [String: Int]
    ) {
        let value = parseValue(of: token, line: line, indent: indent)
        if let previous = firstLines[token.key] {
            diagnostics.append(Diagnostic("duplicate key '\(token.key)' (first given on line \(previous))", at: token.keyLocation))
            return
        }
        firstLines[token.key] = line
        entries.append(PlanEntry(key: token.key, keyLocation: token.keyLocation, value: value))
    }

    /// The value of an entry: inline, or the block indented under it.
    private mutating func parseValue(of token: PlanParser.EntryToken, line: Int, indent: Int) -> PlanNode {
        if let inline = token.value {
            if index < lines.count, lines[index].indent > indent {
                let next = lines[index]
                error(
                    "unexpected indentation: '\(token.key)' already has a value on line \(line)", line: next.number, column: next.indent + 1
                )
                skipDeeper(than: indent)
            }
            return inline
        }
        let blockLocation = token.keyLocation
        guard index < lines.count else { return .empty(at: blockLocation) }
        let next = lines[index]
        if next.indent > indent {
            return parseBlock(indent: next.indent)
        }
        if next.indent == indent, case .item = next.kind {
            // The compact YAML form: list items at the same indentation as their key.
            return parseList(indent: indent, compact: true)
        }
        return .empty(at: blockLocation)
    }

    private mutating func parseBlock(indent: Int) -> PlanNode {
        let line = lines[index]
        let at = location(line.number, indent + 1)
        if case .item = line.kind {
            return parseList(indent: indent, compact: false)
        }
        return .mapping(parseMapping(indent: indent, first: nil), at: at)
    }

    private mutating func parseList(indent: Int, compact: Bool) -> PlanNode {
        let at = location(lines[index].number, indent + 1)
        var items: [PlanNode] = []
        while index < lines.count {
            let line = lines[index]
            if line.indent < indent { break }
            if line.indent > indent {
                badIndentation(line, expected: indent)
                continue
            }
            guard case .item(let contentIndent, let content) = line.kind else {
                if compact { break }  // the next key of the enclosing mapping
                error("expected a list item '- …' here", line: line.number, column: line.indent + 1)
                index += 1
                skipDeeper(than: indent)
                continue
            }
            index += 1
            switch content {
            case .empty:
                if index < lines.count, lines[index].indent > indent {
                    items.append(parseBlock(indent: lines[index].indent))
                } else {
                    items.append(.empty(at: location(line.number, contentIndent + 1)))
                }
            case .value(let value):
                if index < lines.count, lines[index].indent > indent {
                    let next = lines[index]
                    error(
                        "unexpected indentation: the list item on line \(line.number) already has a value", line: next.number,
                        column: next.indent + 1)
                    skipDeeper(than: indent)
                }
                items.append(value)
            case .entry(let token):
                let entries = parseMapping(indent: contentIndent, first: (token, line.number))
                items.append(.mapping(entries, at: location(line.number, contentIndent + 1)))
            }
        }
        return .list(items, at: at)
    }
}
