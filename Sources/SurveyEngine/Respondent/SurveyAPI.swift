/// The two calls of the survey API and the headers sent with both. Paths are relative to the
/// target's base path.
public struct SurveyAPI: Sendable, Hashable {
    /// A method and path, as in `GET /questions`.
    public struct Call: Sendable, Hashable, CustomStringConvertible {
        var method: String
        var path: String

        public init(method: String, path: String) {
            self.method = method
            self.path = path
        }

        public var description: String { "\(method) \(path)" }
    }

    public var questions: Call
    public var submit: Call
    public var headers: [HTTPHeader]

    public init(
        questions: Call = Call(method: "GET", path: "/questions"), submit: Call = Call(method: "POST", path: "/question/submit"),
        headers: [HTTPHeader] = []
    ) {
        self.questions = questions
        self.submit = submit
        self.headers = headers
    }
}

/// One request header.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The answers respondents give, by question id, with an optional fallback for other ids.
/// Where a question has several candidate answers, each respondent picks one (seeded).
public struct AnswerBook: Sendable, Hashable {
    public var byQuestion: [Int: [String]]
    /// The `"*"` answers, given to any question without its own.
    public var fallback: [String]?

    public init(byQuestion: [Int: [String]] = [:], fallback: [String]? = nil) {
        self.byQuestion = byQuestion
        self.fallback = fallback
    }

    /// The candidates for a question, or nil when the book has no answer for it.
    func choices(for id: Int) -> [String]? {
        byQuestion[id] ?? fallback
    }

    /// The ids among `ids` the book cannot answer, in the order given.
    public func unanswerable(among ids: some Sequence<Int>) -> [Int] {
        ids.filter { choices(for: $0) == nil }
    }
}
