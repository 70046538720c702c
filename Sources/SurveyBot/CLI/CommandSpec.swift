/// A named option of a command: `--concurrency <n>`, or a flag such as `--quiet`.
struct OptionSpec: Sendable {
    /// The long name without dashes, such as `concurrency`.
    let name: String
    /// A one-letter alias without its dash, such as `o` for `-o`.
    let short: Character?
    /// The value's placeholder in help (`n` for `--concurrency <n>`); nil for a flag.
    let valueName: String?
    let help: String
    /// Shown as "(default: …)" in help.
    let defaultValue: String?
    /// May be given several times (`--set a=1 --set b=2`); otherwise the last one wins.
    let repeatable: Bool
    /// Must be given: marked `(required)` in help, shown without brackets in the usage line,
    /// and a usage error when missing.
    let required: Bool

    init(
        _ name: String, short: Character? = nil, value: String? = nil, help: String, default defaultValue: String? = nil,
        repeatable: Bool = false, required: Bool = false
    ) {
        self.name = name
        self.short = short
        self.valueName = value
        self.help = help
        self.defaultValue = defaultValue
        self.repeatable = repeatable
        self.required = required
    }

    var isFlag: Bool { valueName == nil }

    /// `--concurrency <n>` or `-o, --out <dir>`.
    var synopsis: String {
        var text = "--\(name)"
        if let valueName { text += " <\(valueName)>" }
        if let short { text = "-\(short), " + text }
        return text
    }

    /// `--name <value>` as the usage line and errors show it.
    var spelling: String {
        valueName.map { "--\(name) <\($0)>" } ?? "--\(name)"
    }

    var usageSynopsis: String {
        if required { return repeatable ? "\(spelling) ..." : spelling }
        return repeatable ? "[\(spelling) ...]" : "[\(spelling)]"
    }
}

/// A positional argument: `<plan>`, or `<report> ...` when it repeats.
struct ArgumentSpec: Sendable {
    let name: String
    let help: String
    let repeating: Bool
    let optional: Bool

    init(_ name: String, help: String, repeating: Bool = false, optional: Bool = false) {
        self.name = name
        self.help = help
        self.repeating = repeating
        self.optional = optional
    }

    var usageSynopsis: String {
        var text = "<\(name)>"
        if repeating { text += " ..." }
        return optional ? "[\(text)]" : text
    }
}

/// What a subcommand accepts and how its help reads.
struct CommandSpec: Sendable {
    let name: String
    let abstract: String
    let discussion: String?
    let arguments: [ArgumentSpec]
    let options: [OptionSpec]
    /// What this command's exit statuses mean, for its help; nil shows the table of every
    /// command (`ExitCode.table`).
    let exitCodes: [(code: ExitCode, meaning: String)]?

    init(
        name: String, abstract: String, discussion: String? = nil, arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
        exitCodes: [(code: ExitCode, meaning: String)]? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.exitCodes = exitCodes
    }

    static let helpOption = OptionSpec("help", short: "h", help: "Show help information.")

    /// Prints a command-line mistake with this command's usage and help hint; exit status 2.
    func usageError(_ message: String, console: Console) -> ExitCode {
        Self.usageError(message, usage: usage, helpHint: "survey-bot \(name) --help", console: console)
    }

    /// Prints `Error: …`, the usage line and a hint, and returns exit status 2.
    static func usageError(_ message: String, usage: String, helpHint: String, console: Console) -> ExitCode {
        // The message may quote what was typed: its control characters are escaped, and it is cut.
        console.printError("Error: \(TerminalText.escaped(message, limit: 1_000))")
        console.printError("Usage: \(usage)")
        console.printError("  See '\(helpHint)' for more information.")
        return .validationFailure
    }

    /// `survey-bot run <plan> [--concurrency <n>] …`
    var usage: String {
        let parts = ["survey-bot", name] + arguments.map(\.usageSynopsis) + options.map(\.usageSynopsis)
        return parts.joined(separator: " ")
    }

    /// The full `--help` text, in swift-argument-parser's layout.
    var help: String {
        var text = "OVERVIEW: \(abstract)\n"
        if let discussion { text += "\n\(Self.wrap(discussion, width: 80))\n" }
        text += "\nUSAGE: \(usage)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in arguments {
                text += Self.row("<\(argument.name)>", argument.help)
            }
        }
        text += "\nOPTIONS:\n"
        for option in options + [Self.helpOption] {
            var help = option.required ? "(required) " + option.help : option.help
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            if option.repeatable { help += " May be repeated." }
            text += Self.row(option.synopsis, help)
        }
        text += "\nEXIT CODES:\n\(exitCodes.map { ExitCode.table(for: $0) } ?? ExitCode.table)\n"
        return text
    }

    /// Wraps each paragraph of `text` at `width` columns.
    static func wrap(_ text: String, width: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { paragraph in
            var lines: [String] = []
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty && line.count + word.count + 1 > width {
                    lines.append(line)
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            lines.append(line)
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// A two-column help row, wrapping the description at 80 columns.
    static func row(_ left: String, _ right: String) -> String {
        let indent = 2
        let column = 28
        var text = String(repeating: " ", count: indent) + left
        var lines: [String] = []
        var line = ""
        for word in right.split(separator: " ") {
            if !line.isEmpty && line.count + word.count + 1 > 80 - column {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        if text.count + 2 > column {
            text += "\n" + String(repeating: " ", count: column)
        } else {
            text += String(repeating: " ", count: column - text.count)
        }
        text += lines.joined(separator: "\n" + String(repeating: " ", count: column))
        return text + "\n"
    }
}
