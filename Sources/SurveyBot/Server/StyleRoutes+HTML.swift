import SurveyJourney
import SurveyWire

/// The `html` shape: a public survey as a browser sees it, like LimeSurvey's. `GET /survey` opens
/// a session (a cookie) and gives page 1; each `POST /survey` of a page's form is checked — the
/// session's cookie, its CSRF token, the page's key, then the answers — and answered with the
/// next page, the same page again when a required question was left empty, or the "thank you"
/// page after the last, when the response is stored.
extension StyleRoutes {
    /// The session cookie's name.
    static let formCookie = "survey_session"
    /// Why a page posted with a key not the page's own is refused.
    static let staleKey = "the page key is stale or wrong: this page was posted already"

    /// The `html` shape's routes: only `/survey`.
    func html(_ survey: TypedSurvey, _ request: HTTPServerRequest, failed: Bool) -> (HTTPServerResponse, String) {
        guard request.pathWithoutQuery == "/survey" else { return (HTTPServerResponse(status: 404), "404") }
        switch request.method {
        case "GET":
            guard let session = book.openForm(seed: seed) else { return (Self.text(503, "too many sessions"), "503") }
            let page = formPage(survey, page: 0, holding: [], form: HTMLSurveyPage.Form(csrf: session.csrf, key: session.key))
            let cookie = HTTPHeader(name: "Set-Cookie", value: "\(Self.formCookie)=\(session.id); Path=/; HttpOnly")
            return (Self.document(page, setting: cookie), "200")
        case "POST": return post(survey, request, failed: failed)
        default: return (HTTPServerResponse(status: 405, headers: [HTTPHeader(name: "Allow", value: "GET, POST")]), "405")
        }
    }

    /// A page's form posted: refused (`403` without the session or its CSRF token, `400` for a
    /// stale page key or an answer no person could give), given again with a new key when a
    /// required question is empty, else taken.
    private func post(_ survey: TypedSurvey, _ request: HTTPServerRequest, failed: Bool) -> (HTTPServerResponse, String) {
        guard let id = Self.cookie(Self.formCookie, in: request.cookie) else {
            return (Self.text(403, "no session: the survey_session cookie is missing (open /survey first)"), "403")
        }
        guard let session = book.form(id) else { return (Self.text(403, "the session is unknown: open /survey again"), "403") }
        let fields = HTMLForm.postedFields(request.body[...])
        guard fields.first(where: { $0.name == HTMLSurveyPage.csrfField })?.value == session.csrf else {
            return (Self.text(403, "the CSRF token is missing or wrong"), "403")
        }
        guard let key = session.key, fields.first(where: { $0.name == HTMLSurveyPage.keyField })?.value == key else {
            let reason = session.key == nil ? "the survey is finished" : Self.staleKey
            return (Self.text(400, reason), "400 stale")
        }
        let at = session.page
        let given: [String: JSONValue]
        switch Self.answers(fields, survey, page: at, holding: session.holding) {
        case .failure(let refusal): return (Self.text(400, refusal.reason), "400 invalid")
        case .success(let answers): given = answers
        }
        let checked: TypedSurvey.Checked
        switch survey.check(given, asked: survey.pages[at], holding: session.holding) {
        case .failure(let refusal):
            // Only a required question left empty is left: every answer given was checked above.
            guard let next = book.rekey(form: id, page: at, key: key, seed: seed) else {
                return (Self.text(400, Self.staleKey), "400 stale")
            }
            var form = HTMLSurveyPage.Form(csrf: session.csrf, key: next, error: refusal.reason)
            for (name, value) in fields where given[name] != nil { form.given[name, default: []].append(value) }
            return (Self.document(formPage(survey, page: at, holding: session.holding, form: form)), "200 again")
        case .success(let passed): checked = passed
        }
        if failed { return (Self.text(400, "the page was refused"), "400") }
        switch book.take(form: id, page: at, key: key, pages: survey.pages.count, checked: checked, seed: seed) {
        case .stale: return (Self.text(400, Self.staleKey), "400 stale")
        case .finished: return (Self.document(HTMLSurveyPage.thankYou), "200")
        case .next(let next):
            let form = HTMLSurveyPage.Form(csrf: session.csrf, key: next)
            return (Self.document(formPage(survey, page: at + 1, holding: session.holding.union(checked.holding), form: form)), "200")
        }
    }

    /// Page `index` for a session whose answers make `holding` hold, its questions counted as shown.
    private func formPage(_ survey: TypedSurvey, page index: Int, holding: Set<TypedSurvey.Condition>, form: HTMLSurveyPage.Form)
        -> String
    {
        let shown = survey.shown(page: index, holding: holding)
        book.show(shown.map(\.id))
        return HTMLSurveyPage.document(survey, page: index, shown: shown, form: form)
    }

    /// A page's answers by question, as the typed survey checks them: the fields named by a
    /// question's id, an empty one left out (what a browser sends for an input left empty), a
    /// `multiple`'s checkboxes as a list and the others as a string. Each answer is checked by
    /// its question's type and condition here, so that what the survey's check leaves is a
    /// required question unanswered. Fields of no question (the token, the key, the button) are
    /// not answers.
    private static func answers(
        _ fields: [(name: String, value: String)], _ survey: TypedSurvey, page at: Int, holding: Set<TypedSurvey.Condition>
    ) -> Result<[String: JSONValue], TypedSurvey.Refusal> {
        func refuse(_ reason: String) -> Result<[String: JSONValue], TypedSurvey.Refusal> { .failure(TypedSurvey.Refusal(reason: reason)) }
        var values: [String: [String]] = [:]
        var order: [String] = []
        for (name, value) in fields where !value.isEmpty {
            guard let page = survey.page(of: name) else { continue }
            guard page == at else { return refuse("\(name) is on page \(TypedSurvey.pageID(page)), not \(TypedSurvey.pageID(at))") }
            if values[name] == nil { order.append(name) }
            values[name, default: []].append(value)
        }
        var given: [String: JSONValue] = [:]
        for name in order {
            guard let question = survey.pages[at].first(where: { $0.id == name }), let list = values[name] else { continue }
            if let condition = question.shownIf, !holding.contains(condition) {
                return refuse("\(name) is not shown: it is asked only when \(condition.question) is \(condition.choice)")
            }
            let answer: JSONValue
            if question.kind == .multiple {
                answer = .array(list.map { .string($0) })
            } else {
                guard list.count == 1 else { return refuse("\(name) is answered twice") }
                answer = .string(list[0])
            }
            if case .failure(let refusal) = question.check(answer) { return .failure(refusal) }
            given[name] = answer
        }
        return .success(given)
    }

    /// The value of cookie `name` in a `Cookie` field; nil when it is not there.
    static func cookie(_ name: String, in field: String?) -> String? {
        guard let field else { return nil }
        for pair in field.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " }
            if trimmed.hasPrefix(name + "=") { return String(trimmed.dropFirst(name.count + 1)) }
        }
        return nil
    }

    /// An HTML document, `200`, with the session's cookie when it opens one.
    private static func document(_ text: String, setting cookie: HTTPHeader? = nil) -> HTTPServerResponse {
        let type = HTTPHeader(name: "Content-Type", value: "text/html; charset=utf-8")
        return HTTPServerResponse(status: 200, headers: [type] + (cookie.map { [$0] } ?? []), body: Array(text.utf8))
    }

    /// A refusal whose body is its reason, a line of plain text.
    private static func text(_ status: Int, _ reason: String) -> HTTPServerResponse {
        HTTPServerResponse(
            status: status, headers: [HTTPHeader(name: "Content-Type", value: "text/plain; charset=utf-8")],
            body: Array((reason + "\n").utf8))
    }
}
