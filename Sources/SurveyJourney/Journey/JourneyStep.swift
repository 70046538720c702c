import SurveyWire

/// One step of a journey as declared: its request, when it runs, and what it reads from its
/// response.
public struct JourneyStep: Sendable, Hashable {
    /// How often a step runs: a kind of step, walked by its runner (`StepWalker`; the engine's
    /// `StepRunner`), named in a plan by its `rawValue`. The kinds a plan may name are
    /// `registered`: `once`, `per_question`, `per_survey` and `per_page` (`StepKinds.swift`). A
    /// new kind is its runner's file in the engine (the runner, its `Runs` value and its doc), a
    /// line in `builtIn` and its section in docs/plan-format.md.
    public struct Runs: Sendable, Hashable, RawRepresentable, CaseIterable, CustomStringConvertible {
        /// Its name in a plan: `per_question`.
        public let rawValue: String
        /// What it does, a sentence of the docs' table of step keys after its name.
        public let doc: String
        /// What walks a step of this kind: a `StepRunner` of the engine's.
        package let runner: any StepWalker.Type

        /// A kind named `name`, walked by `runner`.
        package init(_ name: String, runner: any StepWalker.Type, doc: String) {
            rawValue = name
            self.runner = runner
            self.doc = doc
        }

        /// The registered kind named `rawValue`, if any.
        public init?(rawValue: String) {
            guard let kind = Self.registered.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = kind
        }

        /// The kinds a plan may name, in the docs' order.
        public static var allCases: [Runs] { registered }

        /// Its name as a report says it: `per question`.
        public var description: String { rawValue.replacing("_", with: " ") }

        /// Whether the step sends the respondent's answers: per question, per survey or per page.
        public var answers: Bool { runner.answers != .none }

        /// Whether it is a page loop: its response lists the next page's questions, the last none.
        public var pages: Bool { runner.pages }

        /// What its requests carry of the respondent's answers.
        public var carries: AnswersCarried { runner.answers }

        /// Whether both are the same kind: kinds are told apart by name.
        public static func == (lhs: Runs, rhs: Runs) -> Bool { lhs.rawValue == rhs.rawValue }

        /// Hashes its name.
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    }

    /// How `${answers}` lays out every answer of a survey.
    public enum AnswersShape: Sendable, Hashable {
        /// A JSON object of `"<key>": "<answer>"`, each key the template (`123456X1X${question.id}`)
        /// filled in for its question.
        case object(key: String)
        /// A JSON list of the template (`{"question": ${question.id}, "value": ${answer}}`) filled
        /// in for each question.
        case list(item: String)

        /// An object keyed by each question's id.
        public static let byID = AnswersShape.object(key: "${question.id}")
    }

    /// Its name.
    public var step: Step
    /// Its method and path (a template: `${row.…}`, `${session.…}`, and per question
    /// `${question.id}` and `${answer}`).
    public var call: SurveyAPI.Call
    /// Its own header fields, sent after the API's (`SurveyAPI.headers`); values are templates.
    public var headers: [HTTPHeader]
    /// How a body is written, and the `Content-Type` it is sent with.
    public enum BodyFormat: Sendable, Hashable {
        /// JSON (`application/json`): each variable goes in as a JSON value.
        case json
        /// An HTML form's fields (`application/x-www-form-urlencoded`): the template's literal
        /// text is already encoded, and each variable's value is percent-encoded, a space as `+`.
        case form
        /// Text sent as written, variables too, with this content type.
        case text(contentType: String)
    }

    /// Its body, a template in `bodyFormat`; nil for none — for a step per question, the survey contract's
    /// `{"id":…,"answer":"…"}`.
    public var body: String?
    /// How `body` is written.
    public var bodyFormat: BodyFormat = .json
    /// Its own timeout per attempt, instead of the run's (`HTTPClientConfiguration.timeout`).
    public var timeout: Duration?
    /// Its own think time, instead of the run's: before each answer of a step that sends
    /// answers, before the call of a step run once (which has none without it).
    public var think: ThinkTime?
    /// How often it runs.
    public var runs: Runs
    /// Where its 2xx response lists the survey's questions, when it does; a response that does
    /// not is `malformed_response`, and the respondent, with no questions, is abandoned
    /// (`questions_unavailable`).
    public var questions: SurveyQuestion.Shape?
    /// What its 2xx response gives the respondent's session (`${session.NAME}`), for the steps
    /// after it; a response without one is `malformed_response`, and the respondent is
    /// abandoned (`capture_not_found`).
    public var captures: [SurveyAPI.Capture]
    /// For a step per survey or per page: how `${answers}` lays out the answers.
    public var answers: AnswersShape
    /// For a step per survey or per page whose `${answers}` is an object: each answer's value, a
    /// JSON template filled in per question (`{${answer}: {"selected": true}}`); nil for the
    /// answer as a JSON string.
    public var answersValue: String?
    /// For a step per survey or per page whose questions came in groups (`question_group`):
    /// `${answers}` is a list of this JSON template, one per group, its `${answers}` the group's
    /// answers and `${group.id}` its id (SurveyMonkey's `{"id": ${group.id}, "questions": ${answers}}`).
    public var answersGroup: String?
    /// For a page loop: how many pages it posts at most. A respondent still given questions
    /// after the last is abandoned (`page_limit`): a survey that never ends, or a page the
    /// server keeps sending back.
    public var pages: Int = JourneyStep.defaultPages
    /// For a form body: the capture (`form *`) whose fields go first, as the page gave them,
    /// but those the body or the answers set again.
    public var formFields: String?

    /// How many pages a page loop posts at most by default.
    public static let defaultPages = 50
    /// What its response must be to count as a success: a 2xx when nil.
    public var expect: ResponseExpectation?
    /// Whether sending its request twice does what sending it once does, so that an attempt
    /// whose request may have reached the server (a timeout, a reset after the request was
    /// written) may be retried. By default, whether its method is idempotent (RFC 9110 §9.2.2:
    /// not POST, not PATCH); a failure before any byte left is retried either way.
    public var idempotent: Bool
    /// Whether it runs at the end of the journey whatever happened before (a logout, releasing
    /// a session key) — after an abandonment too, when every capture it uses has a value, though
    /// not once the run has stopped. Its failure abandons no one.
    public var always: Bool

    /// A step; by default it runs once, reads nothing and sends no body.
    public init(
        _ step: Step, call: SurveyAPI.Call, headers: [HTTPHeader] = [], body: String? = nil, runs: Runs = .once,
        questions: SurveyQuestion.Shape? = nil, captures: [SurveyAPI.Capture] = [], answers: AnswersShape = .byID,
        expect: ResponseExpectation? = nil, idempotent: Bool? = nil, always: Bool = false
    ) {
        self.step = step
        self.call = call
        self.headers = headers
        self.body = body
        self.runs = runs
        self.questions = questions
        self.captures = captures
        self.answers = answers
        self.expect = expect
        self.idempotent = idempotent ?? Self.isIdempotent(call.method)
        self.always = always
    }

    /// A form body's template from its fields, in order: `name=value&…`, each name and each
    /// literal part of a value form-encoded now, each variable left for its value to be encoded
    /// when it is filled in (`BodyFormat.form`). Throws when a value is not a template.
    public static func formBody(_ fields: [(name: String, value: String)]) throws(TemplateError) -> String {
        var body = ""
        for (index, field) in fields.enumerated() {
            if index > 0 { body += "&" }
            body += CompiledTemplate.formEncoded(field.name) + "="
            for segment in try TextTemplate(parsing: field.value).segments {
                switch segment {
                case .literal(let text): body += CompiledTemplate.formEncoded(text)
                case .variable(.answers):
                    throw TemplateError("${answers} is no field's value: a step's answers go after its form's fields", offset: 0)
                case .variable(let variable): body += variable.description
                }
            }
        }
        return body
    }

    /// Whether requests of `method` are idempotent by RFC 9110 (§9.2.2): every method but POST,
    /// PATCH and CONNECT, and methods it does not define.
    public static func isIdempotent(_ method: String) -> Bool {
        ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"].contains(method)
    }

    /// Whether anything reads its response's body: the questions, a JSON capture, a check.
    package var readsBody: Bool {
        questions != nil || captures.contains(where: \.source.inBody) || expect?.readsBody == true
    }

    /// Whether a capture reads the cookies its response sets.
    package var readsCookies: Bool {
        captures.contains { if case .cookie = $0.source { true } else { false } }
    }

    /// Whether anything reads its response's header fields: a capture or a check.
    package var readsHeaders: Bool {
        captures.contains { if case .header = $0.source { true } else { false } } || expect?.readsHeaders == true
    }
}
