import SurveyWire

/// A question's id as the API gives it: a JSON integer (the survey contract's) or a string
/// (`"q1"`, LimeSurvey's `"900001X1X2"`). Two ids are the same when their text is — the plan's
/// `answers: 3:` answers the question `3` or `"3"` — and an id goes into JSON bodies as the API
/// gave it: a number, or a string.
public struct QuestionID: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The id as text: an integer's digits, or the string.
    public let text: String
    /// Whether the API gave it as a JSON integer.
    public let isInteger: Bool

    /// The id of an integer.
    public init(_ integer: Int) {
        text = String(integer)
        isInteger = true
    }

    /// The id of a string, as a plan or a data file names it, or as an API gives it.
    public init(_ text: String) {
        self.text = text
        isInteger = false
    }

    /// The id of an integer literal.
    public init(integerLiteral value: Int) {
        self.init(value)
    }

    /// The same text, whether given as a number or a string.
    public static func == (lhs: QuestionID, rhs: QuestionID) -> Bool { lhs.text == rhs.text }

    /// Its text's hash, as `==` compares the text alone.
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// The text.
    public var description: String { text }
}

/// One question of the survey, as `GET /questions` lists it.
public struct SurveyQuestion: Sendable, Hashable {
    /// The question's id, unique within a list: what a submit names and `AnswerBook` keys on.
    public var id: QuestionID
    /// Its wording.
    public var text: String
    /// Its other fields the journey uses (`Shape.fields`), as text, in that order.
    public var fields: [String] = []
    /// What the survey says of how it is answered, where the shape reads it (`Shape.details`):
    /// its choices, type, whether it is required, its bounds, its group. Nil without.
    public var details: QuestionDetails? {
        get { box?.details }
        set { box = newValue == nil && box?.plan == nil ? nil : Box(details: newValue, plan: box?.plan) }
    }
    /// How the run's answers answer it, worked out once for every respondent that reads the same
    /// questions (`AnswerBook.plan(for:)`); nil until then. No part of the question's equality.
    package var answerPlan: AnswerPlan? {
        get { box?.plan }
        set { box = newValue == nil && box?.details == nil ? nil : Box(details: box?.details, plan: newValue) }
    }
    /// The details and the plan behind one reference: a question is copied on every answer, and
    /// a pointer costs one retain where the details inline would cost a hundred bytes and a
    /// retain each.
    private var box: Box?

    /// Whether the survey says it must be answered, read in place.
    public var isRequired: Bool { box?.details?.required == true }
    /// Its type as the survey names it, read in place.
    public var type: String? { box?.details?.type }

    /// Details and a plan that never change once a question holds them, shared by its copies.
    private final class Box: Sendable {
        let details: QuestionDetails?
        let plan: AnswerPlan?

        init(details: QuestionDetails?, plan: AnswerPlan?) {
            self.details = details
            self.plan = plan
        }
    }

    /// The same id, wording, fields and details; how it is answered is not compared.
    public static func == (lhs: SurveyQuestion, rhs: SurveyQuestion) -> Bool {
        lhs.id == rhs.id && lhs.text == rhs.text && lhs.fields == rhs.fields && (lhs.box === rhs.box || lhs.details == rhs.details)
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(text)
        hasher.combine(fields)
        hasher.combine(details)
    }

    /// A question with its id and wording.
    public init(id: QuestionID, text: String) {
        self.id = id
        self.text = text
    }

    /// Why a questions body breaks the survey contract. A respondent that receives such a body
    /// counts the attempt as `malformed_response`.
    public struct ContractError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, as a phrase to follow a colon: `question 3 has no 'id'`.
        public var description: String
    }

    /// Where the questions are in a response, and where each holds its id and text: the survey
    /// contract by default, a look-alike backend's paths otherwise.
    public struct Shape: Sendable, Hashable {
        /// The path to the list (`data.items`), or to the questions themselves across lists
        /// (`$.groups[*].questions[*]`); `$` for the top level.
        public var list: JSONPath
        /// Where a question holds its id, an integer or a string.
        public var id: JSONPath
        /// Where a question holds its text.
        public var text: JSONPath
        /// Instead of JSON paths, a regular expression over the body (an HTML page): each match
        /// is a question, its first group the id and its second, if any, the text; an id found
        /// again is the same question (a radio button's every choice names it).
        public var pattern: TextPattern?
        /// The other fields each question is read with, for `${question.FIELD}`: a string as it
        /// is, a number as its digits. A question without one breaks the contract.
        public var fields: [String] = []
        /// Where each question says how it is answered — its choices, type, required flag,
        /// bounds — and the groups (pages) it is listed in; nil when the plan reads none.
        public var details: QuestionDetails.Shape?

        /// A shape; the defaults are the survey contract.
        public init(
            list: JSONPath = JSONPath(names: []), id: JSONPath = JSONPath(names: ["id"]), text: JSONPath = JSONPath(names: ["question"])
        ) {
            self.list = list
            self.id = id
            self.text = text
        }

        /// The questions found by `pattern` in a body.
        public init(pattern: TextPattern) {
            self.init()
            self.pattern = pattern
        }

        /// The survey contract: `[{"id": 1, "question": "…"}, …]`.
        public static let contract = Shape()
    }

    /// Reads the survey contract: a non-empty JSON array of objects with an `id` (unique; an
    /// integer, or a string of printable characters) and a string `question`; other fields are
    /// ignored. With another `shape`, the questions are found where its paths say: a path that
    /// may select many (`[*]`) takes every question it selects, the elements of every list it
    /// selects.
    /// With `page`, the response of a page loop: no list, or an empty one, is the last page's
    /// response, and reads as no questions.
    public static func list(
        from body: some Collection<UInt8>, shape: Shape = .contract, page: Bool = false
    ) -> Result<[SurveyQuestion], ContractError> {
        if let pattern = shape.pattern {
            if let field = shape.fields.first {
                return .failure(ContractError(description: "questions found by a regex have no '\(field)' (for ${question.\(field)})"))
            }
            var questions: [SurveyQuestion] = []
            var seen = Set<QuestionID>()
            for match in pattern.matches(in: String(decoding: body, as: UTF8.self)) {
                guard !match.first.isEmpty, !match.first.unicodeScalars.contains(where: HTTPSyntax.isControl) else { continue }
                let id = QuestionID(match.first)
                if seen.insert(id).inserted { questions.append(SurveyQuestion(id: id, text: match.second ?? match.first)) }
            }
            if questions.isEmpty, !page {
                return .failure(ContractError(description: "no question matches regex \(pattern)"))
            }
            if shape.details?.choices == .form {
                let fields = HTMLChoices(page: String(decoding: body, as: UTF8.self))
                for index in questions.indices { questions[index].details = fields.details(of: questions[index].id.text) }
            }
            return .success(questions)
        }
        let value: JSONValue
        switch JSONValue.parse(body) {
        case .success(let parsed): value = parsed
        case .failure(let error): return .failure(ContractError(description: "the questions are not JSON: \(error)"))
        }
        let items: [JSONValue]
        var groups: [Int32] = []
        var groupIDs: [String] = []
        var groupFields: [[String]] = []
        let matches = shape.list.select(in: value)
        if let group = shape.details?.group {
            let found = group.items(in: value, list: shape.list)
            if let missing = found.missing { return .failure(ContractError(description: missing)) }
            items = found.items
            groups = found.groups
            groupIDs = found.ids
            groupFields = found.fields
        } else if shape.list.selectsMany {
            items = matches.flatMap { match -> [JSONValue] in
                if case .array(let elements) = match { return elements }
                return [match]
            }
        } else {
            guard let list = matches.first, !(page && list == .null) else {
                if page { return .success([]) }
                return .failure(ContractError(description: "the questions response has no '\(shape.list)'"))
            }
            guard case .array(let elements) = list else {
                return .failure(ContractError(description: "the questions are not a JSON array"))
            }
            items = elements
        }
        guard !items.isEmpty else {
            return page ? .success([]) : .failure(ContractError(description: "the questions list is empty"))
        }
        var questions: [SurveyQuestion] = []
        questions.reserveCapacity(items.count)
        var seen = Set<QuestionID>()
        for (index, item) in items.enumerated() {
            let id: QuestionID
            switch shape.id.first(in: item) {
            case .integer(let number)?: id = QuestionID(number)
            case .string(let text)? where !text.isEmpty:
                // An id may go into a path or a header: nothing in it may end a line.
                guard !text.unicodeScalars.contains(where: HTTPSyntax.isControl) else {
                    return .failure(ContractError(description: "question \(index + 1)'s '\(shape.id)' holds a control character"))
                }
                id = QuestionID(text)
            default:
                return .failure(ContractError(description: "question \(index + 1) has no '\(shape.id)', an integer or a string"))
            }
            guard case .string(let text)? = shape.text.first(in: item) else {
                return .failure(ContractError(description: "question \(index + 1) has no string '\(shape.text)'"))
            }
            guard seen.insert(id).inserted else {
                return .failure(ContractError(description: "question id \(id) appears twice"))
            }
            var question = SurveyQuestion(id: id, text: text)
            for field in shape.fields {
                let path = try? JSONPath(parsing: field)
                switch path.flatMap({ $0.first(in: item) }) {
                case .string(let value)?:
                    // A field may go into a header or a path, as an id does: nothing in it may end a line.
                    guard !value.unicodeScalars.contains(where: { HTTPSyntax.isControl($0) && $0 != "\t" }) else {
                        return .failure(ContractError(description: "question \(id)'s '\(field)' holds a control character"))
                    }
                    question.fields.append(value)
                case .integer(let value)?: question.fields.append(String(value))
                case .number(_, let text)?: question.fields.append(text)
                case .bool(let value)?: question.fields.append(String(value))
                default: return .failure(ContractError(description: "question \(index + 1) has no '\(field)' (for ${question.\(field)})"))
                }
            }
            if let details = shape.details {
                switch details.read(item, group: groups.isEmpty ? -1 : groups[index], groupIDs: groupIDs, groupFields: groupFields) {
                case .success(let read): question.details = read
                case .failure(let why): return .failure(ContractError(description: "question \(id)'s \(why.phrase)"))
                }
            }
            questions.append(question)
        }
        return .success(questions)
    }

    /// The JSON array `GET /questions` answers with: `[{"id":1,"question":"…"},…]`, in the
    /// order given, which `list(from:)` reads back.
    public static func json(_ questions: [SurveyQuestion]) -> String {
        let items = questions.map { question in
            let id = question.id.isInteger ? question.id.text : JSONValue.quoted(question.id.text)
            return "{\"id\":\(id),\"question\":\(JSONValue.quoted(question.text))}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }
}

extension [SurveyQuestion] {
    /// The answer plan of the question at `index`, read where it lies. A respondent asks for it
    /// on every answer, and the getter called from another module on an element of an array
    /// was called on a copy of the question: a retain and a release of each of its references.
    package func answerPlan(at index: Int) -> AnswerPlan? { self[index].answerPlan }
}
