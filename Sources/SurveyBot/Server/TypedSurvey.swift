import SurveyJourney

/// Which survey the reference server serves under the `contract`, `pages`, `one_post` and `html` shapes
/// (`builtin.survey`, `serve --survey`).
enum ServedSurvey: String, Sendable, Hashable, CaseIterable {
    /// Free-text questions, as many as `builtin.questions` asks for: any string answers them.
    case plain
    /// `TypedSurvey.standard`: choices, numbers, required questions and a branch, each answer
    /// checked as a survey platform checks it.
    case typed
}

/// A survey whose questions have a type, choices or bounds, a required flag and perhaps a
/// condition, laid out on pages: what a respondent must read to answer as a person does. The
/// reference server lists it, checks every answer against it and refuses, naming the reason,
/// what no person could have given; it counts what it stored by question and value.
struct TypedSurvey: Sendable {
    /// What a question asks for, and so what answers it.
    enum Kind: String, Sendable {
        /// One choice id, a string.
        case single
        /// A JSON list of distinct choice ids, at least one.
        case multiple
        /// A whole number within the question's bounds: a JSON integer, or a string of digits
        /// (what a plan's fixed answer sends).
        case number
        /// Any string.
        case text

        /// The kind of input the `html` shape asks it with: `radio`, `checkbox`, `number`,
        /// `textarea` — its type as a plan's `question_choices: form` reads it.
        var input: String {
            switch self {
            case .single: "radio"
            case .multiple: "checkbox"
            case .number: "number"
            case .text: "textarea"
            }
        }
    }

    /// One choice of a `single` or `multiple` question.
    struct Choice: Sendable {
        let id: String
        let label: String
    }

    /// An answer that shows a question: question `question` answered with choice `choice` (of
    /// a `single`, or among those of a `multiple`).
    struct Condition: Sendable, Hashable {
        let question: String
        let choice: String
    }

    /// One question, with the fields the server lists it with.
    struct Question: Sendable {
        let id: String
        let text: String
        let kind: Kind
        /// Whether a response without it, when it was shown, is refused.
        let required: Bool
        var choices: [Choice] = []
        /// A `number`'s bounds, both included.
        var bounds: ClosedRange<Int> = 0...0
        /// Shown only when this holds; nil for always.
        var shownIf: Condition?
    }

    /// Why an answer or a response was refused, in the words of the `400`'s `error`.
    struct Refusal: Error, Sendable, Equatable {
        let reason: String
    }

    /// A submission that passed: how many questions it answers, the buckets it adds to the
    /// count by question and value (each choice of a `multiple` once, a number by its value,
    /// a text as `(text)`), and the conditions its choices make hold that some question is
    /// shown on.
    struct Checked: Sendable {
        var answers = 0
        var tally: [Tally] = []
        var holding: Set<Condition> = []
    }

    /// One bucket of the count by question and value.
    struct Tally: Sendable, Hashable {
        let question: String
        let value: String
    }

    /// The pages, each its questions in order. Every page has a question shown to everyone, so
    /// that a page loop never meets an empty page before the end.
    let pages: [[Question]]
    /// Each question's page, by id.
    private let pageOfQuestion: [String: Int]
    /// The conditions some question is shown on: the only ones a session needs to remember.
    private let branches: Set<Condition>

    init(pages: [[Question]]) {
        self.pages = pages
        pageOfQuestion = Dictionary(
            pages.enumerated().flatMap { index, page in page.map { ($0.id, index) } }, uniquingKeysWith: { first, _ in first })
        branches = Set(pages.joined().compactMap(\.shownIf))
    }

    /// Every question, page after page.
    var questions: [Question] { pages.flatMap { $0 } }

    /// The ids of the required questions: those a plan must have an answer for (the others may
    /// be skipped).
    var requiredIDs: [QuestionID] { questions.filter(\.required).map { QuestionID($0.id) } }

    /// The page a question is on (from 0); nil for none of the survey's.
    func page(of question: String) -> Int? { pageOfQuestion[question] }

    /// The id a page is listed with: `p1`, `p2`, …
    static func pageID(_ index: Int) -> String { "p\(index + 1)" }

    /// The page of id `id` (from 0); nil for none.
    func page(named id: String) -> Int? {
        guard id.hasPrefix("p"), let number = Int(id.dropFirst()), (1...pages.count).contains(number), id == Self.pageID(number - 1)
        else { return nil }
        return number - 1
    }

    /// The questions of page `index` shown to a respondent whose earlier answers make
    /// `holding` hold; none past the last page.
    func shown(page index: Int, holding: Set<Condition>) -> [Question] {
        guard pages.indices.contains(index) else { return [] }
        return pages[index].filter { $0.shownIf.map(holding.contains) ?? true }
    }

    /// Checks the answers `given` to a submission that covers `asked` (a page, or the whole
    /// survey), by their question's id, where earlier submissions made `holding` hold: each
    /// answer is of its question's type, a question shown only on a condition is answered only
    /// when it holds, and every required question shown is answered. Questions are taken in the
    /// survey's order, so the refusal names the first one that fails. Every id of `given` must
    /// be one of `asked`'s: the caller refuses the others first, in the words of its shape.
    func check(_ given: [String: JSONValue], asked: [Question], holding: Set<Condition>) -> Result<Checked, Refusal> {
        var checked = Checked()
        var holds = holding
        for question in asked {
            if let condition = question.shownIf, !holds.contains(condition) {
                guard given[question.id] == nil else {
                    return .failure(
                        Refusal(reason: "\(question.id) is not shown: it is asked only when \(condition.question) is \(condition.choice)"))
                }
                continue
            }
            guard let answer = given[question.id] else {
                if question.required { return .failure(Refusal(reason: "\(question.id) is required")) }
                continue
            }
            switch question.check(answer) {
            case .failure(let refusal): return .failure(refusal)
            case .success(let values):
                checked.answers += 1
                checked.tally += values.map { Tally(question: question.id, value: $0) }
                if question.kind == .single || question.kind == .multiple {
                    for choice in values { holds.insert(Condition(question: question.id, choice: choice)) }
                }
            }
        }
        checked.holding = holds.subtracting(holding).intersection(branches)
        return .success(checked)
    }

    /// The questions of a page as the `pages` shape lists them.
    func pageJSON(_ index: Int, holding: Set<Condition>) -> String {
        "[" + shown(page: index, holding: holding).map { $0.json(withCondition: false) }.joined(separator: ",") + "]"
    }

    /// The whole survey as the `one_post` shape's `GET /survey` lists it, each question shown
    /// on a condition with its `shown_if`.
    var surveyJSON: String {
        let items = pages.enumerated().map { index, page in
            "{\"id\":\"\(Self.pageID(index))\",\"questions\":[" + page.map { $0.json(withCondition: true) }.joined(separator: ",") + "]}"
        }
        return "{\"survey\":{\"id\":\"s1\",\"pages\":[" + items.joined(separator: ",") + "]}}"
    }

    /// Every question as the contract's `GET /questions` lists them: in one list, each with the
    /// contract's `question` beside its `text`, and its `shown_if`.
    var contractJSON: String {
        "[" + questions.map { $0.json(withCondition: true, contract: true) }.joined(separator: ",") + "]"
    }

    /// Checks a contract's submit, `{"id": "q1", "answer": …}`: one answer of its question's
    /// type. Without a session, nothing ties a submit to another: a required question left out
    /// or the branch's question answered out of turn cannot be told here.
    func checkSubmit(_ body: [UInt8]) -> Result<Checked, Refusal> {
        guard case .success(let value) = JSONValue.parse(body), case .string(let id)? = value["id"] else {
            return .failure(Refusal(reason: #"expected {"id": "q1", "answer": …}"#))
        }
        guard let page = page(of: id), let question = pages[page].first(where: { $0.id == id }) else {
            return .failure(Refusal(reason: "\(id) is not a question of the survey"))
        }
        guard let answer = value["answer"] else { return .failure(Refusal(reason: "\(id) has no answer")) }
        return question.check(answer).map { values in
            Checked(answers: 1, tally: values.map { Tally(question: id, value: $0) })
        }
    }

    /// The survey the reference server serves under `builtin.survey: typed`: eight questions,
    /// two of each type, over three pages; `q5` is shown only to a respondent who answered
    /// `q1` with `c1`.
    static let standard = TypedSurvey(pages: [
        [
            Question(
                id: "q1", text: "Favourite colour?", kind: .single, required: true,
                choices: [Choice(id: "c1", label: "Red"), Choice(id: "c2", label: "Green"), Choice(id: "c3", label: "Blue")]),
            Question(
                id: "q2", text: "Which do you own?", kind: .multiple, required: false,
                choices: [
                    Choice(id: "c1", label: "Car"), Choice(id: "c2", label: "Bike"), Choice(id: "c3", label: "Boat"),
                    Choice(id: "c4", label: "Plane"),
                ]),
            Question(id: "q3", text: "How likely to recommend?", kind: .number, required: true, bounds: 0...10),
        ],
        [
            Question(id: "q5", text: "Why red?", kind: .text, required: true, shownIf: Condition(question: "q1", choice: "c1")),
            Question(
                id: "q6", text: "How did you hear of us?", kind: .single, required: true,
                choices: [Choice(id: "c1", label: "A friend"), Choice(id: "c2", label: "A search"), Choice(id: "c3", label: "An advert")]),
        ],
        [
            Question(
                id: "q7", text: "Which days suit you?", kind: .multiple, required: false,
                choices: [
                    Choice(id: "c1", label: "Monday"), Choice(id: "c2", label: "Tuesday"), Choice(id: "c3", label: "Wednesday"),
                    Choice(id: "c4", label: "Thursday"), Choice(id: "c5", label: "Friday"),
                ]),
            Question(id: "q8", text: "How many people live with you?", kind: .number, required: false, bounds: 1...12),
            Question(id: "q4", text: "Anything else?", kind: .text, required: false),
        ],
    ])
}

extension TypedSurvey.Question {
    /// The buckets a valid answer adds to the count, or why it does not answer this question.
    func check(_ answer: JSONValue) -> Result<[String], TypedSurvey.Refusal> {
        func refuse(_ reason: String) -> Result<[String], TypedSurvey.Refusal> { .failure(TypedSurvey.Refusal(reason: "\(id): \(reason)")) }
        func isChoice(_ choice: String) -> Bool { choices.contains { $0.id == choice } }
        switch kind {
        case .single:
            guard case .string(let choice) = answer else { return refuse("expected a choice id (a string)") }
            guard isChoice(choice) else { return refuse("\(Self.shown(choice)) is not one of its choices") }
            return .success([choice])
        case .multiple:
            guard case .array(let items) = answer else { return refuse("expected a list of choice ids") }
            guard !items.isEmpty else { return refuse("the list is empty: choose at least one, or leave the question out") }
            var chosen: [String] = []
            for item in items {
                guard case .string(let choice) = item else { return refuse("expected a list of choice ids") }
                guard isChoice(choice) else { return refuse("\(Self.shown(choice)) is not one of its choices") }
                guard !chosen.contains(choice) else { return refuse("\(Self.shown(choice)) is chosen twice") }
                chosen.append(choice)
            }
            return .success(chosen)
        case .number:
            let value: Int
            switch answer {
            case .integer(let number): value = number
            case .string(let text):
                guard let number = Self.wholeNumber(text) else { return refuse("\(Self.shown(text)) is not a whole number") }
                value = number
            case .number(_, let text): return refuse("\(text) is not a whole number")
            default: return refuse("expected a whole number")
            }
            if value < bounds.lowerBound { return refuse("\(value) is below its minimum \(bounds.lowerBound)") }
            if value > bounds.upperBound { return refuse("\(value) is above its maximum \(bounds.upperBound)") }
            return .success(["\(value)"])
        case .text:
            guard case .string = answer else { return refuse("expected a text (a string)") }
            return .success(["(text)"])
        }
    }

    /// A string of ASCII digits (at most 18, so that it fits) as its number; nil for any other.
    private static func wholeNumber(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    /// A value a client sent, quoted and cut to 40 characters, for a refusal's reason.
    private static func shown(_ text: String) -> String {
        "'" + (text.count > 40 ? text.prefix(40) + "…" : text) + "'"
    }

    /// The question as listed: `id`, `text` (and the contract's `question`, the same, when
    /// `contract`), `type`, `required`, then `choices` or `min` and `max` by its type, and its
    /// `shown_if` when `withCondition` and it has one.
    func json(withCondition: Bool, contract: Bool = false) -> String {
        var members = ["\"id\":\(JSONValue.quoted(id))", "\"text\":\(JSONValue.quoted(text))"]
        if contract { members.append("\"question\":\(JSONValue.quoted(text))") }
        members += ["\"type\":\"\(kind.rawValue)\"", "\"required\":\(required)"]
        switch kind {
        case .single, .multiple:
            let items = choices.map { "{\"id\":\(JSONValue.quoted($0.id)),\"label\":\(JSONValue.quoted($0.label))}" }
            members.append("\"choices\":[" + items.joined(separator: ",") + "]")
        case .number:
            members.append("\"min\":\(bounds.lowerBound)")
            members.append("\"max\":\(bounds.upperBound)")
        case .text:
            break
        }
        if withCondition, let condition = shownIf {
            members.append(
                "\"shown_if\":{\"question\":\(JSONValue.quoted(condition.question)),\"choice\":\(JSONValue.quoted(condition.choice))}")
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}
