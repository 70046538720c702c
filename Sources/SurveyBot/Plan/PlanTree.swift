/// The third stage of reading a plan: lexed lines into a tree of `PlanNode`s by indentation.
/// Like the lexer, it reports every error it finds and goes on.
struct PlanTree {
    let lines: [PlanLexer.LexedLine]
    let path: String
    var index = 0
    var diagnostics: [Diagnostic] = []
    /// How many blocks hold the one being parsed; the top level is 1.
    private var depth = 1

    init(lines: [PlanLexer.LexedLine], path: String) {
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

    mutating func badIndentation(_ line: PlanLexer.LexedLine, expected indent: Int) {
        error("bad indentation: \(line.indent) spaces where this block uses \(indent)", line: line.number, column: line.indent + 1)
        index += 1
        skipDeeper(than: indent)
    }

    /// The next line of the block at `indent`: lines indented deeper are reported and skipped;
    /// nil at a line indented less (the block has ended) or at the end.
    private mutating func nextLine(at indent: Int) -> PlanLexer.LexedLine? {
        while index < lines.count {
            let line = lines[index]
            if line.indent < indent { return nil }
            if line.indent == indent { return line }
            badIndentation(line, expected: indent)
        }
        return nil
    }

    /// A mapping whose keys sit at `indent`. `first` is a key already lexed on a list item line
    /// (`- key: value`), which opens a mapping at the item's content column.
    mutating func parseMapping(indent: Int, first: (PlanLexer.EntryToken, line: Int)?) -> [PlanEntry] {
        var entries: [PlanEntry] = []
        var firstLines: [String: Int] = [:]
        if let (token, line) = first {
            add(token, line: line, indent: indent, to: &entries, firstLines: &firstLines)
        }
        while let line = nextLine(at: indent) {
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
        _ token: PlanLexer.EntryToken, line: Int, indent: Int, to entries: inout [PlanEntry], firstLines: inout [String: Int]
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
    private mutating func parseValue(of token: PlanLexer.EntryToken, line: Int, indent: Int) -> PlanNode {
        if let inline = token.value {
            if index < lines.count, lines[index].indent > indent {
                let next = lines[index]
                // Which of the two lines is off, only the user knows: say both indentations.
                func spaces(_ count: Int) -> String { count == 1 ? "1 space" : "\(count) spaces" }
                error(
                    "unexpected indentation: '\(token.key)' already has a value on line \(line), indented \(spaces(indent)), "
                        + "and this line is indented \(spaces(next.indent)); lines of one block are indented alike",
                    line: next.number, column: next.indent + 1)
                skipDeeper(than: indent)
            }
            return inline
        }
        let blockLocation = token.keyLocation
        guard index < lines.count else { return .empty(at: blockLocation) }
        let next = lines[index]
        if next.indent > indent {
            return nested(at: next, column: next.indent + 1, skip: { $0.skipDeeper(than: indent) }) {
                $0.parseBlock(indent: next.indent)
            }
        }
        if next.indent == indent, case .item = next.kind {
            // The compact YAML form: list items at the same indentation as their key.
            return nested(at: next, column: next.indent + 1, skip: { $0.skipItems(at: indent) }) {
                $0.parseList(indent: indent, compact: true)
            }
        }
        return .empty(at: blockLocation)
    }

    /// Parses a block one level further in, or — past `PlanLimits.maxDepth` — reports it once
    /// at `line` and skips its lines with `skip`. The depth is checked before the recursion, so
    /// that no file can nest deep enough to exhaust the stack.
    private mutating func nested(
        at line: PlanLexer.LexedLine, column: Int, skip: (inout PlanTree) -> Void, _ parse: (inout PlanTree) -> PlanNode
    ) -> PlanNode {
        guard depth < PlanLimits.maxDepth else {
            error("nesting deeper than \(PlanLimits.maxDepth) levels, the limit for a plan", line: line.number, column: column)
            skip(&self)
            return .invalid(at: location(line.number, column))
        }
        depth += 1
        defer { depth -= 1 }
        return parse(&self)
    }

    /// Skips the list items at `indent` and every line under them.
    private mutating func skipItems(at indent: Int) {
        while index < lines.count, lines[index].indent > indent || (lines[index].indent == indent && lines[index].isItem) {
            index += 1
        }
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
        while let line = nextLine(at: indent) {
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
                    let next = lines[index]
                    items.append(
                        nested(at: next, column: next.indent + 1, skip: { $0.skipDeeper(than: indent) }) {
                            $0.parseBlock(indent: next.indent)
                        })
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
                items.append(
                    nested(at: line, column: contentIndent + 1, skip: { $0.skipDeeper(than: indent) }) {
                        .mapping(
                            $0.parseMapping(indent: contentIndent, first: (token, line.number)),
                            at: $0.location(line.number, contentIndent + 1))
                    })
            }
        }
        return .list(items, at: at)
    }
}

extension PlanLexer.LexedLine {
    var isItem: Bool {
        if case .item = kind { return true }
        return false
    }
}
