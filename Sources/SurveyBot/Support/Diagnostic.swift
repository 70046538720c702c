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
    /// An error refuses the plan; a warning is only said.
    enum Severity: String, Sendable, Hashable {
        case error, warning
    }

    var location: SourceLocation
    var message: String
    /// The text of the offending line, shown under the message with a caret.
    var sourceLine: String?
    var severity: Severity

    init(_ message: String, at location: SourceLocation, sourceLine: String? = nil, severity: Severity = .error) {
        self.message = message
        self.location = location
        self.sourceLine = sourceLine
        self.severity = severity
    }

    /// Control characters of the plan or the command line are escaped (`TerminalText`), a long
    /// message is cut at about 1,000 characters and a long line to a window around the caret:
    /// whatever a file holds, a diagnostic is a few short lines a terminal only displays.
    var description: String {
        let message = TerminalText.escaped(message, limit: 1_000)
        if case .option(let spelling) = location.origin {
            return "\(severity.rawValue): \(TerminalText.escaped(spelling, limit: 300)): \(message)"
        }
        var text = "\(TerminalText.escaped(location.description, limit: 1_000)): \(severity.rawValue): \(message)"
        if let sourceLine, case .file = location.origin {
            let excerpt = TerminalText.excerpt(sourceLine, column: location.column)
            text += "\n\(excerpt.line)\n\(excerpt.caret)"
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

    /// What a command prints for the plan at `path`: the first `PlanLimits.maxPrintedErrors`
    /// diagnostics, "and N more errors" for the rest, and the count (`path: 3 errors`), followed
    /// by `suffix`.
    func printed(path: String, suffix: String = "") -> [String] {
        var lines = diagnostics.prefix(PlanLimits.maxPrintedErrors).map(\.description)
        let more = diagnostics.count - PlanLimits.maxPrintedErrors
        if more > 0 { lines.append("and \(more) more error\(more == 1 ? "" : "s")") }
        let count = diagnostics.count
        lines.append("\(TerminalText.escaped(path, limit: 1_000)): \(count) error\(count == 1 ? "" : "s")\(suffix)")
        return lines
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
