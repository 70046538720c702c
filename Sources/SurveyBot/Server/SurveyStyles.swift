import SurveyEngine
import SurveyJourney
import SurveyWire
import Synchronization

/// The survey API shapes the reference server speaks: the survey contract's, and four shapes
/// that survey platforms have, for rehearsing a declared journey (`builtin.api`, `serve --api`).
/// Each counts what it stored (`ReferenceServerStats.stored`), so that a run's report can be
/// reconciled with the server's own count.
enum SurveyStyle: String, Sendable, Hashable, CaseIterable {
    /// `GET /questions`, then `POST /question/submit` per answer: the survey app's API.
    case contract
    /// Page by page in a session, question ids strings: `POST /sessions` opens one and gives the
    /// first page, `POST /sessions/{id}` with `{"answers": {"q1": "…", …}}` takes the page and
    /// gives the next, until `{"questions": [], "done": true}` (the response is stored then);
    /// `DELETE /sessions/{id}` ends the session, finished or not.
    case pages
    /// The whole response in one POST: `GET /survey` lists pages of questions, and
    /// `POST /responses` takes `{"answers": [{"question": "q1", "value": "…"}, …]}`.
    case onePost = "one_post"
    /// JSON-RPC at `POST /rpc`, with errors inside a `200`: `get_session_key`, `list_questions`,
    /// `add_response` with every answer keyed `900001X1X<qid>`, `release_session_key`.
    case jsonRPC = "jsonrpc"
    /// A public survey as a browser sees it, like LimeSurvey's: `GET /survey` opens a session (a
    /// cookie) and gives page 1 as an HTML form with a CSRF token and a page key; each
    /// `POST /survey` of the form gives the next page, until a "thank you" page
    /// (`StyleRoutes+HTML`).
    case html

    /// The questions on one page of the `pages` and `one_post` shapes.
    static let pageSize = 3
    /// The survey id of the `jsonrpc` shape: answers are keyed `900001X1X<qid>`.
    static let rpcSurvey = 900_001

    /// The ids the shape gives the questions: strings `q1`, `q2`, … but for the contract's and
    /// JSON-RPC's own integers.
    func id(of question: SurveyQuestion, at index: Int) -> String {
        self == .contract || self == .jsonRPC ? question.id.text : "q\(index + 1)"
    }
}

/// The routes and answers of the shapes besides the contract's. Faults are drawn before, by
/// `ReferenceServerState`: what is left here is what the shape itself answers.
struct StyleRoutes: Sendable {
    let style: SurveyStyle
    let questions: [SurveyQuestion]
    let seed: UInt64
    /// The typed survey, served instead of `questions` by the `pages` and `one_post` shapes;
    /// nil for the plain one.
    let typed: TypedSurvey?
    /// The survey the `html` shape serves: the typed one, or the plain questions as required
    /// texts in pages of `pageSize`; nil for the other shapes.
    let formSurvey: TypedSurvey?
    let book = StyleBook()
    /// The ids the shape gives the questions, in order, and each one's position.
    private let ids: [String]
    private let positions: [String: Int]
    /// The `one_post` shape's `GET /survey`: the typed survey's, or the plain questions' in pages.
    let surveyBody: [UInt8]

    init(style: SurveyStyle, questions: [SurveyQuestion], seed: UInt64, typed: TypedSurvey? = nil) {
        self.style = style
        self.questions = questions
        self.seed = seed
        self.typed = typed
        let ids = questions.enumerated().map { style.id(of: $1, at: $0) }
        self.ids = ids
        positions = Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var pages: [String] = []
        for start in stride(from: 0, to: questions.count, by: SurveyStyle.pageSize) {
            let end = min(start + SurveyStyle.pageSize, questions.count)
            let items = (start..<end).map { "{\"id\":\(JSONValue.quoted(ids[$0])),\"heading\":\(JSONValue.quoted(questions[$0].text))}" }
            pages.append("{\"id\":\"p\(pages.count + 1)\",\"questions\":[\(items.joined(separator: ","))]}")
        }
        formSurvey =
            style != .html
            ? nil
            : typed
                ?? TypedSurvey(
                    pages: stride(from: 0, to: questions.count, by: SurveyStyle.pageSize).map { start in
                        (start..<min(start + SurveyStyle.pageSize, questions.count)).map {
                            TypedSurvey.Question(id: ids[$0], text: questions[$0].text, kind: .text, required: true)
                        }
                    })
        surveyBody = Array((typed?.surveyJSON ?? "{\"survey\":{\"id\":\"s1\",\"pages\":[\(pages.joined(separator: ","))]}}").utf8)
    }

    /// Which of the server's counted endpoints a request is: `session`, `questions`, `submit`
    /// or `other`.
    func endpoint(_ request: HTTPServerRequest) -> String {
        let path = request.pathWithoutQuery
        switch style {
        case .contract: return "other"
        case .pages:
            if path == "/sessions" { return "session" }
            guard path.hasPrefix("/sessions/") else { return "other" }
            return request.method == "DELETE" ? "session" : "submit"
        case .onePost:
            return path == "/survey" ? "questions" : path == "/responses" ? "submit" : "other"
        case .jsonRPC:
            guard path == "/rpc", case .success(let call) = JSONValue.parse(request.body), case .string(let method)? = call["method"]
            else { return path == "/rpc" ? "session" : "other" }
            switch method {
            case "list_questions": return "questions"
            case "add_response": return "submit"
            default: return "session"
            }
        case .html:
            guard path == "/survey" else { return "other" }
            return request.method == "POST" ? "submit" : "session"
        }
    }

    /// The shape's answer to a request, and the outcome it is counted under; `failed` says
    /// whether this request meets `--fail-rate`'s refusal (drawn by the caller).
    func respond(_ request: HTTPServerRequest, failed: Bool) -> (HTTPServerResponse, String) {
        switch style {
        case .contract: return (HTTPServerResponse(status: 404), "404")
        case .pages: return pages(request, failed: failed)
        case .onePost: return onePost(request, failed: failed)
        case .jsonRPC: return rpc(request, failed: failed)
        case .html:
            guard let formSurvey else { return (HTTPServerResponse(status: 404), "404") }
            return html(formSurvey, request, failed: failed)
        }
    }

    static func json(_ status: Int, _ text: String) -> HTTPServerResponse {
        .json(status, Array(text.utf8))
    }

    /// The `index`-th page's questions as JSON, `[]` past the last.
    private func page(_ index: Int) -> String {
        let start = index * SurveyStyle.pageSize
        guard start < questions.count else { return "[]" }
        let items = (start..<min(start + SurveyStyle.pageSize, questions.count)).map {
            "{\"id\":\(JSONValue.quoted(ids[$0])),\"text\":\(JSONValue.quoted(questions[$0].text))}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }

    /// How many pages the survey served has.
    private var pageCount: Int { typed?.pages.count ?? (questions.count + SurveyStyle.pageSize - 1) / SurveyStyle.pageSize }

    /// Page `index`'s questions as JSON for a session whose answers make `holding` hold: the typed
    /// survey's (each counted as shown), or the plain one's.
    private func pageList(_ index: Int, holding: Set<TypedSurvey.Condition>) -> String {
        guard let typed else { return page(index) }
        return typedPage(typed, page: index, holding: holding)
    }

    /// The `pages` shape's session routes, the same for the plain and the typed survey: only
    /// which questions a page lists and how its answers are checked differ.
    private func pages(_ request: HTTPServerRequest, failed: Bool) -> (HTTPServerResponse, String) {
        let path = request.pathWithoutQuery
        if path == "/sessions" {
            guard request.method == "POST" else { return (HTTPServerResponse(status: 405), "405") }
            if !request.body.isEmpty, case .failure = JSONValue.parse(request.body) {
                return (Self.json(400, #"{"error":"the body is not JSON"}"#), "400")
            }
            guard let id = book.open(seed: seed, prefix: "FS_", rpc: false) else { return (HTTPServerResponse(status: 503), "503") }
            let first = pageList(0, holding: [])
            return (Self.json(201, "{\"session\":\(JSONValue.quoted(id)),\"page\":1,\"questions\":\(first),\"done\":false}"), "201")
        }
        guard path.hasPrefix("/sessions/") else { return (HTTPServerResponse(status: 404), "404") }
        let id = String(path.dropFirst("/sessions/".count))
        if request.method == "DELETE" {
            return book.close(page: id)
                ? (HTTPServerResponse(status: 204), "204") : (Self.json(404, #"{"error":"no such session"}"#), "404")
        }
        guard request.method == "POST" else { return (HTTPServerResponse(status: 405), "405") }
        guard let (at, holding) = book.session(id) else { return (Self.json(404, #"{"error":"no such session"}"#), "404") }
        guard at < pageCount else { return (Self.json(409, #"{"error":"the survey is finished"}"#), "409") }
        guard case .success(let body) = JSONValue.parse(request.body), case .object(let answers)? = body["answers"] else {
            return (Self.json(400, #"{"error":"expected {\"answers\": {…}}"}"#), "400 invalid")
        }
        let taken: PageTaken
        switch typed.map({ typedAnswers(answers, $0, page: at, holding: holding) }) ?? plainAnswers(answers, page: at) {
        case .failure(let refusal): return refusal.response
        case .success(let passed): taken = passed
        }
        if failed { return (Self.json(400, #"{"error":"the page was refused"}"#), "400") }
        guard book.take(page: at, of: id, answers: taken.answers, pages: pageCount, checked: taken.checked) else {
            return (Self.json(409, #"{"error":"the page was taken already"}"#), "409")
        }
        let next = pageList(at + 1, holding: holding.union(taken.checked?.holding ?? []))
        let done = at + 1 >= pageCount
        return (Self.json(200, "{\"page\":\(at + 2),\"questions\":\(next),\"done\":\(done)}"), "200")
    }

    /// One page's answers as the `pages` shape took them: how many, and with the typed survey,
    /// what its checks made of them.
    struct PageTaken {
        var answers: Int
        var checked: TypedSurvey.Checked?
    }

    /// A page's answers refused, with the response that says why.
    struct PageRefusal: Error {
        var response: (HTTPServerResponse, String)
    }

    /// The plain survey's check of page `at`'s answers: exactly that page's questions, each a string.
    private func plainAnswers(_ answers: [(String, JSONValue)], page at: Int) -> Result<PageTaken, PageRefusal> {
        let wanted = Set((at * SurveyStyle.pageSize..<min((at + 1) * SurveyStyle.pageSize, questions.count)).map { ids[$0] })
        let given = Set(answers.map(\.0))
        guard given == wanted, answers.allSatisfy({ if case .string = $0.1 { true } else { false } }) else {
            // A page posted again after the server moved on (a retry) names the last page's questions.
            let status = given.isDisjoint(with: wanted) && !given.isEmpty ? 409 : 400
            let response = Self.json(status, #"{"error":"the answers are not this page's questions"}"#)
            return .failure(PageRefusal(response: (response, status == 409 ? "409" : "400 invalid")))
        }
        return .success(PageTaken(answers: answers.count))
    }

    private func onePost(_ request: HTTPServerRequest, failed: Bool) -> (HTTPServerResponse, String) {
        if let typed { return typedOnePost(typed, request, failed: failed) }
        switch (request.pathWithoutQuery, request.method) {
        case ("/survey", "GET"): return (.json(200, surveyBody), "200")
        case ("/responses", "POST"):
            guard case .success(let body) = JSONValue.parse(request.body), case .array(let answers)? = body["answers"], !answers.isEmpty
            else { return (Self.json(400, #"{"error":"expected {\"answers\": [...]}"}"#), "400 invalid") }
            var seen = Set<String>()
            for answer in answers {
                guard case .string(let question)? = answer["question"], positions[question] != nil, case .string? = answer["value"],
                    seen.insert(question).inserted
                else { return (Self.json(400, #"{"error":"an answer names no question of the survey, or one twice"}"#), "400 invalid") }
            }
            if failed { return (Self.json(400, #"{"error":"the response was refused"}"#), "400") }
            book.store(answers: answers.count)
            let (stored, _) = book.stored
            return (Self.json(201, "{\"id\":\"r\(stored)\"}"), "201")
        case ("/survey", _), ("/responses", _): return (HTTPServerResponse(status: 405), "405")
        default: return (HTTPServerResponse(status: 404), "404")
        }
    }

    /// JSON-RPC as LimeSurvey's RemoteControl answers it: every answer a `200` with `id`,
    /// `result` and `error`; a bad key or a refusal is a `{"status": "…"}` result.
    private func rpc(_ request: HTTPServerRequest, failed: Bool) -> (HTTPServerResponse, String) {
        guard request.pathWithoutQuery == "/rpc" else { return (HTTPServerResponse(status: 404), "404") }
        guard request.method == "POST" else { return (HTTPServerResponse(status: 405), "405") }
        func reply(_ id: JSONValue?, result: String, error: String = "null", outcome: String = "200") -> (HTTPServerResponse, String) {
            (Self.json(200, "{\"id\":\((id ?? .null).json),\"result\":\(result),\"error\":\(error)}"), outcome)
        }
        func status(_ id: JSONValue?, _ text: String) -> (HTTPServerResponse, String) {
            reply(id, result: "{\"status\":\(JSONValue.quoted(text))}", outcome: "200 refused")
        }
        guard case .success(let call) = JSONValue.parse(request.body), case .string(let method)? = call["method"] else {
            return reply(nil, result: "null", error: "\"the request is not a JSON-RPC call\"", outcome: "200 error")
        }
        let id = call["id"]
        let params: [JSONValue]
        if case .array(let list)? = call["params"] { params = list } else { params = [] }
        func key() -> String? {
            if case .string(let key)? = params.first, book.isOpen(key: key) { return key }
            return nil
        }
        switch method {
        case "get_session_key":
            guard params.count >= 2 else { return status(id, "Invalid user name or password") }
            guard let key = book.open(seed: seed, prefix: "", rpc: true) else { return status(id, "Too many sessions") }
            return reply(id, result: JSONValue.quoted(key))
        case "release_session_key":
            guard case .string(let key)? = params.first else { return status(id, "Invalid session key") }
            _ = book.release(key: key)
            return reply(id, result: "\"OK\"")
        case "list_questions":
            guard key() != nil else { return status(id, "Invalid session key") }
            let items = questions.map { question in
                "{\"qid\":\(question.id.text),\"gid\":1,\"sid\":\(SurveyStyle.rpcSurvey),\"title\":\"Q\(question.id.text)\","
                    + "\"question\":\(JSONValue.quoted(question.text))}"
            }
            return reply(id, result: "[" + items.joined(separator: ",") + "]")
        case "add_response":
            guard key() != nil else { return status(id, "Invalid session key") }
            guard params.count >= 3, case .object(let fields) = params[2] else { return status(id, "Invalid response data") }
            let prefix = "\(SurveyStyle.rpcSurvey)X1X"
            var answers = 0
            for (name, _) in fields where name != "submitdate" {
                guard name.hasPrefix(prefix), positions[String(name.dropFirst(prefix.count))] != nil else {
                    return status(id, "Invalid field \(name)")
                }
                answers += 1
            }
            if failed { return status(id, "Unable to add response") }
            book.store(answers: answers)
            return reply(id, result: JSONValue.quoted(String(book.stored.responses)))
        default:
            return reply(id, result: "null", error: JSONValue.quoted("unknown method \(method)"), outcome: "200 error")
        }
    }
}
