/// Text with per-respondent variables in it — `${row.COLUMN}`, `${respondent.id}`,
/// `${question.id}`, `${answer}`, `${session.NAME}` — read once into literal runs and variables,
/// so that filling it in for a request only concatenates.
///
/// Only these names are variables: `${NAME}` without a dot is an environment variable, which the
/// plan reader has replaced before the engine sees the text (`${answer}` and `${answers}` are
/// the exceptions, and so are reserved).
public struct TextTemplate: Sendable, Hashable {
    /// A value known only when a respondent runs.
    public enum Variable: Sendable, Hashable, CustomStringConvertible {
        /// The respondent's data row's value in the named column.
        case row(String)
        /// The respondent's number in the run, from 0.
        case respondentID
        /// The id of the question being submitted.
        case questionID
        /// Another field of the question being submitted, as the API listed it: a path in its
        /// item (`${question.gid}`, `${question.page.id}`).
        case questionField(String)
        /// The answer being submitted.
        case answer
        /// The label of the choice being submitted (the answer itself when it is no choice).
        case answerLabel
        /// The id of the group (page) whose answers are being laid out (`answers_group`).
        case groupID
        /// Another field of that group, as the response listed it: a path in its item
        /// (`${group.title}`).
        case groupField(String)
        /// A value captured from the login response (`api.capture`).
        case session(String)
        /// Every answer of the survey at once, as JSON, for a step run once per survey
        /// (`JourneyStep.Runs.perSurvey`).
        case answers

        /// As written: `${row.colour}`.
        public var description: String {
            switch self {
            case .row(let column): "${row.\(column)}"
            case .respondentID: "${respondent.id}"
            case .questionID: "${question.id}"
            case .questionField(let path): "${question.\(path)}"
            case .answer: "${answer}"
            case .answerLabel: "${answer.label}"
            case .groupID: "${group.id}"
            case .groupField(let path): "${group.\(path)}"
            case .session(let name): "${session.\(name)}"
            case .answers: "${answers}"
            }
        }
    }

    /// A run of literal text, or a variable.
    public enum Segment: Sendable, Hashable {
        /// Text as written.
        case literal(String)
        /// A variable, filled in per respondent or per request.
        case variable(Variable)
    }

    /// The text's parts in order.
    public var segments: [Segment]

    /// A template of `segments`.
    public init(segments: [Segment]) {
        self.segments = segments
    }

    /// The variables the text uses, in order, repeats included.
    public var variables: [Variable] {
        segments.compactMap { if case .variable(let variable) = $0 { variable } else { nil } }
    }

    /// Whether the text has no variable: it is the same for every respondent.
    public var isConstant: Bool { variables.isEmpty }

    /// Text with every `${…}` of a known kind read as a variable; any other `${…}` is an error
    /// (environment variables are gone by now), and so is a `${` without its `}`.
    public init(parsing text: String) throws(TemplateError) {
        let scalars = Array(text.unicodeScalars)
        var segments: [Segment] = []
        var literal = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "$", index + 1 < scalars.count, scalars[index + 1] == "{" else {
                literal.append(scalars[index])
                index += 1
                continue
            }
            guard let close = scalars[(index + 2)...].firstIndex(of: "}") else {
                throw TemplateError("unterminated '${': missing '}'", offset: index)
            }
            let name = String(String.UnicodeScalarView(scalars[(index + 2)..<close]))
            guard let variable = Self.variable(named: name) else {
                throw TemplateError(
                    "unknown variable '${\(name)}' (known: ${row.COLUMN}, ${respondent.id}, ${question.id}, ${question.FIELD}, ${answer}, ${answer.label}, ${answers}, ${group.id}, ${group.FIELD}, "
                        + "${session.NAME})",
                    offset: index)
            }
            if !literal.isEmpty {
                segments.append(.literal(String(literal)))
                literal = String.UnicodeScalarView()
            }
            segments.append(.variable(variable))
            index = close + 1
        }
        if !literal.isEmpty { segments.append(.literal(String(literal))) }
        self.segments = segments
    }

    /// Throws when a variable stands where it cannot in a JSON body (`${answers}` inside a string).
    public func checkPlacesInJSON() throws(TemplateError) {
        let rows = variables.compactMap { variable -> String? in if case .row(let name) = variable { name } else { nil } }
        let captures = variables.compactMap { variable -> String? in if case .session(let name) = variable { name } else { nil } }
        let fields = variables.compactMap { variable -> String? in if case .questionField(let path) = variable { path } else { nil } }
        let groupFields = variables.compactMap { variable -> String? in if case .groupField(let path) = variable { path } else { nil } }
        _ = try CompiledTemplate(self, .json, columns: rows, captures: captures, questionFields: fields, groupFields: groupFields)
    }

    /// The text as a JSON body would be sent, every variable filled in with a sample value (a
    /// number `1`, a string `"x"`): to check that a body template is JSON before any run.
    public func sampleJSON() -> [UInt8] {
        let rows = variables.compactMap { variable -> String? in if case .row(let name) = variable { name } else { nil } }
        let captures = variables.compactMap { variable -> String? in if case .session(let name) = variable { name } else { nil } }
        let fields = variables.compactMap { variable -> String? in if case .questionField(let path) = variable { path } else { nil } }
        let groupFields = variables.compactMap { variable -> String? in if case .groupField(let path) = variable { path } else { nil } }
        guard
            let compiled = try? CompiledTemplate(
                self, .json, columns: rows, captures: captures, questionFields: fields, groupFields: groupFields)
        else {
            return []
        }
        return compiled.render(
            CompiledTemplate.Values(
                row: rows.map { _ in "x" }, respondentID: 1, session: captures.map { _ in "x" }, questionID: 1,
                questionFields: fields.map { _ in "x" }, answer: "x", answers: Array(#"{"1":"x"}"#.utf8)))
    }

    /// Whether `text` holds anything this type reads as a variable (or tries to).
    public static func mentionsVariables(_ text: String) -> Bool {
        text.contains("${")
    }

    private static func variable(named name: String) -> Variable? {
        switch name {
        case "respondent.id": return .respondentID
        case "question.id": return .questionID
        case "answer": return .answer
        case "answer.label": return .answerLabel
        case "group.id": return .groupID
        case "answers": return .answers
        default:
            if name.hasPrefix("row."), name.count > 4 { return .row(String(name.dropFirst(4))) }
            if name.hasPrefix("session."), name.count > 8 { return .session(String(name.dropFirst(8))) }
            if name.hasPrefix("group."), name.count > 6, (try? JSONPath(parsing: String(name.dropFirst(6)))) != nil {
                return .groupField(String(name.dropFirst(6)))
            }
            if name.hasPrefix("question."), name.count > 9, (try? JSONPath(parsing: String(name.dropFirst(9)))) != nil {
                return .questionField(String(name.dropFirst(9)))
            }
            return nil
        }
    }
}

/// Why text is not a template: what is wrong, and where.
public struct TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, such as "unknown variable '${row.colour}'".
    public var description: String
    /// The offset of the `${` at fault, in Unicode scalars from the text's start.
    public var offset: Int

    /// An error at `offset`.
    public init(_ description: String, offset: Int) {
        self.description = description
        self.offset = offset
    }
}
