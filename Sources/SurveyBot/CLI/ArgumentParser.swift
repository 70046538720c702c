/// The arguments of one command after parsing: options by name, flags, positionals.
struct ParsedArguments: Sendable {
    private(set) var options: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    /// Options in the order given, with their values, for overrides that must apply in order.
    private(set) var ordered: [(name: String, value: String)] = []

    /// The value of an option; the last one when it was given several times.
    func value(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    mutating func add(option name: String, value: String) {
        options[name, default: []].append(value)
        ordered.append((name, value))
    }

    mutating func add(flag name: String) { flags.insert(name) }
    mutating func add(positional: String) { positionals.append(positional) }
}

/// The outcome of parsing: arguments to run with, or a request for help.
enum ParseOutcome: Sendable {
    case arguments(ParsedArguments)
    case help
}

/// Parses a command's arguments against its spec, with the manners of swift-argument-parser:
/// `--opt value` and `--opt=value`, `-o value`, repeated options, `--` ending options, and a
/// did-you-mean for misspelt options.
struct ArgumentParser {
    let spec: CommandSpec

    func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") || Self.isNegativeNumber(argument) {
                parsed.add(positional: argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "--help" || argument == "-h" { return .help }

            let (spelling, inlineValue) = Self.split(argument)
            guard let option = find(spelling) else {
                throw UsageError(unknownOptionMessage(spelling))
            }
            if option.isFlag {
                if inlineValue != nil { throw UsageError("option '--\(option.name)' takes no value") }
                parsed.add(flag: option.name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count, !arguments[index].hasPrefix("-") || Self.isNegativeNumber(arguments[index]) {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("missing value for '\(option.synopsis.split(separator: ",").last!.trimmingCharacters(in: " "))'")
            }
            parsed.add(option: option.name, value: value)
        }
        try checkPositionals(parsed.positionals)
        if let missing = spec.options.first(where: { $0.required && parsed.values($0.name).isEmpty && !parsed.flag($0.name) }) {
            throw UsageError("missing required option '\(missing.spelling)'")
        }
        return .arguments(parsed)
    }

    /// `--name=value` → (`--name`, `value`); `-o` stays as it is.
    static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    static func isNegativeNumber(_ text: String) -> Bool {
        text.count > 1 && text.hasPrefix("-") && text.dropFirst().allSatisfy { $0.isNumber || $0 == "." || $0 == "%" }
    }

    private func find(_ spelling: String) -> OptionSpec? {
        if spelling.hasPrefix("--") {
            let name = String(spelling.dropFirst(2))
            return spec.options.first { $0.name == name }
        }
        if spelling.count == 2, let letter = spelling.last {
            return spec.options.first { $0.short == letter }
        }
        return nil
    }

    private func unknownOptionMessage(_ spelling: String) -> String {
        var message = "unknown option '\(spelling)'"
        let names = spec.options.map { "--\($0.name)" } + ["--help"]
        if spelling.hasPrefix("--"), let suggestion = Suggestions.closest(to: spelling, in: names) {
            message += " (did you mean '\(suggestion)'?)"
        }
        return message
    }

    private func checkPositionals(_ positionals: [String]) throws(UsageError) {
        var remaining = positionals[...]
        for argument in spec.arguments {
            if argument.repeating {
                if remaining.isEmpty && !argument.optional {
                    throw UsageError("missing expected argument '<\(argument.name)>'")
                }
                remaining = []
            } else if remaining.isEmpty {
                if !argument.optional { throw UsageError("missing expected argument '<\(argument.name)>'") }
            } else {
                remaining = remaining.dropFirst()
            }
        }
        if let extra = remaining.first {
            throw UsageError("unexpected argument '\(extra)'")
        }
    }
}

extension ParsedArguments {
    /// The value of option `name` as one case of `Choice` (a format), `fallback` when absent.
    func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, default fallback: Choice) throws(UsageError) -> Choice
    where Choice.RawValue == String {
        guard let text = value(name) else { return fallback }
        if let choice = Choice(rawValue: text) { return choice }
        let names = Choice.allCases.map(\.rawValue)
        let hint = Suggestions.closest(to: text, in: names).map { " (did you mean '\($0)'?)" } ?? ""
        throw UsageError("--\(name): unknown format '\(text)'\(hint); expected \(names.joined(separator: ", "))")
    }
}
