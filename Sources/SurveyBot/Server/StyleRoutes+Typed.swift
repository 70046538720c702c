import SurveyJourney
import SurveyWire

/// The typed survey's side of the `pages` and `one_post` shapes (`builtin.survey: typed`): each
/// question listed with its type, choices or bounds and required flag, and every answer checked
/// against it; the `pages` shape's session routes are the plain survey's (`StyleRoutes.pages`). A refusal is a `400` whose `error` names
/// the question and the reason, counted as an invalid submit.
extension StyleRoutes {
    /// The typed survey's check of page `at`'s answers, for a session whose earlier answers make
    /// `holding` hold: each of the page's questions once, as its type says; a question shown on a
    /// condition is on its page only when the condition holds.
    func typedAnswers(_ members: [(String, JSONValue)], _ survey: TypedSurvey, page at: Int, holding: Set<TypedSurvey.Condition>)
        -> Result<PageTaken, PageRefusal>
    {
        func refuse(_ reason: String) -> Result<PageTaken, PageRefusal> { .failure(PageRefusal(response: Self.refused(reason))) }
        var given: [String: JSONValue] = [:]
        for (question, answer) in members where given.updateValue(answer, forKey: question) != nil {
            return refuse("\(question) is answered twice")
        }
        let elsewhere = members.map(\.0).filter { survey.page(of: $0) != at }
        if let first = elsewhere.first {
            // A page posted again after the server moved on (a retry) names an earlier page's questions.
            if elsewhere.count == members.count, elsewhere.allSatisfy({ (survey.page(of: $0) ?? at) < at }) {
                return .failure(
                    PageRefusal(response: (Self.json(409, #"{"error":"the answers are an earlier page's, taken already"}"#), "409")))
            }
            guard let page = survey.page(of: first) else { return refuse("\(first) is not a question of the survey") }
            return refuse("\(first) is on page \(TypedSurvey.pageID(page)), not \(TypedSurvey.pageID(at))")
        }
        switch survey.check(given, asked: survey.pages[at], holding: holding) {
        case .failure(let refusal): return refuse(refusal.reason)
        case .success(let checked): return .success(PageTaken(answers: checked.answers, checked: checked))
        }
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
    func typedPage(_ survey: TypedSurvey, page index: Int, holding: Set<TypedSurvey.Condition>) -> String {
        book.show(survey.shown(page: index, holding: holding).map(\.id))
        return survey.pageJSON(index, holding: holding)
    }

    /// A refusal of the typed survey: `400 {"error": "…"}`, counted as an invalid submit.
    private static func refused(_ reason: String) -> (HTTPServerResponse, String) {
        (json(400, "{\"error\":\(JSONValue.quoted(reason))}"), "400 invalid")
    }
}
