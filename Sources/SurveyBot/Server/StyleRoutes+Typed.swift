import SurveyJourney
import SurveyWire

/// The `pages` and `one_post` shapes serving the typed survey (`builtin.survey: typed`): the same
/// routes as the plain survey's, each question listed with its type, choices or bounds and
/// required flag, and every answer checked against it. A refusal is a `400` whose `error` names
/// the question and the reason, counted as an invalid submit.
extension StyleRoutes {
    /// `POST /sessions` gives the first page, `POST /sessions/{id}` with `{"answers": {"q1": …}}`
    /// takes the page the session is at and gives the next, for this session alone: a question
    /// shown on a condition is on its page only when the session's earlier answers make it hold.
    func typedPages(_ survey: TypedSurvey, _ request: HTTPServerRequest, failed: Bool) -> (HTTPServerResponse, String) {
        let path = request.pathWithoutQuery
        if path == "/sessions" {
            guard request.method == "POST" else { return (HTTPServerResponse(status: 405), "405") }
            if !request.body.isEmpty, case .failure = JSONValue.parse(request.body) {
                return (Self.json(400, #"{"error":"the body is not JSON"}"#), "400")
            }
            guard let id = book.open(seed: seed, prefix: "FS_", rpc: false) else { return (HTTPServerResponse(status: 503), "503") }
            let questions = list(survey, page: 0, holding: [])
            return (Self.json(201, "{\"session\":\(JSONValue.quoted(id)),\"page\":1,\"questions\":\(questions),\"done\":false}"), "201")
        }
        guard path.hasPrefix("/sessions/") else { return (HTTPServerResponse(status: 404), "404") }
        let id = String(path.dropFirst("/sessions/".count))
        if request.method == "DELETE" {
            return book.close(page: id)
                ? (HTTPServerResponse(status: 204), "204") : (Self.json(404, #"{"error":"no such session"}"#), "404")
        }
        guard request.method == "POST" else { return (HTTPServerResponse(status: 405), "405") }
        guard let (at, holding) = book.session(id) else { return (Self.json(404, #"{"error":"no such session"}"#), "404") }
        guard at < survey.pages.count else { return (Self.json(409, #"{"error":"the survey is finished"}"#), "409") }
        guard case .success(let body) = JSONValue.parse(request.body), case .object(let members)? = body["answers"] else {
            return (Self.json(400, #"{"error":"expected {\"answers\": {…}}"}"#), "400 invalid")
        }
        var given: [String: JSONValue] = [:]
        for (question, answer) in members where given.updateValue(answer, forKey: question) != nil {
            return Self.refused("\(question) is answered twice")
        }
        let elsewhere = members.map(\.0).filter { survey.page(of: $0) != at }
        if let first = elsewhere.first {
            // A page posted again after the server moved on (a retry) names an earlier page's questions.
            if elsewhere.count == members.count, elsewhere.allSatisfy({ (survey.page(of: $0) ?? at) < at }) {
                return (Self.json(409, #"{"error":"the answers are an earlier page's, taken already"}"#), "409")
            }
            guard let page = survey.page(of: first) else { return Self.refused("\(first) is not a question of the survey") }
            return Self.refused("\(first) is on page \(TypedSurvey.pageID(page)), not \(TypedSurvey.pageID(at))")
        }
        let checked: TypedSurvey.Checked
        switch survey.check(given, asked: survey.pages[at], holding: holding) {
        case .failure(let refusal): return Self.refused(refusal.reason)
        case .success(let passed): checked = passed
        }
        if failed { return (Self.json(400, #"{"error":"the page was refused"}"#), "400") }
        guard book.take(page: at, of: id, answers: checked.answers, pages: survey.pages.count, checked: checked) else {
            return (Self.json(409, #"{"error":"the page was taken already"}"#), "409")
        }
        let questions = list(survey, page: at + 1, holding: holding.union(checked.holding))
        let done = at + 1 >= survey.pages.count
        return (Self.json(200, "{\"page\":\(at + 2),\"questions\":\(questions),\"done\":\(done)}"), "200")
    }

    /// `GET /survey` lists every page, the question shown on a condition with its `shown_if`;
    /// `POST /responses` takes `{"pages": [{"id": "p1", "questions": [{"id": "q1", "answer": …}, …]}, …]}`,
    /// each answer under its own question's page, as SurveyMonkey groups a response.
    func typedOnePost(_ survey: TypedSurvey, _ request: HTTPServerRequest, failed: Bool) -> (HTTPServerResponse, String) {
        switch (request.pathWithoutQuery, request.method) {
        case ("/survey", "GET"):
            book.show(survey.questions.map(\.id))
            return (.json(200, surveyBody), "200")
        case ("/responses", "POST"):
            let given: [String: JSONValue]
            switch Self.answers(of: request.body, in: survey) {
            case .failure(let refusal): return Self.refused(refusal.reason)
            case .success(let answers): given = answers
            }
            let checked: TypedSurvey.Checked
            switch survey.check(given, asked: survey.questions, holding: []) {
            case .failure(let refusal): return Self.refused(refusal.reason)
            case .success(let passed): checked = passed
            }
            if failed { return (Self.json(400, #"{"error":"the response was refused"}"#), "400") }
            let stored = book.store(answers: checked.answers, checked: checked)
            return (Self.json(201, "{\"id\":\"r\(stored)\"}"), "201")
        case ("/survey", _), ("/responses", _): return (HTTPServerResponse(status: 405), "405")
        default: return (HTTPServerResponse(status: 404), "404")
        }
    }

    /// A `one_post` response's answers by question, each checked to stand under its own page and
    /// once; the refusal of a body of another shape.
    private static func answers(of body: [UInt8], in survey: TypedSurvey) -> Result<[String: JSONValue], TypedSurvey.Refusal> {
        func refuse(_ reason: String) -> Result<[String: JSONValue], TypedSurvey.Refusal> { .failure(TypedSurvey.Refusal(reason: reason)) }
        guard case .success(let value) = JSONValue.parse(body), case .array(let pages)? = value["pages"] else {
            return refuse(#"expected {"pages": [{"id": "p1", "questions": [{"id": "q1", "answer": …}, …]}, …]}"#)
        }
        var given: [String: JSONValue] = [:]
        var seenPages = Set<Int>()
        for page in pages {
            guard case .string(let pageID)? = page["id"] else { return refuse("a page without its id") }
            guard let index = survey.page(named: pageID) else { return refuse("\(pageID) is not a page of the survey") }
            guard seenPages.insert(index).inserted else { return refuse("page \(pageID) is given twice") }
            guard case .array(let items)? = page["questions"] else { return refuse("page \(pageID): expected a list of questions") }
            for item in items {
                guard case .string(let question)? = item["id"] else { return refuse("page \(pageID): a question without its id") }
                guard let home = survey.page(of: question) else { return refuse("\(question) is not a question of the survey") }
                guard home == index else { return refuse("\(question) is on page \(TypedSurvey.pageID(home)), not \(pageID)") }
                guard let answer = item["answer"] else { return refuse("\(question) has no answer") }
                guard given.updateValue(answer, forKey: question) == nil else { return refuse("\(question) is answered twice") }
            }
        }
        return .success(given)
    }

    /// Page `index`'s questions shown to a session whose answers make `holding` hold, as JSON,
    /// each counted as shown.
    private func list(_ survey: TypedSurvey, page index: Int, holding: Set<TypedSurvey.Condition>) -> String {
        book.show(survey.shown(page: index, holding: holding).map(\.id))
        return survey.pageJSON(index, holding: holding)
    }

    /// A refusal of the typed survey: `400 {"error": "…"}`, counted as an invalid submit.
    private static func refused(_ reason: String) -> (HTTPServerResponse, String) {
        (json(400, "{\"error\":\(JSONValue.quoted(reason))}"), "400 invalid")
    }
}
