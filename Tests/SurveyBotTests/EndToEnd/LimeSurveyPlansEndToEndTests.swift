import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// The LimeSurvey example plans, run as written against stand-ins that answer as LimeSurvey 6.4
/// does (its RemoteControl handler's source, and requests and responses recorded from a real
/// LimeSurvey on loopback): every stored row is checked against the report.
@Suite struct LimeSurveyPlansEndToEndTests {
    /// The survey both stand-ins serve: two groups of two questions, the second mandatory.
    static let survey = 246_810
    static let columns = ["246810X1X1", "246810X1X2", "246810X2X3", "246810X2X4"]

    /// The rows of a survey's response table: each column's value, and the submit date.
    final class Table: Sendable {
        let rows = Mutex<[(values: [String: String], submitted: Bool)]>([])

        func insert(_ values: [String: String], submitted: Bool) -> Int {
            rows.withLock { rows in
                rows.append((values, submitted))
                return rows.count
            }
        }

        func update(_ id: Int, _ change: @Sendable (inout (values: [String: String], submitted: Bool)) -> Void) {
            rows.withLock { rows in if id >= 1, id <= rows.count { change(&rows[id - 1]) } }
        }

        /// Complete rows, and the answers stored in them.
        var complete: (rows: Int, answers: Int) {
            rows.withLock { rows in
                let done = rows.filter(\.submitted)
                return (done.count, done.map { $0.values.filter { !$0.value.isEmpty }.count }.reduce(0, +))
            }
        }
    }

    /// RemoteControl 2 at `/index.php/admin/remotecontrol`: JSON-RPC whose refusals are a
    /// `{"status": …}` result inside a `200`, whose `add_response` keeps only the names that are
    /// columns of the table (`array_intersect_key`) and stores a row each time, and an unknown
    /// method a `500` HTML page.
    final class RemoteControl: Sendable {
        let table = Table()
        let keys = Mutex<(issued: Int, open: Set<String>, released: Int)>((0, [], 0))

        func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
            guard request.method == "POST", request.pathWithoutQuery == "/index.php/admin/remotecontrol",
                case .success(let call) = JSONValue.parse(request.body), case .string(let method)? = call["method"]
            else { return reply(#"{"id":null,"result":null,"error":"unable to decode request"}"#) }
            let id = (call["id"] ?? .null).json
            let params: [JSONValue]
            if case .array(let list)? = call["params"] { params = list } else { params = [] }
            func result(_ json: String) -> HTTPServerAction { reply(#"{"id":\#(id),"result":\#(json),"error":null}"#) }
            func status(_ text: String) -> HTTPServerAction { result(#"{"status":\#(JSONValue.quoted(text))}"#) }
            let keyIsOpen: Bool = {
                guard case .string(let key)? = params.first else { return false }
                return keys.withLock { $0.open.contains(key) }
            }()
            switch method {
            case "get_session_key":
                guard params.count >= 2, params[0] == .string("admin"), params[1] == .string("pw") else {
                    return status("Invalid user name or password")
                }
                let key = keys.withLock { keys -> String in
                    keys.issued += 1
                    let key = String(repeating: "k", count: 28) + String(format: "%04d", keys.issued)
                    keys.open.insert(key)
                    return key
                }
                return result(JSONValue.quoted(key))
            case "release_session_key":
                if case .string(let key)? = params.first {
                    keys.withLock { if $0.open.remove(key) != nil { $0.released += 1 } }
                }
                return result(#""OK""#)
            case "list_questions":
                guard keyIsOpen else { return status("Invalid session key") }
                guard params.count >= 2,
                    params[1] == .integer(LimeSurveyPlansEndToEndTests.survey)
                        || params[1] == .string(String(LimeSurveyPlansEndToEndTests.survey))
                else {
                    return status("Error: Invalid survey ID")
                }
                let items = [
                    (1, 1, "name", "What is your name?"), (2, 1, "color", "Pick a colour"), (3, 2, "likes", "Do you like load tests?"),
                    (4, 2, "age", "How old are you?"),
                ].map { qid, gid, title, text in
                    #"{"id":\#(qid),"question":\#(JSONValue.quoted(text)),"language":"en","qid":\#(qid),"parent_qid":0,"sid":246810,"#
                        + #""type":"S","title":"\#(title)","mandatory":"N","gid":\#(gid),"relevance":"1"}"#
                }
                return result("[" + items.joined(separator: ",") + "]")
            case "add_response":
                guard keyIsOpen else { return status("Invalid session key") }
                guard params.count >= 3, params[1] == .integer(LimeSurveyPlansEndToEndTests.survey) else {
                    return status("Error: Invalid survey ID")
                }
                guard case .object(let data) = params[2] else { return status("Error: Invalid response data") }
                var values: [String: String] = [:]
                for (name, value) in data where LimeSurveyPlansEndToEndTests.columns.contains(name) {
                    if case .string(let text) = value { values[name] = text } else { values[name] = value.json }
                }
                let submitted = data.first { $0.0 == "submitdate" }.map { $0.1 != .string("") } ?? true
                return result(JSONValue.quoted(String(table.insert(values, submitted: submitted))))
            default:
                return .respond(
                    EncodedResponse(
                        HTTPServerResponse(
                            status: 500, headers: [HTTPHeader(name: "Content-Type", value: "text/html; charset=UTF-8")],
                            body: Array("<!DOCTYPE html><html><body>Internal Server Error</body></html>".utf8))))
            }
        }

        private func reply(_ body: String) -> HTTPServerAction {
            .respond(
                EncodedResponse(
                    HTTPServerResponse(
                        status: 200,
                        headers: [
                            HTTPHeader(name: "Content-Type", value: "application/json"),
                            HTTPHeader(name: "Set-Cookie", value: "LS-LOOPBACKTESTSESSION=x; path=/; HttpOnly"),
                        ], body: Array(body.utf8))))
        }
    }

    /// The survey's public pages at `/index.php/246810`: a session cookie and a CSRF cookie on
    /// the first visit, which also starts the row; each page a form whose every field must come
    /// back — the token (else `400`), the page's `LEMpostKey` (else the page is shown again,
    /// nothing saved), `relevanceN` (else the question's answer is not saved) — and the button
    /// pressed; a mandatory question left empty shows the page again; `movesubmit` on the last
    /// page stores the row as complete and shows the "thank you" page.
    final class PublicPages: Sendable {
        let table = Table()
        /// Session → its row, the page it is at (1, 2; 3 when done), the CSRF token and the page key.
        let sessions = Mutex<[String: (row: Int, page: Int, csrf: String, postKey: Int)]>([:])

        func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
            guard request.pathWithoutQuery == "/index.php/\(LimeSurveyPlansEndToEndTests.survey)" else {
                return .respond(EncodedResponse(HTTPServerResponse(status: 404)))
            }
            let cookies = Dictionary(
                (request.cookie ?? "").split(separator: ";").map {
                    let pair = $0.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
                    return (pair[0], pair.count > 1 ? pair[1] : "")
                }, uniquingKeysWith: { first, _ in first })
            if request.method == "GET" {
                let (session, state) = sessions.withLock { sessions -> (String, (row: Int, page: Int, csrf: String, postKey: Int)) in
                    let session = "sess\(sessions.count + 1)"
                    let state = (row: table.insert([:], submitted: false), page: 1, csrf: "Y3NyZi\(sessions.count)+/==", postKey: 1000)
                    sessions[session] = state
                    return (session, state)
                }
                return page(
                    state.page, state,
                    setting: [
                        "LS-SESSION=\(session); path=/; HttpOnly", "YII_CSRF_TOKEN=\(Self.percentEncoded(state.csrf)); path=/; HttpOnly",
                    ])
            }
            guard let session = cookies["LS-SESSION"], let state = sessions.withLock({ $0[session] }) else {
                return .respond(EncodedResponse(HTTPServerResponse(status: 400)))
            }
            let form = Self.fields(String(decoding: request.body, as: UTF8.self))
            guard form["YII_CSRF_TOKEN"] == state.csrf, cookies["YII_CSRF_TOKEN"].map(Self.percentDecoded) == state.csrf else {
                return .respond(
                    EncodedResponse(HTTPServerResponse(status: 400, body: Array("The CSRF token could not be verified.".utf8))))
            }
            guard form["LEMpostKey"] == String(state.postKey), state.page <= 2 else { return page(state.page, state) }
            let questions = state.page == 1 ? ["246810X1X1", "246810X1X2"] : ["246810X2X3", "246810X2X4"]
            let relevant = state.page == 1 ? ["relevance1", "relevance2"] : ["relevance3", "relevance4"]
            var saved: [String: String] = [:]
            for (question, relevance) in zip(questions, relevant) where form[relevance] == "1" {
                if let value = form[question], !value.isEmpty { saved[question] = value }
            }
            // A list question takes only the codes its radio buttons offer, as LimeSurvey does.
            if let code = saved["246810X1X2"], !["A1", "A2"].contains(code) { saved["246810X1X2"] = nil }
            if let code = saved["246810X2X3"], !["Y", "N"].contains(code) { saved["246810X2X3"] = nil }
            let answers = saved
            table.update(state.row) { row in row.values.merge(answers) { _, new in new } }
            var next = state
            next.postKey += 1
            let move = form["move"] ?? ""
            if state.page == 1, saved["246810X1X2"] == nil || move != "movenext" {
                // The mandatory colour missing: the same page again, with a new key.
                sessions.withLock { $0[session] = next }
                return page(1, next)
            }
            if state.page == 2, move == "movesubmit" {
                table.update(state.row) { $0.submitted = true }
                next.page = 3
            } else if state.page == 1 {
                next.page = 2
            }
            sessions.withLock { $0[session] = next }
            return page(next.page, next)
        }

        private func page(_ number: Int, _ state: (row: Int, page: Int, csrf: String, postKey: Int), setting cookies: [String] = [])
            -> HTTPServerAction
        {
            let html: String
            if number >= 3 {
                html = "<html><body><div class=\"completed-text\">Thank you! Your answers were stored.</div></body></html>"
            } else {
                let (q1, q2) = number == 1 ? (1, 2) : (3, 4)
                let button = number == 1 ? "movenext" : "movesubmit"
                html = """
                    <html><body>
                    <form id="limesurvey" name="limesurvey" autocomplete="off" action="/index.php/246810" method="post">
                    <input type="hidden" value="\(state.csrf)" name="YII_CSRF_TOKEN" />
                    <input type='hidden' name='fieldnames' value='246810X\(number)X\(q1)|246810X\(number)X\(q2)' id='fieldnames' />
                    <input id="thisstep" type="hidden" value="\(number)" name="thisstep" />
                    <input id="sid" type="hidden" value="246810" name="sid" />
                    <input id="LEMpostKey" type="hidden" value="\(state.postKey)" name="LEMpostKey" />
                    <input type='hidden' id='relevance\(q1)' name='relevance\(q1)' value='1'/>
                    <input type='hidden' id='relevance\(q2)' name='relevance\(q2)' value='1'/>
                    <input type='hidden' id='aQuestionsWithDependencies' data-qids='[]' />
                    <input id="java246810X\(number)X\(q2)" disabled="disabled" type="hidden" value="" name="java246810X\(number)X\(q2)" />
                    \(number == 1 ? Self.text(1, 1) + Self.radio(1, 2, ["A1", "A2"]) : Self.radio(2, 3, ["Y", "N"]) + Self.text(2, 4) + Self.hidden)
                    <input type='hidden' name='lastgroup' value='246810X\(number)' id='lastgroup' />
                    <input type="hidden" name="ajax" value="off" id="ajax" />
                    <button type="submit" id="defaultbtn" value="default" name="move" class="submit d-none"></button>
                    <button id="ls-button-submit" type="submit" value="\(button)" name="move" accesskey="n">Next</button>
                    </form></body></html>
                    """
            }
            var headers = [HTTPHeader(name: "Content-Type", value: "text/html; charset=UTF-8")]
            headers += cookies.map { HTTPHeader(name: "Set-Cookie", value: $0) }
            return .respond(EncodedResponse(HTTPServerResponse(status: 200, headers: headers, body: Array(html.utf8))))
        }

        /// A short free text question, `246810X<group>X<question>`, in its container as LimeSurvey writes it.
        static func text(_ group: Int, _ question: Int) -> String {
            """
            <div id="question\(question)" class="row text-short question-container">
            <div id="ls-question-text-246810X\(group)X\(question)" class=" ls-label-question ">Question \(question)</div>
            <input class="form-control" type="text" name="246810X\(group)X\(question)" id="answer246810X\(group)X\(question)" value="" />
            </div>

            """
        }

        /// A question whose condition does not hold, as LimeSurvey still writes it: hidden
        /// (`ls-irrelevant ls-hidden`), its relevance flag empty; an answer to it is dropped.
        static let hidden = """
            <div id="question9" class="row list-radio ls-irrelevant ls-hidden mandatory question-container">
            <input type='hidden' name='relevance9' value=''/>
            <div id="ls-question-text-246810X2X9" class=" ls-label-question ">Why apples?</div>
            <input class="form-check-input" type="radio" value="C1" name="246810X2X9" id="answer246810X2X9C1" />
            </div>

            """

        /// A list (radio) question offering `codes`, each with its label.
        static func radio(_ group: Int, _ question: Int, _ codes: [String]) -> String {
            let name = "246810X\(group)X\(question)"
            return "<div id=\"question\(question)\" class=\"row list-radio question-container\">\n"
                + "<div id=\"ls-question-text-\(name)\" class=\" ls-label-question \">Question \(question)</div>\n"
                + "<input class=\"form-check-input\" type=\"radio\" value=\"\" name=\"\(name)\" id=\"answer\(name)NANS\" /><label for=\"answer\(name)NANS\">No answer</label>\n"
                + codes.map {
                    "<input class=\"form-check-input\" type=\"radio\" value=\"\($0)\" name=\"\(name)\" id=\"answer\(name)\($0)\" />"
                        + "<label for=\"answer\(name)\($0)\">Label \($0)</label>\n"
                }.joined() + "</div>\n"
        }

        static func fields(_ body: String) -> [String: String] {
            var fields: [String: String] = [:]
            for pair in body.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    percentDecoded(String($0).replacingOccurrences(of: "+", with: " "))
                }
                // PHP keeps the last of a name given twice.
                fields[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            return fields
        }

        static func percentDecoded(_ text: String) -> String { text.removingPercentEncoding ?? text }
        static func percentEncoded(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
        }
    }

    /// Runs the plan `plans/<name>.plan` as written against `handler`, with `environment`; the
    /// report and the exit status.
    func run(
        _ name: String, _ handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerAction, environment: [String: String] = [:],
        edit: (String) -> String = { $0 }
    ) async throws -> (RunReport, Int32) {
        try await runExamplePlan(
            name, handler, environment: ["LIMESURVEY_URL": "http://127.0.0.1:PORT"].merging(environment) { _, new in new }, edit: edit)
    }

    @Test func remoteControlStoresOneCompleteRowPerRespondentWithEveryAnswer() async throws {
        let rpc = RemoteControl()
        let (report, status) = try await run("limesurvey-rc2", rpc.handle, environment: ["LIMESURVEY_PASSWORD": "pw"])
        #expect(status == 0)
        let stored = rpc.table.complete
        #expect(stored.rows == 10 && report.stepReports["respond"]?.succeeded == 10)
        #expect(stored.answers == 40 && report.answers.submitted == 40, "every answer under its own column, none dropped")
        #expect(rpc.keys.withLock { ($0.issued, $0.released) } == (10, 10))
    }

    @Test func aRefusedLoginIsRejectedWithLimeSurveysOwnWordsAndNothingIsStored() async throws {
        let rpc = RemoteControl()
        let (report, status) = try await run("limesurvey-rc2", rpc.handle, environment: ["LIMESURVEY_PASSWORD": "wrong"])
        #expect(status == 1)
        #expect(report.respondents.abandonedReasons == ["login_failed": 10])
        #expect(
            report.stepReports["login"]?.errorSamples?["rejected"]
                == #"check '$.result.status not exists' failed: found "Invalid user name or password""#)
        #expect(rpc.table.rows.withLock { $0.count } == 0)
        #expect(report.stepReports["release"]?.calls == 0, "no key, nothing to release")
    }

    @Test func thePublicPagesAreTakenAsABrowserTakesThemAndEveryRowIsComplete() async throws {
        let pages = PublicPages()
        let (report, status) = try await run("limesurvey-pages", pages.handle)
        #expect(status == 0)
        let stored = pages.table.complete
        #expect(stored.rows == 10 && pages.table.rows.withLock { $0.count } == 10)
        #expect(stored.answers == 40 && report.answers.submitted == 40)
        #expect(report.stepReports["page"]?.succeeded == 20, "two pages each")
        // The list questions answered with the codes their radio buttons offer, each code as often as the report says.
        let questions = try #require(report.questions?.byID)
        for (list, offered) in [("246810X1X2", Set(["A1", "A2"])), ("246810X2X3", ["Y", "N"])] {
            let codes = pages.table.rows.withLock { rows in rows.compactMap { $0.values[list] } }
            #expect(Set(codes).isSubset(of: offered) && codes.count == 10, "\(list)")
            #expect(questions[list]?.answers == Dictionary(codes.map { ($0, 1) }, uniquingKeysWith: +), "\(list)")
        }
        // The question LimeSurvey hid (its condition not met) was neither seen nor answered,
        // and the "No answer" button of each list was never picked.
        #expect(questions["246810X2X9"] == nil && questions.count == 4)
    }

    @Test func aMandatoryAnswerLeftOutShowsThePageAgainUntilThePageLimit() async throws {
        let pages = PublicPages()
        let (report, status) = try await run("limesurvey-pages", pages.handle) { plan in
            // No answer for the list questions: the mandatory colour is never given.
            plan.replacingOccurrences(of: "  \"*\": choice()", with: "")
        }
        #expect(status == 1)
        #expect(report.respondents.abandonedReasons == ["page_limit": 10])
        #expect(report.stepReports["page"]?.succeeded == 100, "ten posts of the first page each, the plan's bound")
        #expect(pages.table.complete.rows == 0)
    }
}
