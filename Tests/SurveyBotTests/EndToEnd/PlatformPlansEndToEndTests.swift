import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// The Qualtrics, Formbricks and SurveyMonkey example plans, run as written against stand-ins
/// that follow each platform's public documentation and source (the request and response
/// shapes, the statuses, the error envelopes), each with a fault of its kind; what each stand-in
/// stored is reconciled with the report.
@Suite struct PlatformPlansEndToEndTests {
    static func json(_ status: Int, _ body: String, headers: [HTTPHeader] = []) -> HTTPServerAction {
        .respond(
            EncodedResponse(
                HTTPServerResponse(
                    status: status, headers: [HTTPHeader(name: "Content-Type", value: "application/json")] + headers,
                    body: Array(body.utf8))))
    }

    func run(_ name: String, _ handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerAction, environment: [String: String])
        async throws -> (RunReport, Int32)
    {
        try await runExamplePlan(name, handler, environment: environment)
    }

    // MARK: Qualtrics

    /// The Sessions API: `X-API-TOKEN`, `{"result": …, "meta": {"httpStatus": …}}`, errors in
    /// `meta.error`; pages of multiple-choice questions answered `{"<choiceId>": {"selected":
    /// true}}` from the choices each lists, text entries a string; `advance` and `close` never
    /// together; `close` records the response. Every fifth page post is a `503` before anything
    /// is taken.
    final class Qualtrics: Sendable {
        static let pages = [["QID1", "QID2"], ["QID3", "QID4"], ["QID5"]]
        /// The text-entry questions; the others are multiple choice, of these choices.
        static let textEntry: Set<String> = ["QID2", "QID4"]
        static func choices(_ id: String) -> [String] { id == "QID3" ? ["4", "5"] : ["1", "2", "3"] }
        let state = Mutex<
            (sessions: [String: (page: Int, answers: Int)], opened: Int, posts: Int, recorded: [(complete: Bool, answers: Int)])
        >(
            ([:], 0, 0, []))

        func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
            func error(_ status: Int, _ phrase: String, _ message: String, _ code: String) -> HTTPServerAction {
                json(
                    status,
                    #"{"meta":{"httpStatus":"\#(status) - \#(phrase)","error":{"errorMessage":"\#(message)","errorCode":"\#(code)"},"requestId":"r"}}"#
                )
            }
            guard request.headers.contains(where: { $0.name.lowercased() == "x-api-token" && $0.value == "tok" }) else {
                return error(401, "Unauthorized", "invalid_client", "AUTH_6.0")
            }
            let base = "/API/v3/surveys/SV_test/sessions"
            let path = String(request.pathWithoutQuery)
            guard request.method == "POST", path.hasPrefix(base) else { return error(404, "Not Found", "Not found", "GS_4") }
            guard case .success(let body) = JSONValue.parse(request.body) else {
                return error(400, "Bad Request", "Invalid JSON", "QVAL_1")
            }
            func page(_ index: Int) -> String {
                guard index < Self.pages.count else { return "[]" }
                let items = Self.pages[index].map { id in
                    if Self.textEntry.contains(id) {
                        return #"{"questionId":"\#(id)","questionType":{"type":"TE","selector":"SL"},"display":"Say why for \#(id)"}"#
                    }
                    let choices = Self.choices(id).map { #"{"choiceId":"\#($0)","display":"Choice \#($0)"}"# }.joined(separator: ",")
                    return #"{"questionId":"\#(id)","questionType":{"type":"MC","selector":"SAVR"},"display":"Pick one for \#(id)","#
                        + #""choices":[\#(choices)]}"#
                }
                return "[" + items.joined(separator: ",") + "]"
            }
            if path == base {
                guard case .string? = body["language"] else { return error(400, "Bad Request", "language is required", "QVAL_2") }
                let id = state.withLock { state -> String in
                    state.opened += 1
                    let id = "FS_\(state.opened)"
                    state.sessions[id] = (0, 0)
                    return id
                }
                return json(
                    201,
                    #"{"result":{"sessionId":"\#(id)","embeddedData":{},"questions":\#(page(0)),"done":false},"meta":{"httpStatus":"201 - Created","requestId":"r"}}"#
                )
            }
            let id = String(path.dropFirst(base.count + 1))
            let advance = body["advance"] == .bool(true)
            let close = body["close"] == .bool(true)
            if advance && close { return error(400, "Bad Request", "advance and close are mutually exclusive", "QVAL_3") }
            if advance {
                let unavailable = state.withLock { state -> Bool in
                    state.posts += 1
                    return state.posts % 5 == 0
                }
                if unavailable { return error(503, "Service Unavailable", "Try again", "GS_503") }
            }
            return state.withLock { state -> HTTPServerAction in
                guard let session = state.sessions[id] else { return error(404, "Not Found", "Session not found", "SS_1") }
                if close {
                    state.sessions[id] = nil
                    state.recorded.append((session.page >= Self.pages.count, session.answers))
                    return json(200, #"{"result":{},"meta":{"httpStatus":"200 - OK","requestId":"r"}}"#)
                }
                guard advance, session.page < Self.pages.count, case .object(let responses)? = body["responses"] else {
                    return error(400, "Bad Request", "Invalid request", "QVAL_4")
                }
                let wanted = Self.pages[session.page]
                guard Set(responses.map(\.0)) == Set(wanted),
                    responses.allSatisfy({ id, value in
                        if Self.textEntry.contains(id) {
                            if case .string(let text) = value { return !text.isEmpty }
                            return false
                        }
                        guard case .object(let choices) = value, choices.count == 1, Self.choices(id).contains(choices[0].0) else {
                            return false
                        }
                        return choices[0].1["selected"] == .bool(true)
                    })
                else { return error(400, "Bad Request", "Invalid responses for this page", "QVAL_5") }
                let next = session.page + 1
                state.sessions[id] = (next, session.answers + responses.count)
                let done = next >= Self.pages.count
                return json(
                    200, #"{"result":{"questions":\#(page(next)),"done":\#(done)},"meta":{"httpStatus":"200 - OK","requestId":"r"}}"#)
            }
        }
    }

    @Test func qualtricsSessionsArePagedThroughAndEachCloseRecordsAWholeResponse() async throws {
        let qualtrics = Qualtrics()
        let (report, status) = try await run(
            "qualtrics-sessions", qualtrics.handle,
            environment: ["QUALTRICS_URL": "http://127.0.0.1:PORT", "QUALTRICS_SURVEY": "SV_test", "QUALTRICS_TOKEN": "tok"])
        #expect(status == 0)
        let recorded = qualtrics.state.withLock { $0.recorded }
        #expect(recorded.count == 10 && recorded.allSatisfy(\.complete))
        #expect(recorded.map(\.answers).reduce(0, +) == 50 && report.answers.submitted == 50)
        let page = try #require(report.stepReports["page"])
        #expect(page.succeeded == 30)
        // Each 503 came before the page was taken, and the page was posted again.
        let unavailable = page.attempts - 30
        #expect(unavailable > 0 && page.retries == unavailable)
        #expect(page.status["503"] == unavailable && page.errors == ["http_5xx": unavailable])
    }

    // MARK: Formbricks

    /// The client API: the environment's surveys with `blocks[].elements[]`; `POST …/responses`
    /// validated as `ZResponseInput` (`200 {"data": {"id", "quotaFull"}}`), `PUT …/responses/{id}`
    /// merging `data`, `400 response_already_finished` after `finished`; errors
    /// `{"code", "message", "details"}`. Every fourth PUT is applied and then answered `503`, as
    /// a proxy that lost the response would: sent again, it is merged again, stored once.
    final class Formbricks: Sendable {
        static let environment = "clenv0000000000000000000"
        static let survey = "clsurvey00000000000000000"
        let state = Mutex<(responses: [String: (data: [String: String], finished: Bool)], puts: Int)>(([:], 0))

        func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
            func error(_ status: Int, _ code: String, _ message: String, _ details: String = "{}") -> HTTPServerAction {
                json(status, #"{"code":"\#(code)","message":"\#(message)","details":\#(details)}"#)
            }
            let base = "/api/v1/client/\(Self.environment)"
            let path = String(request.pathWithoutQuery)
            guard path.hasPrefix(base) else {
                return error(404, "not_found", "Workspace not found", #"{"resource_type":"workspace"}"#)
            }
            switch (request.method, String(path.dropFirst(base.count))) {
            case ("GET", "/environment"):
                let elements = [
                    #"{"id":"often","type":"multipleChoiceSingle","headline":{"default":"How often do you run surveys?"},"required":true,"#
                        + #""choices":[{"id":"c1","label":{"default":"Often"}},{"id":"c2","label":{"default":"Sometimes"}},{"id":"c3","label":{"default":"Never"}}]}"#,
                    #"{"id":"why","type":"openText","headline":{"default":"Why?"},"required":false}"#,
                    #"{"id":"again","type":"openText","headline":{"default":"Would you again?"},"required":false}"#,
                ]
                return json(
                    200,
                    #"{"data":{"data":{"workspace":{"id":"w1"},"surveys":[{"id":"\#(Self.survey)","type":"app","status":"inProgress","#
                        + #""blocks":[{"id":"b1","elements":[\#(elements.joined(separator: ","))]}]}],"actionClasses":[]},"expiresAt":"2026-11-26T00:00:00Z"}}"#
                )
            case ("POST", "/responses"):
                guard case .success(let body) = JSONValue.parse(request.body) else {
                    return error(400, "bad_request", "Malformed JSON input, please check your request body")
                }
                guard case .string(let survey)? = body["surveyId"], case .bool(let finished)? = body["finished"],
                    case .object(let data)? = body["data"]
                else { return error(400, "bad_request", "Fields are missing or incorrectly formatted", #"{"surveyId":"Required"}"#) }
                guard survey == Self.survey else { return error(404, "not_found", "Survey not found", #"{"resource_type":"survey"}"#) }
                let id = state.withLock { state -> String in
                    let id = "clresp\(state.responses.count + 1)"
                    state.responses[id] = (Self.strings(data), finished)
                    return id
                }
                return json(200, #"{"data":{"id":"\#(id)","quotaFull":false}}"#)
            case ("PUT", let rest) where rest.hasPrefix("/responses/"):
                let id = String(rest.dropFirst("/responses/".count))
                guard case .success(let body) = JSONValue.parse(request.body) else {
                    return error(400, "bad_request", "Malformed JSON input, please check your request body")
                }
                return state.withLock { state -> HTTPServerAction in
                    guard let response = state.responses[id] else {
                        return error(404, "not_found", "Response not found", #"{"resource_type":"response"}"#)
                    }
                    if response.finished {
                        return error(400, "bad_request", "Response is already finished", #"{"code":"response_already_finished"}"#)
                    }
                    var merged = response.data
                    if case .object(let data)? = body["data"] {
                        // A single choice is answered by one of its labels, as Formbricks' own form sends it.
                        let given = Self.strings(data)
                        if let often = given["often"], !["Often", "Sometimes", "Never"].contains(often) {
                            return error(400, "bad_request", "Invalid response data", #"{"often":"not one of the choices"}"#)
                        }
                        merged.merge(given) { _, new in new }
                    }
                    state.responses[id] = (merged, body["finished"] == .bool(true))
                    state.puts += 1
                    if state.puts % 4 == 0, body["finished"] != .bool(true) { return json(503, "") }
                    return json(200, #"{"data":{"id":"\#(id)","quotaFull":false}}"#)
                }
            default:
                return error(405, "method_not_allowed", "Method not allowed")
            }
        }

        static func strings(_ members: [(String, JSONValue)]) -> [String: String] {
            Dictionary(members.compactMap { name, value in if case .string(let text) = value { (name, text) } else { nil } }) { _, new in
                new
            }
        }
    }

    @Test func formbricksResponsesAreCreatedAnsweredAndFinishedAndARepeatedPutIsStoredOnce() async throws {
        let formbricks = Formbricks()
        let (report, status) = try await run(
            "formbricks", formbricks.handle,
            environment: ["FORMBRICKS_URL": "http://127.0.0.1:PORT", "FORMBRICKS_ENVIRONMENT": Formbricks.environment])
        #expect(status == 0)
        let responses = formbricks.state.withLock { Array($0.responses.values) }
        #expect(responses.count == 10 && responses.allSatisfy(\.finished))
        #expect(responses.map(\.data.count).reduce(0, +) == 30 && report.answers.submitted == 30)
        #expect(responses.allSatisfy { ["Often", "Sometimes", "Never"].contains($0.data["often"] ?? "") })
        let answer = try #require(report.stepReports["answer"])
        #expect(answer.retries > 0 && answer.status["503"] == answer.retries, "a PUT whose answer was lost was sent again")
    }

    // MARK: SurveyMonkey

    /// API v3: `Authorization: bearer …`; the survey's details with `pages[].questions[]`, each
    /// with its `family`, `headings`, `required` (an object, or null) and `answers.choices`;
    /// `POST /v3/collectors/{id}/responses` checked against them — each question under its own
    /// page, a single choice one of its choices, a multiple choice distinct ones of its choices,
    /// an open-ended question a text, a required question present — `201` with the whole
    /// response; errors `{"error": {"id", "name", "docs", "message", "http_status_code"}}`. Every
    /// third POST meets the per-minute quota (`429`, nothing stored).
    final class SurveyMonkey: Sendable {
        struct Question {
            let id: String
            let family: String
            let required: Bool
            let choices: [String]
        }

        static let pages: [(id: String, questions: [Question])] = [
            (
                "p77",
                [
                    Question(id: "111", family: "single_choice", required: true, choices: ["4385067991", "4385067992", "4385067993"]),
                    Question(id: "112", family: "multiple_choice", required: false, choices: ["4385068001", "4385068002", "4385068003"]),
                ]
            ),
            (
                "p78",
                [
                    Question(id: "113", family: "open_ended", required: false, choices: []),
                    Question(id: "114", family: "single_choice", required: true, choices: ["4385069001", "4385069002"]),
                ]
            ),
        ]
        /// The responses stored, and each answer stored by question and value (`(text)` for text).
        let state = Mutex<(posts: Int, stored: Int, answers: [String: [String: Int]])>((0, 0, [:]))

        static var details: String {
            let pages = Self.pages.map { page in
                let questions = page.questions.map { question in
                    let choices = question.choices.map { #"{"id":"\#($0)","text":"Choice \#($0)"}"# }.joined(separator: ",")
                    let required = question.required ? #"{"text":"This question requires an answer.","type":"all"}"# : "null"
                    return #"{"id":"\#(question.id)","family":"\#(question.family)","headings":[{"heading":"Question \#(question.id)?"}],"#
                        + #""required":\#(required),"answers":{"choices":[\#(choices)]}}"#
                }
                return #"{"id":"\#(page.id)","questions":[\#(questions.joined(separator: ","))]}"#
            }
            return #"{"id":"123","title":"Stand-in","pages":[\#(pages.joined(separator: ","))]}"#
        }

        /// The answers of one response by question and value, or nil when it breaks the design.
        static func answers(in pages: [JSONValue]) -> [String: [String]]? {
            var answers: [String: [String]] = [:]
            for page in pages {
                guard case .string(let pageID)? = page["id"], let design = Self.pages.first(where: { $0.id == pageID }),
                    case .array(let questions)? = page["questions"]
                else { return nil }
                for question in questions {
                    guard case .string(let id)? = question["id"], let asked = design.questions.first(where: { $0.id == id }),
                        answers[id] == nil, case .array(let given)? = question["answers"], !given.isEmpty
                    else { return nil }
                    var values: [String] = []
                    for answer in given {
                        if asked.family == "open_ended" {
                            guard case .string(let text)? = answer["text"], !text.isEmpty else { return nil }
                            values.append("(text)")
                        } else {
                            guard case .string(let choice)? = answer["choice_id"], asked.choices.contains(choice), !values.contains(choice)
                            else { return nil }
                            values.append(choice)
                        }
                    }
                    if asked.family != "multiple_choice", values.count != 1 { return nil }
                    answers[id] = values
                }
            }
            let required = Self.pages.flatMap(\.questions).filter(\.required).map(\.id)
            return required.allSatisfy { answers[$0] != nil } ? answers : nil
        }

        func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
            func error(_ status: Int, _ id: String, _ name: String, _ message: String) -> HTTPServerAction {
                json(
                    status,
                    #"{"error":{"id":"\#(id)","name":"\#(name)","docs":"https://developer.surveymonkey.com/api/v3/#error-codes","#
                        + #""message":"\#(message)","http_status_code":\#(status)}}"#)
            }
            guard request.authorization?.lowercased() == "bearer tok" else {
                return error(401, "1011", "Authorization Error", "The authorization token provided was invalid.")
            }
            switch (request.method, String(request.pathWithoutQuery)) {
            case ("GET", "/v3/surveys/123/details"):
                return json(200, Self.details)
            case ("POST", "/v3/collectors/987/responses"):
                let quota = state.withLock { state -> Bool in
                    state.posts += 1
                    return state.posts % 3 == 0
                }
                if quota { return error(429, "1040", "Rate limit reached", "Too many requests were made, try again later.") }
                guard case .success(let body) = JSONValue.parse(request.body), case .array(let pages)? = body["pages"],
                    let answers = Self.answers(in: pages)
                else { return error(400, "1002", "Bad Request", "Invalid schema in the body provided.") }
                let id = state.withLock { state -> Int in
                    state.stored += 1
                    for (question, values) in answers {
                        for value in values { state.answers[question, default: [:]][value, default: 0] += 1 }
                    }
                    return 5_007_154_400 + state.stored
                }
                return json(
                    201,
                    #"{"id":"\#(id)","response_status":"completed","survey_id":"123","collector_id":"987","pages":\#(JSONValue.array(pages).json)}"#
                )
            default:
                return error(404, "1020", "Resource Not Found", "There was an error retrieving the requested resource.")
            }
        }
    }

    @Test func surveyMonkeyTakesEachWholeResponseGroupedByPageWithAnswersFromItsDesign() async throws {
        let monkey = SurveyMonkey()
        let (report, status) = try await run(
            "surveymonkey", monkey.handle,
            environment: [
                "SURVEYMONKEY_URL": "http://127.0.0.1:PORT", "SURVEYMONKEY_SURVEY": "123", "SURVEYMONKEY_COLLECTOR": "987",
                "SURVEYMONKEY_TOKEN": "tok",
            ])
        #expect(status == 0)
        let (stored, answers) = monkey.state.withLock { ($0.stored, $0.answers) }
        // No response refused: every answer one the design offers, under its own page.
        #expect(stored == 10 && report.stepReports["respond"]?.succeeded == 10)
        #expect(report.stepReports["respond"]?.status["400"] == nil)
        let respond = try #require(report.stepReports["respond"])
        #expect(respond.status["429"] == respond.attempts - 10 && respond.retries == respond.attempts - 10)
        // Question by question, what the report says was answered is what SurveyMonkey stored.
        let questions = try #require(report.questions?.byID)
        for (id, figures) in questions {
            var given: [String: Int] = [:]
            for (answer, count) in figures.answers {
                for value in answer.split(separator: ",") {
                    given[value == "(words)" ? "(text)" : String(value), default: 0] += count
                }
            }
            #expect(given == answers[id] ?? [:], "\(id)")
        }
        // The required questions always answered; the optional ones now and then declined.
        #expect(questions["111"]?.answered == 10 && questions["114"]?.answered == 10)
        #expect(report.answers.submitted + report.answers.declined == 40 && report.answers.skipped == 0)
    }

    @Test func aWrongTokenIsRefusedByEachPlatformAndReportedWithItsStatus() async throws {
        let (qualtrics, _) = try await run(
            "qualtrics-sessions", Qualtrics().handle,
            environment: ["QUALTRICS_URL": "http://127.0.0.1:PORT", "QUALTRICS_SURVEY": "SV_test", "QUALTRICS_TOKEN": "bad"])
        #expect(qualtrics.stepReports["start"]?.status == ["401": 10])
        let (monkey, _) = try await run(
            "surveymonkey", SurveyMonkey().handle,
            environment: ["SURVEYMONKEY_URL": "http://127.0.0.1:PORT", "SURVEYMONKEY_SURVEY": "123", "SURVEYMONKEY_TOKEN": "bad"])
        #expect(monkey.respondents.abandonedReasons == ["questions_unavailable": 10])
    }
}
