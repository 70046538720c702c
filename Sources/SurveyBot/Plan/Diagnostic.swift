/// Where a piece of plan text came from: a line and column of a file, or a command-line option.
struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The origin of the text.
    enum Origin: Sendable, Hashable {
        /// A plan file, by the path the user gave.
        case file(String)
        /// A command-line override such as `--set retry.submit.attempts=4`, by its spelling.
        case option(String)
    }

    var origin: Origin
    /// 1-based line number (1 for options).
    var line: Int
    /// 1-based column, counted in characters.
    var column: Int

    init(origin: Origin, line: Int, column: Int) {
        self.origin = origin
        self.line = line
        self.column = column
    }

    var description: String {
        switch origin {
        case .file(let path): return "\(path):\(line):\(column)"
        case .option(let spelling): return spelling
        }
    }
}

/// One error found in a plan, shaped like a compiler diagnostic:
///
///     plans/smoke.plan:7:3: error: unknown key 'concurency' (did you mean 'concurrency'?)
///     concurency: 5
///     ^
struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    var location: SourceLocation
    var message: String
    /// The text of the offending line, shown under the message with a caret.
    var sourceLine: String?

    init(_ message: String, at location: SourceLocation, sourceLine: String? = nil) {
        self.message = message
        self.location = location
        self.sourceLine = sourceLine
    }

    var description: String {
        if case .option(let spelling) = location.origin {
            return "error: \(spelling): \(message)"
        }
        var text = "\(location): error: \(message)"
        if let sourceLine, case .file = location.origin {
            text += "\n\(sourceLine)\n"
            // Keep tabs in the caret line so the caret stays under the column in any terminal.
            let prefix = sourceLine.prefix(max(0, location.column - 1))
            text += String(prefix.map { $0 == "\t" ? "\t" : " " }) + "^"
        }
        return text
    }
}

/// Every error found in one or more plan sources, in source order.
struct PlanErrors: Error, Sendable, CustomStringConvertible {
    var diagnostics: [Diagnostic]

    init(_ diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}

extension Array where Element == Diagnostic {
    /// Sorted by file, then line, then column; stable for equal positions.
    func sortedBySource() -> [Diagnostic] {
        enumerated().sorted { a, b in
            let (l, r) = (a.element.location, b.element.location)
            if l.line != r.line { return l.line < r.line }
            if l.column != r.column { return l.column < r.column }
            return a.offset < b.offset
        }.map(\.element)
    }
}
