import SurveyWire

/// What a survey says of how one of its questions is answered: the choices it offers, its type,
/// whether it must be answered, its bounds, and the group (page) it is listed in. Read with the
/// questions, where the plan says each is (`QuestionDetails.Shape`); a respondent picks its
/// answer from them (`AnswerPicker`).
public struct QuestionDetails: Sendable, Hashable {
    /// The choices it offers, in the survey's order; empty when it lists none (a text question).
    public var choices: [Choice] = []
    /// Its type as the survey names it (`MC`, `single_choice`, `radio`); nil when not given.
    public var type: String?
    /// Whether the survey says it must be answered; nil when it does not say.
    public var required: Bool?
    /// The least number it takes, where the survey gives it (`number()`'s lower bound).
    public var minimum: Int?
    /// The greatest number it takes, where the survey gives it.
    public var maximum: Int?
    /// The position of its group among the response's groups (`Shape.group`); -1 for none.
    public var group: Int32 = -1
    /// Its group's id, as text; empty for none.
    public var groupID: String = ""
    /// Its group's other fields the journey uses (`Group.fields`), as text, in that order.
    public var groupFields: [String] = []

    /// Details with nothing said.
    public init() {}

    /// One choice of a question: its id, which an answer sends, and its label, which people read.
    public struct Choice: Sendable, Hashable {
        /// The id as text.
        public var id: String
        /// Whether the survey gave the id as a JSON integer: it then goes into JSON as one.
        public var isInteger: Bool
        /// The label; the id when the survey gives none.
        public var label: String

        /// A choice.
        public init(id: String, label: String, isInteger: Bool = false) {
            self.id = id
            self.label = label
            self.isInteger = isInteger
        }
    }

    /// Where the details are: paths inside each question's item, or, in an HTML page, the
    /// inputs of the field named by the question's id.
    public struct Shape: Sendable, Hashable {
        /// Where a question lists its choices.
        public var choices: ChoicesSource?
        /// Where a choice listed as an object holds its id.
        public var choiceID = JSONPath(names: ["id"])
        /// Where a choice listed as an object (or the value of a choice keyed by id) holds its label.
        public var choiceLabel = JSONPath(names: ["label"])
        /// Where a question holds its type.
        public var type: JSONPath?
        /// Where a question says whether it must be answered.
        public var required: JSONPath?
        /// Where a question holds the least number it takes.
        public var minimum: JSONPath?
        /// Where a question holds the greatest number it takes.
        public var maximum: JSONPath?
        /// The groups the questions are listed in (`$.pages[*]`): a parent of the questions' path.
        public var group: Group?

        /// A shape that reads nothing.
        public init() {}
    }

    /// Where a question's choices are.
    public enum ChoicesSource: Sendable, Hashable {
        /// A path inside the question: a list of objects (each with an id and a label), a list of
        /// scalars (each its own id and label), or an object keyed by choice id (Qualtrics').
        case path(JSONPath)
        /// In an HTML page: the values the radio buttons, checkboxes and `<option>`s of the field
        /// named by the question's id offer.
        case form
    }

    /// The groups of a response that hold the questions: each page with its id.
    public struct Group: Sendable, Hashable {
        /// The path to the groups, a parent of the questions' (`$.pages[*]` of
        /// `$.pages[*].questions[*]`).
        public var path: JSONPath
        /// Where a group holds its id.
        public var id = JSONPath(names: ["id"])
        /// The other fields each group is read with, for `${group.FIELD}`: a string as it is, a
        /// number as its digits. A group without one breaks the contract.
        public var fields: [String] = []

        /// The groups at `path`.
        public init(path: JSONPath) {
            self.path = path
        }

        /// Whether the questions' `list` goes through the groups: `path`'s steps are its first.
        public func isParent(of list: JSONPath) -> Bool {
            list.segments.count > path.segments.count && Array(list.segments.prefix(path.segments.count)) == path.segments
        }

        /// The question items of every group in `value`, each with its group's position, and the
        /// groups' ids (as text; a group without one is its position from 1).
        func items(
            in value: JSONValue, list: JSONPath
        ) -> (items: [JSONValue], groups: [Int32], ids: [String], fields: [[String]], missing: String?) {
            let rest = JSONPath(segments: Array(list.segments.dropFirst(path.segments.count)))
            var items: [JSONValue] = []
            var groups: [Int32] = []
            var ids: [String] = []
            var values: [[String]] = []
            var missing: String?
            for (position, group) in path.select(in: value).enumerated() {
                ids.append(QuestionDetails.text(id.first(in: group)) ?? String(position + 1))
                values.append(
                    fields.map { field in
                        guard let text = QuestionDetails.text((try? JSONPath(parsing: field))?.first(in: group)) else {
                            missing = missing ?? "group \(ids[position]) has no '\(field)' (for ${group.\(field)})"
                            return ""
                        }
                        if text.unicodeScalars.contains(where: { HTTPSyntax.isControl($0) && $0 != "\t" }) {
                            missing = missing ?? "group \(ids[position])'s '\(field)' holds a control character"
                        }
                        return text
                    })
                let found = rest.select(in: group)
                let elements: [JSONValue] =
                    rest.selectsMany
                    ? found.flatMap { if case .array(let elements) = $0 { elements } else { [$0] } }
                    : found.first.map { if case .array(let elements) = $0 { elements } else { [] } } ?? []
                items.append(contentsOf: elements)
                groups.append(contentsOf: repeatElement(Int32(position), count: elements.count))
            }
            return (items, groups, ids, values, missing)
        }
    }

    /// A scalar as text: a string as it is, a number as written, a boolean as `true`/`false`.
    static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .integer(let number)?: String(number)
        case .number(_, let text)?: text
        case .bool(let flag)?: String(flag)
        default: nil
        }
    }
}

extension QuestionDetails.Shape {
    /// The details `item` gives, in group `group` of `groupIDs`; or what is wrong with them, as
    /// a phrase (`'choices' is not a list or an object`). A detail that is absent is not wrong:
    /// a text question lists no choices.
    func read(
        _ item: JSONValue, group: Int32, groupIDs: [String], groupFields: [[String]] = []
    ) -> Result<QuestionDetails, QuestionDetails.Why> {
        var details = QuestionDetails()
        if group >= 0 {
            details.group = group
            details.groupID = groupIDs[Int(group)]
            if Int(group) < groupFields.count { details.groupFields = groupFields[Int(group)] }
        }
        if case .path(let path) = choices, let listed = path.first(in: item), listed != .null {
            switch readChoices(listed) {
            case .success(let found): details.choices = found
            case .failure(let why): return .failure(QuestionDetails.Why("'\(path)' \(why.phrase)"))
            }
        }
        if let type { details.type = QuestionDetails.text(type.first(in: item)) }
        if let required {
            switch required.first(in: item) {
            case .bool(let flag)?: details.required = flag
            case .integer(let number)?: details.required = number != 0
            case .string(let text)?: details.required = ["y", "yes", "true", "1", "required", "mandatory"].contains(text.lowercased())
            // SurveyMonkey's `"required": {"text": …, "type": "all"}`, null when optional.
            case .object?: details.required = true
            case .null?: details.required = false
            default: break
            }
        }
        if let minimum { details.minimum = Self.integer(minimum.first(in: item), roundingUp: true) }
        if let maximum { details.maximum = Self.integer(maximum.first(in: item), roundingUp: false) }
        return .success(details)
    }

    private func readChoices(_ listed: JSONValue) -> Result<[QuestionDetails.Choice], QuestionDetails.Why> {
        var found: [QuestionDetails.Choice] = []
        switch listed {
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if case .object = element {
                    let value = choiceID.first(in: element)
                    guard let id = QuestionDetails.text(value), !id.isEmpty else {
                        return .failure(QuestionDetails.Why("has a choice (\(index + 1)) without '\(choiceID)'"))
                    }
                    let label = Self.plain(QuestionDetails.text(choiceLabel.first(in: element)) ?? id)
                    found.append(QuestionDetails.Choice(id: id, label: label, isInteger: value.map(Self.isInteger) ?? false))
                } else if let id = QuestionDetails.text(element), !id.isEmpty {
                    found.append(QuestionDetails.Choice(id: id, label: id, isInteger: Self.isInteger(element)))
                } else {
                    return .failure(QuestionDetails.Why("has a choice (\(index + 1)) that is neither an object nor a scalar"))
                }
            }
        case .object(let members):
            for (key, value) in members {
                let label =
                    if case .object = value { QuestionDetails.text(choiceLabel.first(in: value)) ?? key } else {
                        QuestionDetails.text(value) ?? key
                    }
                found.append(QuestionDetails.Choice(id: key, label: Self.plain(label)))
            }
        default:
            return .failure(QuestionDetails.Why("is not a list or an object of choices"))
        }
        // A choice id may go into a path, a header or a form: nothing in it may end a line.
        if let bad = found.first(where: { $0.id.unicodeScalars.contains(where: HTTPSyntax.isControl) }) {
            return .failure(QuestionDetails.Why("has a choice id with a control character (\(bad.id.debugDescription))"))
        }
        return .success(found)
    }

    /// A label as one line: its control characters (a multi-line label's line ends) as spaces,
    /// so that `${answer.label}` never ends a header line.
    private static func plain(_ label: String) -> String {
        guard label.unicodeScalars.contains(where: HTTPSyntax.isControl) else { return label }
        return String(String.UnicodeScalarView(label.unicodeScalars.map { HTTPSyntax.isControl($0) ? " " : $0 }))
    }

    private static func isInteger(_ value: JSONValue) -> Bool {
        if case .integer = value { true } else { false }
    }

    private static func integer(_ value: JSONValue?, roundingUp: Bool) -> Int? {
        switch value {
        case .integer(let number)?: return number
        case .number(let number, _)?:
            let rounded = roundingUp ? number.rounded(.up) : number.rounded(.down)
            return abs(rounded) < 1e15 ? Int(rounded) : nil
        case .string(let text)?: return Int(text)
        default: return nil
        }
    }
}

extension QuestionDetails {
    /// What is wrong with a question's details, as a phrase after its name.
    struct Why: Error {
        var phrase: String
        init(_ phrase: String) { self.phrase = phrase }
    }
}

extension QuestionDetails.Shape {
    /// Every path it reads, in a fixed order: what a plan's digest writes of it.
    public var digestText: String {
        let choices: String =
            switch self.choices {
            case .path(let path)?: path.text
            case .form?: "form"
            case nil: "-"
            }
        let paths = [type, required, minimum, maximum].map { $0?.text ?? "-" }
        let group = self.group.map { "\($0.path.text) \($0.id.text)" } ?? "-"
        return "details[\(choices) \(choiceID.text) \(choiceLabel.text) \(paths.joined(separator: " ")) \(group)]"
    }
}
