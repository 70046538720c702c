import Foundation
import SurveyEngine
import SurveyJourney
import SurveyWire
import Synchronization

/// The server's decisions and counts. Counts are kept per event loop, so that loops do not
/// contend, and added up when read.
final class ReferenceServerState: Sendable {
    private enum Endpoint: Int, CaseIterable {
        case questions, submit, other, session

        var name: String { ["questions", "submit", "other", "session"][rawValue] }

        init(name: String) {
            self = Self.allCases.first { $0.name == name } ?? .other
        }
    }

    /// The random streams of the faults: each (endpoint, fault) pair draws its own sequence.
    private enum Fault: UInt64 {
        case reset = 1
        case hang, malformed, error, fail, slow, latency, goAway
    }

    private struct Counts {
        var outcomes: [[String: Int]] = Array(repeating: [:], count: Endpoint.allCases.count)
        var invalidSubmits = 0
        var slowAnswers = 0
    }

    let configuration: ReferenceServerConfiguration
    private let faults: ServerFaults
    /// The questions' ids, each with whether it is a JSON integer: a submit names one as given.
    private let validIDs: [String: Bool]
    private final class Shard: Sendable {
        let counts = Mutex(Counts())
    }

    private final class Sequence: Sendable {
        let next = Atomic<UInt64>(0)
    }

    private let counts: [Shard]
    private let sessions = SessionBook()
    private let sequence: [Sequence]
    private let coldStartCount = Atomic<Int>(0)
    let server = Mutex<WeakServer>(WeakServer(nil))

    private let questionsResponse: EncodedResponse
    private let okResponse = EncodedResponse(HTTPServerResponse(status: 200))
    private let noContentResponse = EncodedResponse(HTTPServerResponse(status: 204))
    private let failResponse = EncodedResponse(HTTPServerResponse(status: 400))
    private let errorResponse = EncodedResponse(HTTPServerResponse(status: 500))
    private let coldResponse = EncodedResponse(
        HTTPServerResponse(status: 503, headers: [HTTPHeader(name: "Retry-After", value: "0")]))
    private let notFoundResponse = EncodedResponse(HTTPServerResponse(status: 404))
    private let methodResponse = EncodedResponse(HTTPServerResponse(status: 405))
    private let unauthorizedResponse = EncodedResponse(
        HTTPServerResponse(status: 401, headers: [HTTPHeader(name: "WWW-Authenticate", value: "Bearer")]))
    private let badLoginResponse = EncodedResponse(HTTPServerResponse(status: 400))
    private let fullResponse = EncodedResponse(HTTPServerResponse(status: 503))
    private static let garbage = Array("SURVEY/0.9 ??? not http\r\n\u{1}\u{2}\r\n\r\n".utf8)
    private let malformedBytes: [UInt8]
    /// The routes of a shape besides the contract's; nil for the contract.
    private let routes: StyleRoutes?
    /// The contract's typed survey and what it stored; nil for the plain questions or another shape.
    private let typedContract: (survey: TypedSurvey, book: StyleBook)?

    init(configuration: ReferenceServerConfiguration, questions: [SurveyQuestion], rawQuestions: [UInt8]? = nil, loops: Int) {
        self.configuration = configuration
        faults = configuration.faults
        validIDs = Dictionary(questions.map { ($0.id.text, $0.id.isInteger) }, uniquingKeysWith: { first, _ in first })
        counts = (0..<max(1, loops)).map { _ in Shard() }
        sequence = Endpoint.allCases.map { _ in Sequence() }
        typedContract = configuration.survey == .typed && configuration.api == .contract ? (.standard, StyleBook()) : nil
        let listing = typedContract.map { Array($0.survey.contractJSON.utf8) } ?? Array(SurveyQuestion.json(questions).utf8)
        questionsResponse = EncodedResponse(.json(200, rawQuestions ?? listing))
        routes =
            configuration.api == .contract
            ? nil
            : StyleRoutes(
                style: configuration.api, questions: questions, seed: configuration.seed,
                typed: configuration.survey == .typed ? .standard : nil)
        switch configuration.faults.malformedKind {
        case .statusLine: malformedBytes = Self.garbage
        case .headers: malformedBytes = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nthis line is not a header\r\n\r\nok".utf8)
        case .binary: malformedBytes = [0, 0, 0, 4, 0, 0, 0, 0, 0]  // an empty HTTP/2 SETTINGS frame
        }
    }

    func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
        let path = request.pathWithoutQuery
        if path == "/__stats" {
            let body = snapshot(server: server.withLock { $0.server }).json
            return .respond(EncodedResponse(.json(200, Array(body.utf8))))
        }
        let endpoint = self.endpoint(request)
        let n = sequence[endpoint.rawValue].next.wrappingAdd(1, ordering: .relaxed).oldValue
        let loop = request.loopIndex % counts.count
        func draw(_ fault: Fault) -> Double {
            SplitMix64.unitValue(seed: configuration.seed, stream: UInt64(endpoint.rawValue) << 8 | fault.rawValue, index: n)
        }
        let (action, outcome) = decide(endpoint, request, draw)
        var slow = false
        var final = action
        if case .respond(let response) = action, faults.slowRate > 0, draw(.slow) < faults.slowRate {
            final = .trickle(response, interval: faults.trickleInterval)
            slow = true
        } else if case .respond(let response) = action, faults.closeAfterEachResponse {
            final = .respondAndClose(response)
        }
        let delay = faults.latency.value(at: draw(.latency))
        if delay > .zero { final = .after(delay, final) }
        counts[loop].counts.withLock { counts in
            counts.outcomes[endpoint.rawValue][outcome, default: 0] += 1
            if slow { counts.slowAnswers += 1 }
        }
        return final
    }

    /// A request read on a connection the server was closing: counted as `closed`.
    func countUnanswered(_ request: HTTPServerRequest) {
        guard request.pathWithoutQuery != "/__stats" else { return }
        let endpoint = self.endpoint(request)
        counts[request.loopIndex % counts.count].counts.withLock { $0.outcomes[endpoint.rawValue]["closed", default: 0] += 1 }
    }

    /// The endpoint a request is counted under.
    private func endpoint(_ request: HTTPServerRequest) -> Endpoint {
        if let routes { return Endpoint(name: routes.endpoint(request)) }
        switch request.pathWithoutQuery {
        case "/questions": return .questions
        case "/question/submit": return .submit
        case "/session" where configuration.login: return .session
        default: return .other
        }
    }

    /// A shape's answer, after the faults every endpoint meets; a refusal at `--fail-rate` only
    /// for the calls that store answers.
    private func decide(_ routes: StyleRoutes, _ endpoint: Endpoint, _ request: HTTPServerRequest, _ draw: (Fault) -> Double)
        -> (HTTPServerAction, String)
    {
        if endpoint != .other, let fault = commonFault(draw) { return fault }
        let failed = endpoint == .submit && faults.failRate > 0 && draw(.fail) < faults.failRate
        let (response, outcome) = routes.respond(request, failed: failed)
        return (.respond(EncodedResponse(response)), outcome)
    }

    /// The faults every endpoint meets, drawn in order: a cold start, a reset, a hang, bytes
    /// that are not HTTP, the server going away, a `500`; nil for none.
    private func commonFault(_ draw: (Fault) -> Double) -> (HTTPServerAction, String)? {
        if faults.coldStart > 0, coldStartCount.wrappingAdd(1, ordering: .relaxed).oldValue < faults.coldStart {
            return (.respond(coldResponse), "503")
        }
        if faults.resetRate > 0, draw(.reset) < faults.resetRate { return (.reset, "reset") }
        if faults.hangRate > 0, draw(.hang) < faults.hangRate { return (.hang, "hang") }
        if faults.malformedRate > 0, draw(.malformed) < faults.malformedRate { return (.raw(malformedBytes), "malformed") }
        if faults.goAwayRate > 0, draw(.goAway) < faults.goAwayRate { return (.close, "goaway") }
        if faults.errorRate > 0, draw(.error) < faults.errorRate { return (.respond(errorResponse), "500") }
        return nil
    }

    private func decide(_ endpoint: Endpoint, _ request: HTTPServerRequest, _ draw: (Fault) -> Double) -> (HTTPServerAction, String) {
        if let routes { return decide(routes, endpoint, request, draw) }
        guard endpoint != .other else { return (.respond(notFoundResponse), "404") }
        let expectedMethod = endpoint == .questions ? "GET" : "POST"
        let logout = endpoint == .session && request.method == "DELETE"
        guard request.method == expectedMethod || (endpoint == .questions && request.method == "HEAD") || logout else {
            return (.respond(methodResponse), "405")
        }
        if faults.coldStart > 0, coldStartCount.wrappingAdd(1, ordering: .relaxed).oldValue < faults.coldStart {
            return (.respond(coldResponse), "503")
        }
        if configuration.login, endpoint != .session || logout,
            !sessions.admit(authorization: request.authorization, cookie: request.cookie)
        {
            return (.respond(unauthorizedResponse), "401")
        }
        if faults.resetRate > 0, draw(.reset) < faults.resetRate { return (.reset, "reset") }
        if faults.hangRate > 0, draw(.hang) < faults.hangRate { return (.hang, "hang") }
        if faults.malformedRate > 0, draw(.malformed) < faults.malformedRate { return (.raw(malformedBytes), "malformed") }
        if faults.goAwayRate > 0, draw(.goAway) < faults.goAwayRate { return (.close, "goaway") }
        if faults.errorRate > 0, draw(.error) < faults.errorRate { return (.respond(errorResponse), "500") }
        if logout {
            sessions.close(authorization: request.authorization)
            return (.respond(noContentResponse), "204")
        }
        if endpoint == .session { return login(request) }
        guard endpoint == .submit else {
            if let typedContract, request.method == "GET" { typedContract.book.show(typedContract.survey.questions.map(\.id)) }
            return (.respond(questionsResponse), "200")
        }
        if let typedContract {
            return typedSubmit(request.body, typedContract, failed: faults.failRate > 0 && draw(.fail) < faults.failRate)
        }
        guard isValidSubmit(request.body) else { return (.respond(failResponse), "400 invalid") }
        if faults.failRate > 0, draw(.fail) < faults.failRate { return (.respond(failResponse), "400") }
        return (.respond(okResponse), "200")
    }

    /// Hands out a session for a JSON body, or none (what a plan's `api.login` without
    /// `login_body` sends): a token, and a session id sent as the `session` cookie and the
    /// `X-Session-Id` header. Any credentials are accepted; a body that is not JSON is a 400.
    private func login(_ request: HTTPServerRequest) -> (HTTPServerAction, String) {
        if !request.body.isEmpty, case .failure = JSONValue.parse(request.body) { return (.respond(badLoginResponse), "400") }
        guard let session = sessions.open(seed: configuration.seed) else { return (.respond(fullResponse), "503") }
        let response = HTTPServerResponse(
            status: 200,
            headers: [
                HTTPHeader(name: "Content-Type", value: "application/json"),
                HTTPHeader(name: "Set-Cookie", value: "\(SessionBook.cookieName)=\(session.id); Path=/; HttpOnly"),
                HTTPHeader(name: "X-Session-Id", value: session.id),
            ],
            body: Array("{\"token\":\(JSONValue.quoted(session.token))}".utf8))
        return (.respond(EncodedResponse(response)), "200")
    }

    /// A submit of the typed survey: an answer of its question's type is stored and counted
    /// (unless `failed`: `--fail-rate`'s refusal), any other refused with a `400` naming why.
    private func typedSubmit(_ body: [UInt8], _ typed: (survey: TypedSurvey, book: StyleBook), failed: Bool) -> (HTTPServerAction, String) {
        switch typed.survey.checkSubmit(body) {
        case .failure(let refusal):
            return (.respond(EncodedResponse(StyleRoutes.json(400, "{\"error\":\(JSONValue.quoted(refusal.reason))}"))), "400 invalid")
        case .success(let checked):
            if failed { return (.respond(failResponse), "400") }
            typed.book.count(checked)
            return (.respond(okResponse), "200")
        }
    }

    /// `{"id": <known id>, "answer": <string>}`, other members ignored; the id as the questions
    /// gave it: a number for a number, a string for a string.
    private func isValidSubmit(_ body: [UInt8]) -> Bool {
        guard case .success(let value) = JSONValue.parse(body), case .string? = value["answer"] else { return false }
        switch value["id"] {
        case .integer(let id)?: return validIDs[String(id)] == true
        case .string(let id)?: return validIDs[id] == false
        default: return false
        }
    }

    func snapshot(server: HTTPServer?) -> ReferenceServerStats {
        var total = Counts()
        for shard in counts {
            shard.counts.withLock { counts in
                for endpoint in Endpoint.allCases {
                    total.outcomes[endpoint.rawValue].merge(counts.outcomes[endpoint.rawValue], uniquingKeysWith: +)
                }
                total.invalidSubmits += counts.invalidSubmits
                total.slowAnswers += counts.slowAnswers
            }
        }
        let tokens = sessions.requestsByToken()
        let book = routes?.book ?? typedContract?.book
        let tallies = book?.tallies ?? (answers: [:], shown: [:])
        var endpoints: [String: [String: Int]] = [:]
        for endpoint in Endpoint.allCases {
            var outcomes = total.outcomes[endpoint.rawValue]
            if let invalid = outcomes.removeValue(forKey: "400 invalid") {
                outcomes["400", default: 0] += invalid
                total.invalidSubmits += invalid
            }
            endpoints[endpoint.name] = outcomes
        }
        return ReferenceServerStats(
            endpoints: endpoints, invalidSubmits: total.invalidSubmits, slowAnswers: total.slowAnswers,
            connectionsAccepted: server?.connectionsAccepted ?? 0, connectionsOpen: server?.connectionsOpen ?? 0,
            rejected: server?.requestsRejected ?? 0, sessions: tokens.listed, sessionsBeyondLimit: tokens.beyond,
            closedSessions: sessions.closedCount() + (routes?.book.closed ?? 0),
            stored: book?.stored ?? (0, 0), answersByQuestion: tallies.answers, shownByQuestion: tallies.shown)
    }
}
