import SurveyWire

/// The calls of the survey API, the headers sent with them and the shape of its JSON. Paths are
/// relative to the target's base path; the defaults are the reference server's contract.
public struct SurveyAPI: Sendable, Hashable {
    /// A method and path, as in `GET /questions`.
    public struct Call: Sendable, Hashable, CustomStringConvertible {
        /// The method, as sent: `POST`.
        public var method: String
        /// The path from `/`, a template, as sent after the target's base path.
        public var path: String

        /// A call of `method` on `path`, both sent as written: HTTP methods are case-sensitive,
        /// and `path` (from `/`, query allowed) is appended to the target's base path unchanged.
        public init(method: String, path: String) {
            self.method = method
            self.path = path
        }

        /// `METHOD path`, as in reports and error messages.
        public var description: String { "\(method) \(path)" }
    }

    /// Fetches the survey: its 2xx body must be the questions list (see `SurveyQuestion.list`).
    public var questions: Call
    /// Submits one answer as `{"id":…,"answer":"…"}`; any 2xx counts as accepted.
    public var submit: Call
    /// Sent with every call after `Host`, in order; a `User-Agent` here replaces survey-bot's.
    /// Values may hold `${row.…}`, `${respondent.id}` and `${session.…}` (`TextTemplate`).
    public var headers: [HTTPHeader]
    /// Where the questions are in the questions response: a path to the list (`data.items`), or
    /// to the questions themselves across lists (`$.groups[*].questions[*]`); `$` for the top level.
    public var questionsList = JSONPath(names: [])
    /// Where each listed question holds its id, an integer or a string (`id`, `attributes.qid`).
    public var questionID = JSONPath(names: ["id"])
    /// Where each listed question holds its text (`question`, `title.en`).
    public var questionText = JSONPath(names: ["question"])
    /// The submit's JSON body with `${question.id}`, `${answer}` and the other variables; nil
    /// for `{"id":…,"answer":"…"}`.
    public var submitBody: String?
    /// The login, a step before the questions that opens the respondent's session, when given:
    /// its 2xx ends it, and its response holds what `captures` take.
    public var login: Call?
    /// The login's JSON body (a template like `submitBody`); nil for none.
    public var loginBody: String?
    /// What is taken from the login response into `${session.NAME}`, in order.
    public var captures: [Capture] = []

    /// A value taken from the login response.
    public struct Capture: Sendable, Hashable {
        /// Where the value is.
        public enum Source: Sendable, Hashable, CustomStringConvertible {
            /// A JSON path into the body (`$.data.token`, `$.items[0].id`, `$` for a bare value);
            /// its first match is taken: a string as it is, a number or boolean as its JSON text.
            case json(JSONPath)
            /// A response header, by name (any case).
            case header(String)
            /// A cookie the response sets (`Set-Cookie`), by name.
            case cookie(String)
            /// The first match of a regular expression in the body, as text: its first group,
            /// or the whole match when it has none.
            case regex(TextPattern)
            /// The value of an HTML form's field, by name: `<input name="YII_CSRF_TOKEN"
            /// value="…">`, its character references decoded. `*` takes the whole form, every
            /// field a browser would send back, as a form body (`HTMLForm.fields(in:)`), for a
            /// form body's `"*"` (`JourneyStep.formFields`).
            case formField(String)

            /// As written in a plan: `$.data.token`, `header X-Session-Id`, `form YII_CSRF_TOKEN`.
            public var description: String {
                switch self {
                case .json(let path): path.text.hasPrefix("$") ? path.text : path.text.isEmpty ? "$" : "$." + path.text
                case .header(let name): "header \(name)"
                case .cookie(let name): "cookie \(name)"
                case .regex(let pattern): "regex \(pattern)"
                case .formField(let name): "form \(name)"
                }
            }

            /// Whether the value is in the body.
            package var inBody: Bool {
                switch self {
                case .json, .regex, .formField: true
                case .header, .cookie: false
                }
            }
        }

        /// The name in `${session.NAME}`.
        public var name: String
        /// Where the value is.
        public var source: Source

        /// A capture of `source` into `${session.name}`.
        public init(name: String, source: Source) {
            self.name = name
            self.source = source
        }
    }

    /// The API of the reference server unless told otherwise: `GET /questions` and
    /// `POST /question/submit`, with no extra headers.
    public init(
        questions: Call = Call(method: "GET", path: "/questions"), submit: Call = Call(method: "POST", path: "/question/submit"),
        headers: [HTTPHeader] = []
    ) {
        self.questions = questions
        self.submit = submit
        self.headers = headers
    }
}

/// The answers respondents give, by question id, with an optional fallback for other ids.
/// Where a question has several candidate answers, each respondent picks one (seeded).
public struct AnswerBook: Sendable, Hashable {
    /// Candidate answers by question id; an entry with no candidates leaves its question
    /// unanswered rather than falling back.
    public var byQuestion: [QuestionID: [String]]
    /// The `"*"` answers, given to any question without its own.
    public var fallback: [String]?
    /// Answers read from the survey (`choice()`, `number(0..10)`, …) by question id, instead of
    /// values; `"*"`'s in `fallbackPicker`.
    public var pickers: [QuestionID: AnswerPicker] = [:]
    /// The `"*"` answer when it reads the survey (`"*": choice()`), instead of `fallback`.
    public var fallbackPicker: AnswerPicker?
    /// How each type of question is answered and shaped, by the type as the survey names it
    /// (`types:`): after a question's own answer, before `"*"`.
    public var types: [String: AnswerType] = [:]
    /// How often a respondent leaves out a question the survey does not say is required, 0–1.
    public var skipOptional: Double = 0

    /// A book with these answers; empty by default, which answers nothing.
    public init(byQuestion: [QuestionID: [String]] = [:], fallback: [String]? = nil, fallbackPicker: AnswerPicker? = nil) {
        self.byQuestion = byQuestion
        self.fallback = fallback
        self.fallbackPicker = fallbackPicker
    }

    /// The candidates for a question, or nil when the book has no values for it.
    package func choices(for id: QuestionID) -> [String]? {
        byQuestion[id] ?? fallback
    }

    /// How the book answers `question`: its own values or picker, its type's, `"*"`'s; nil
    /// when it has none. Values come as `.fixed`, which `choices(for:)` also gives unless
    /// `byType` (a type's values).
    package func picker(for question: SurveyQuestion) -> (picker: AnswerPicker, byType: Bool)? {
        if let values = byQuestion[question.id] { return (.fixed(values), false) }
        if !pickers.isEmpty, let picker = pickers[question.id] { return (picker, false) }
        if !types.isEmpty, let type = question.type, let rule = types[type] { return (rule.answer, true) }
        if let fallbackPicker { return (fallbackPicker, false) }
        return fallback.map { (.fixed($0), false) }
    }

    /// Whether any answer reads the survey's own choices.
    public var readsChoices: Bool {
        pickers.values.contains(where: \.needsChoices) || fallbackPicker?.needsChoices == true
            || types.values.contains { $0.answer.needsChoices }
    }

    /// The ids among `ids` the book cannot answer, in the order given.
    public func unanswerable(among ids: some Sequence<QuestionID>) -> [QuestionID] {
        ids.filter { choices(for: $0) == nil && pickers[$0] == nil && fallbackPicker == nil }
    }
}

/// How the questions of one type are answered, and the answer's JSON shape (`types:` in a plan).
public struct AnswerType: Sendable, Hashable {
    /// How it is answered.
    public var answer: AnswerPicker
    /// Where `${answers}` is an object, the answer's value: a JSON template like `answers_value`
    /// (Qualtrics' `{${answer}: {"selected": true}}`); it is also what `${answer}` is in a step
    /// per question's JSON body. Nil: the step's.
    public var value: String?
    /// Where `${answers}` is a list, the answer's item: a JSON template like `answers_item`. Nil:
    /// the step's.
    public var item: String?
    /// Each chosen value's own JSON template (`{"choice_id": ${answer}}`), `${answer}` being
    /// that value: `${answer}` is then the JSON list of them, as SurveyMonkey takes a multiple
    /// choice. Nil: the values as they are.
    public var each: String?

    /// A type answered by `answer`, shaped as the step says unless told.
    public init(answer: AnswerPicker, value: String? = nil, item: String? = nil, each: String? = nil) {
        self.answer = answer
        self.value = value
        self.item = item
        self.each = each
    }
}
