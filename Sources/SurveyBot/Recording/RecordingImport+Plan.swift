import Foundation
import SurveyJourney

/// The plan text of an import, and its summary: what `ImportCommand` writes and prints.
extension RecordingImport {
    /// What the import did, a line each: the counts, each kind of request left out, each
    /// correlation (from where, to where), each secret's variable and where it goes, each
    /// guess. No recorded value is in it.
    var summary: [String] {
        var lines = [
            "recorded \(selection.kept.count + selection.dropped.count) requests of \(selection.origin): "
                + "\(requests.count) kept as steps, \(selection.dropped.count) left out"
        ]
        lines += left.map { "left out: \($0)" }
        for correlation in correlations {
            let sources = Self.steps(correlation.sources.map { (names[$0.step], "(\($0.source.phrase))") })
            let uses = Self.steps(correlation.uses.map { (names[$0.step], $0.label) })
            lines.append("correlation: ${session.\(correlation.capture)} from \(sources) → \(uses)")
        }
        for secret in secrets {
            lines.append("secret: ${\(secret.name)} → \(Self.steps(secret.uses.map { (names[$0.step], $0.label) }))")
        }
        for guess in guesses {
            lines.append("guess: " + (guess.step.map { "step '\(names[$0])' " } ?? "") + guess.text)
        }
        if options.thinkTimes, thinks.contains(where: { $0 != nil }) {
            lines.append("guess: each step's think is the pause the recording made before it, ±25%")
        }
        return lines
    }

    /// Steps, each with what happens there (`(its form field X)`, `form field X`), listed once
    /// each; more than three alike in what happens are one entry — `34 steps 'index' … 'index_34'
    /// (its form field X)`, where the first of them was — so that a long walk's line stays a line.
    static func steps(_ items: [(step: String, what: String)]) -> String {
        var byWhat: [String: [String]] = [:]
        for (step, what) in items where byWhat[what]?.contains(step) != true { byWhat[what, default: []].append(step) }
        var parts: [String] = []
        for (step, what) in items {
            let steps = byWhat[what] ?? []
            let part =
                steps.count > 3 ? "\(steps.count) steps '\(steps[0])' … '\(steps[steps.count - 1])' \(what)" : "step '\(step)' \(what)"
            if !parts.contains(part) { parts.append(part) }
        }
        return parts.joined(separator: ", ")
    }

    /// The pause before each step, from the recorded gap between the previous response's end
    /// and its start, as a range ±25% (in milliseconds); nil under 100ms or unknown.
    var thinks: [ClosedRange<Int>?] {
        requests.indices.map { index in
            guard index > 0, let start = requests[index].entry.started, let end = requests[index - 1].entry.ended else { return nil }
            let gap = start - end
            guard gap >= 0.1 else { return nil }
            return Int((gap * 750).rounded())...Int((gap * 1250).rounded())
        }
    }

    /// The plan, headed by comments: where it came from, the variables it needs, the summary.
    var planText: String {
        var lines = ["# \(options.name).plan — imported by survey-bot import from \(options.source)."]
        if !secrets.isEmpty {
            lines += ["#", "# Set before running (the recording's values are never written here):"]
            lines += secrets.map { "#   \($0.name)" }
        }
        lines.append("#")
        lines += summary.map { "# " + TerminalText.escaped($0, limit: 2_000) }
        lines += [
            "", "name: \(PlanValueText.write([.literal(options.name)]))", "target: \(PlanValueText.write([.literal(selection.origin)]))",
            "respondents: 1", "concurrency: 1", "", "journey:",
        ]
        let thinks = options.thinkTimes ? self.thinks : Array(repeating: nil, count: requests.count)
        for (index, request) in requests.enumerated() {
            let loop = pageLoops.first { $0.first == index }
            if pageLoops.contains(where: { ($0.first + 1...$0.last).contains(index) }) { continue }
            lines.append("  \(names[index]):")
            lines.append("    request: \(PlanValueText.write(request.requestLine))")
            if loop != nil { lines.append("    runs: per_page") }
            var think = thinks[index]
            if options.thinkTimes, case .form(let page)? = loop?.reader { think = page.think }
            if let think { lines.append("    think: \(think.lowerBound)ms..\(think.upperBound)ms") }
            if !request.headers.isEmpty {
                lines.append("    headers:")
                for (position, header) in request.headers.enumerated() {
                    lines.append(
                        "      \(PlanValueText.key(header.name)): \(PlanValueText.write(request.pieces(header.value, at: .header(position))))"
                    )
                }
            }
            switch loop?.reader {
            case .form(let page)?: lines += formLoopBody(request, page: page)
            case .json(let page)?: lines += bodyLines(request, answersAt: page.member)
            case nil: lines += bodyLines(request, answersAt: nil)
            }
            switch pageLoops.first(where: { $0.opened == index || $0.first == index })?.reader {
            case .json(let reader)?:
                lines += [
                    "    questions: \(PlanValueText.write([.literal(reader.list)]))",
                    "    question_id: \(PlanValueText.write([.literal(reader.idField)]))",
                    "    question_text: \(PlanValueText.write([.literal(reader.textField)]))",
                ]
            case .form(let reader)?:
                lines += ["    questions: \(PlanValueText.write([.literal("regex " + reader.questions)]))", "    question_choices: form"]
            case nil:
                break
            }
            if let loop { lines.append("    pages: \(max(10, 2 * (loop.last - loop.first + 1)))") }
            let stepCaptures = (loop.map { Array($0.first...$0.last) } ?? [index]).flatMap { captures[$0] ?? [] }.uniqued()
            if !stepCaptures.isEmpty {
                lines.append("    capture:")
                for capture in stepCaptures {
                    lines.append("      \(capture.name): \(PlanValueText.write([.literal(capture.source.planText)]))")
                }
            }
            let status = request.entry.response.status
            if !(200..<300).contains(status) {
                lines += ["    expect:", "      - status == \(status)"]
            }
        }
        if !answers.isEmpty {
            lines += ["", "answers:"]
            lines += answers.map { answer in
                // A value that reads as a picker (`choice()`) is quoted: it was typed, and is sent as it is.
                func single(_ text: String) -> String {
                    let written = PlanValueText.write([.literal(text)])
                    return written.hasSuffix(")") && written.contains("(") ? PlanValueText.quotedText(text) : written
                }
                let value =
                    answerPickers[answer.id]
                    ?? (answer.values.count == 1
                        ? single(answer.values[0]) : "[" + answer.values.map(PlanValueText.quotedText).joined(separator: ", ") + "]")
                return "  \(PlanValueText.key(answer.id)): \(value)"
            }
            if pageLoops.contains(where: { if case .form = $0.reader { true } else { false } }) {
                lines.append(#"  "*": skip()                           # a field no recording answered is left out, as the person left it"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An HTML page loop's form: the page's own fields first (`form *`), then the fields every
    /// post sent alike, as recorded, and the button pressed; the answers go after them.
    private func formLoopBody(_ request: RecordedRequest, page: FormPage) -> [String] {
        var lines = ["    form:", "      \"*\": ${session.\(page.formCapture)}"]
        for (position, field) in (Self.formFields(of: request) ?? []).enumerated() {
            if page.extras.contains(field.name) {
                lines.append(
                    "      \(PlanValueText.key(field.name)): \(PlanValueText.write(request.pieces(field.value, at: .field(position))))")
            } else if field.name == page.button?.field {
                lines.append("      \(PlanValueText.key(field.name)): ${session.\(page.buttonCapture)}")
            }
        }
        return lines
    }

    private func bodyLines(_ request: RecordedRequest, answersAt member: [JSONLocator.Step]?) -> [String] {
        switch request.body {
        case .none:
            return []
        case .json(let value):
            var pieces: [ValuePiece] = []
            JSONPieces.write(value, path: [], request: request, answersAt: member, into: &pieces)
            return ["    body: \(PlanValueText.writeJSON(pieces))"]
        case .form(let fields):
            return ["    form:"]
                + fields.enumerated().map { position, field in
                    "      \(PlanValueText.key(field.name)): \(PlanValueText.write(request.pieces(field.value, at: .field(position))))"
                }
        case .text(let text, let contentType):
            return [
                "    text: \(PlanValueText.write(request.pieces(text, at: .text)))",
                "    content_type: \(PlanValueText.write([.literal(contentType)]))",
            ]
        }
    }
}

/// A JSON body as pieces: recorded JSON text, and the variables in place of the values
/// replaced — a captured string whole as `${session.NAME}` (the template puts it in as a JSON
/// string), anything else inside its string.
enum JSONPieces {
    static func write(
        _ value: JSONValue, path: [JSONLocator.Step], request: RecordedRequest, answersAt member: [JSONLocator.Step]? = nil,
        into pieces: inout [ValuePiece]
    ) {
        if path == member {
            pieces.append(.variable(.answers))
            return
        }
        func literal(_ text: String) {
            if case .literal(let last) = pieces.last {
                pieces[pieces.count - 1] = .literal(last + text)
            } else {
                pieces.append(.literal(text))
            }
        }
        switch value {
        case .null: literal("null")
        case .bool(let flag): literal(flag ? "true" : "false")
        case .integer(let number): literal(String(number))
        case .number(_, let text): literal(text)
        case .string(let text):
            let parts = request.pieces(text, at: .member(path))
            if parts.count == 1, case .variable(.session) = parts[0] {
                pieces.append(parts[0])
                return
            }
            literal("\"")
            for part in parts {
                switch part {
                case .literal(let text): literal(String(JSONValue.quoted(text).dropFirst().dropLast()))
                case .variable: pieces.append(part)
                }
            }
            literal("\"")
        case .array(let elements):
            literal("[")
            for (index, element) in elements.enumerated() {
                if index > 0 { literal(", ") }
                write(element, path: path + [.index(index)], request: request, answersAt: member, into: &pieces)
            }
            literal("]")
        case .object(let members):
            literal("{")
            for (index, (name, value)) in members.enumerated() {
                if index > 0 { literal(", ") }
                literal(JSONValue.quoted(name) + ": ")
                write(value, path: path + [.name(name)], request: request, answersAt: member, into: &pieces)
            }
            literal("}")
        }
    }
}

/// Plan scalars and keys as the plan's lexer reads them back: bare when that is safe,
/// else double-quoted with the recorded text escaped and the variables as they are.
enum PlanValueText {
    /// Characters a bare scalar may hold anywhere.
    private static let bare = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-:?=&%,@+~;!*() ")

    static func write(_ pieces: [ValuePiece]) -> String {
        let literal = pieces.compactMap { piece -> String? in
            if case .literal(let text) = piece { return text }
            return nil
        }
        let whole = pieces.map(text).joined()
        // A `$` is bare text unless a `{` follows it, which would read as a variable.
        let bareText = literal.allSatisfy { text in
            zip(text, text.dropFirst().map(Optional.some) + [nil]).allSatisfy { character, next in
                bare.contains(character) || (character == "$" && next != "{")
            }
        }
        let safe =
            !whole.isEmpty && bareText && !whole.hasPrefix(" ") && !whole.hasSuffix(" ")
            && (whole.first.map { $0.isLetter || $0.isNumber || "/$_.".contains($0) } ?? false) && !whole.contains(": ")
        if safe { return whole }
        return "\"" + pieces.map(quoted).joined() + "\""
    }

    /// A JSON body: single-quoted (its quotes need no escape) unless it holds a variable of
    /// the environment, which only a double-quoted scalar fills in.
    static func writeJSON(_ pieces: [ValuePiece]) -> String {
        let fromEnvironment = pieces.contains { piece in
            if case .variable(.environment) = piece { return true }
            return false
        }
        if fromEnvironment { return "\"" + pieces.map(quoted).joined() + "\"" }
        return "'" + pieces.map(text).joined().replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A value always double-quoted: an item of a list, where a comma would end it.
    static func quotedText(_ text: String) -> String {
        "\"" + quoted(.literal(text)) + "\""
    }

    /// A key: bare when it is letters, digits, `_`, `-` and `.`, else double-quoted.
    static func key(_ name: String) -> String {
        let plain = !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) }
        return plain ? name : "\"" + quoted(.literal(name)) + "\""
    }

    private static func text(_ piece: ValuePiece) -> String {
        switch piece {
        case .literal(let text): text
        case .variable(let replacement): replacement.template
        }
    }

    private static func quoted(_ piece: ValuePiece) -> String {
        guard case .literal(let text) = piece else { return self.text(piece) }
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "$": result += "\\$"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\r\n": result += "\\r\\n"
            case "\t": result += "\\t"
            default: result.append(character)
            }
        }
        return result
    }
}
