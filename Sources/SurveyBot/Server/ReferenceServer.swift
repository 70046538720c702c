import Foundation
import SurveyEngine
import SurveyJourney
import SurveyWire
import Synchronization

/// The reference survey server: the survey API of the original app (`GET /questions`,
/// `POST /question/submit`) on the event loops, with seeded fault injection, optional sessions
/// (`POST /session`, `login`), and a count of every request it received (`GET /__stats`).
///
/// A test or a run compares its own report with these counts: what the client says it sent
/// must be what the server says it received.
final class ReferenceServer: Sendable {
    let configuration: ReferenceServerConfiguration
    let questions: [SurveyQuestion]
    private let server: HTTPServer
    private let state: ReferenceServerState

    /// Why the server did not start: a questions file that cannot be read or is not a survey, a
    /// certificate or key file that cannot be read or used, or an address that cannot be bound.
    struct StartError: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// Starts serving on `host:port` (port 0 picks a free one) on the loops of `group`.
    init(
        configuration: ReferenceServerConfiguration, host: String = "127.0.0.1", port: Int = 0, group: EventLoopGroup
    ) throws(StartError) {
        self.configuration = configuration
        questions = try Self.loadQuestions(configuration.questions)
        var rawBody: [UInt8]?
        if case .raw(let path) = configuration.questions {
            switch FileAccess.read(path) {
            case .success(let bytes): rawBody = bytes
            case .failure(let error): throw StartError(description: "cannot read the questions file \(path): \(error.reason)")
            }
        }
        let state = ReferenceServerState(
            configuration: configuration, questions: questions, rawQuestions: rawBody, loops: group.loops.count)
        self.state = state
        let tls: TLSServerContext?
        do throws(TLSSetupError) {
            switch configuration.tls {
            case .off:
                (tls, certificatePEM) = (nil, nil)
            case .selfSigned:
                let (context, certificate) = try TLSServerContext.selfSigned()
                (tls, certificatePEM) = (context, certificate)
            case .files(let certificate, let key):
                (tls, certificatePEM) = (try TLSFiles.serverContext(certificateChain: certificate, privateKey: key), nil)
            }
        } catch {
            throw StartError(description: error.description)
        }
        do {
            let faults = configuration.faults
            let http2 =
                configuration.http2
                ? HTTP2ServerOptions(windowSize: faults.windowSize, windowDelay: faults.windowDelay) : nil
            server = try HTTPServer(
                host: host, port: port, group: group, tls: tls, credentials: configuration.login, http2: http2,
                unanswered: { state.countUnanswered($0) }
            ) { request in state.handle(request) }
        } catch {
            throw StartError(description: error.description)
        }
        state.server.withLock { $0 = WeakServer(server) }
    }

    /// The certificate a self-signed server made at start, as PEM: what a client trusts to
    /// reach it. Nil for http and for a certificate from files.
    let certificatePEM: String?

    /// `http` or `https`.
    var scheme: HTTPTarget.Scheme { configuration.tls == .off ? .http : .https }

    /// Its URL on loopback, as a run's target.
    var target: HTTPTarget { HTTPTarget(scheme: scheme, host: "127.0.0.1", port: port) }

    /// The port it listens on.
    var port: Int { server.port }

    /// The address it listens on, as `host:port`.
    var address: SocketAddress { server.address }

    /// Times a connection waiting to be accepted found the process out of descriptors: with
    /// `target: builtin` the server shares the run's limit on open files.
    var acceptsWithoutResources: Int { server.acceptsWithoutResources }

    /// The counts so far.
    func stats() -> ReferenceServerStats {
        state.snapshot(server: server)
    }

    /// Stops accepting and closes every connection.
    func shutdown() async {
        await server.shutdown()
    }

    static func loadQuestions(_ source: ReferenceServerConfiguration.Questions) throws(StartError) -> [SurveyQuestion] {
        switch source {
        case .builtin(let count):
            return (1...max(1, count)).map { id in
                SurveyQuestion(id: QuestionID(id), text: id <= builtinQuestions.count ? builtinQuestions[id - 1] : "Question number \(id)?")
            }
        case .raw:
            return []
        case .file(let path):
            let data: [UInt8]
            switch FileAccess.read(path) {
            case .success(let bytes): data = bytes
            case .failure(let error): throw StartError(description: "cannot read the questions file \(path): \(error.reason)")
            }
            switch SurveyQuestion.list(from: data) {
            case .success(let questions): return questions
            case .failure(let error): throw StartError(description: "\(path): \(error.description)")
            }
        }
    }

    /// The built-in survey: the app's two example questions and eight more of the same kind.
    static let builtinQuestions = [
        "What is your favourite colour?",
        "What is your favourite food?",
        "What is your favourite country?",
        "What is your favourite sport?",
        "What is your favourite animal?",
        "What is your favourite book?",
        "What is your favourite season?",
        "What is your favourite song?",
        "What is your favourite city?",
        "What is your favourite drink?",
    ]
}

/// Every request the reference server received, by endpoint and outcome.
struct ReferenceServerStats: Sendable, Equatable {
    /// Per endpoint (`questions`, `submit`, `session`, `other`): outcome → count. An outcome is a status
    /// code (`"200"`, `"400"`, `"503"`) or a fault without a status (`"reset"`, `"hang"`,
    /// `"malformed"`, `"goaway"`), or `"closed"` for a request that arrived on a connection the server was
    /// closing and was never answered.
    var endpoints: [String: [String: Int]]
    /// Submits refused because their body was not `{"id": …, "answer": …}` for a known id.
    var invalidSubmits: Int
    /// Answers that were trickled out slowly (counted under their status as well).
    var slowAnswers: Int
    var connectionsAccepted: Int
    var connectionsOpen: Int
    /// Requests refused by the HTTP layer (unparseable, or over the size limits).
    var rejected: Int
    /// With `login`: each token handed out → the survey calls (`questions`, `submit`) that
    /// carried it and its session's cookie. Every respondent that logged in once and used only
    /// its own session shows as one token with its own calls.
    var sessions: [String: Int] = [:]
    /// With `login`: sessions closed by `DELETE /session`.
    var closedSessions = 0
    /// With an API shape besides the contract's: the responses it stored whole, and the answers
    /// in them (`SurveyStyle`).
    var stored: (responses: Int, answers: Int) = (0, 0)

    static func == (lhs: ReferenceServerStats, rhs: ReferenceServerStats) -> Bool {
        lhs.endpoints == rhs.endpoints && lhs.invalidSubmits == rhs.invalidSubmits && lhs.slowAnswers == rhs.slowAnswers
            && lhs.connectionsAccepted == rhs.connectionsAccepted && lhs.connectionsOpen == rhs.connectionsOpen
            && lhs.rejected == rhs.rejected && lhs.sessions == rhs.sessions && lhs.closedSessions == rhs.closedSessions
            && lhs.stored == rhs.stored
    }

    /// Requests an endpoint received, whatever became of them.
    func requests(_ endpoint: String) -> Int {
        endpoints[endpoint, default: [:]].values.reduce(0, +)
    }

    /// The stats as the JSON of `GET /__stats`, keys sorted.
    var json: String {
        func object(_ counts: [String: Int]) -> String {
            "{" + counts.sorted { $0.key < $1.key }.map { "\(JSONValue.quoted($0.key)):\($0.value)" }.joined(separator: ",") + "}"
        }
        let endpointsJSON = ["other", "questions", "session", "submit"].map { name in
            let counts = endpoints[name, default: [:]]
            return "\"\(name)\":{\"outcomes\":\(object(counts)),\"requests\":\(counts.values.reduce(0, +))}"
        }
        return """
            {"closed_sessions":\(closedSessions),"connections":{"accepted":\(connectionsAccepted),"open":\(connectionsOpen)},\
            "endpoints":{\(endpointsJSON.joined(separator: ","))},\
            "invalid_submits":\(invalidSubmits),"rejected":\(rejected),"sessions":\(object(sessions)),"slow_answers":\(slowAnswers),\
            "stored":{"answers":\(stored.answers),"responses":\(stored.responses)}}
            """
    }

    /// Reads the JSON of `GET /__stats`.
    static func parse(_ body: some Collection<UInt8>) -> ReferenceServerStats? {
        guard case .success(let value) = JSONValue.parse(body) else { return nil }
        func int(_ value: JSONValue?) -> Int? {
            if case .integer(let number)? = value { return number }
            return nil
        }
        guard case .object(let endpointMembers)? = value["endpoints"] else { return nil }
        var endpoints: [String: [String: Int]] = [:]
        for (name, endpoint) in endpointMembers {
            guard case .object(let outcomes)? = endpoint["outcomes"] else { return nil }
            var counts: [String: Int] = [:]
            for (outcome, count) in outcomes {
                guard let count = int(count) else { return nil }
                counts[outcome] = count
            }
            endpoints[name] = counts
        }
        guard let invalid = int(value["invalid_submits"]), let slow = int(value["slow_answers"]), let rejected = int(value["rejected"]),
            let accepted = int(value["connections"]?["accepted"]), let open = int(value["connections"]?["open"])
        else { return nil }
        var sessions: [String: Int] = [:]
        if case .object(let members)? = value["sessions"] {
            for (token, count) in members {
                guard let count = int(count) else { return nil }
                sessions[token] = count
            }
        }
        return ReferenceServerStats(
            endpoints: endpoints, invalidSubmits: invalid, slowAnswers: slow, connectionsAccepted: accepted, connectionsOpen: open,
            rejected: rejected, sessions: sessions, closedSessions: int(value["closed_sessions"]) ?? 0,
            stored: (int(value["stored"]?["responses"]) ?? 0, int(value["stored"]?["answers"]) ?? 0))
    }
}

/// A reference to the HTTP server that the request handler (created before the server) can use.
struct WeakServer: Sendable {
    weak var server: HTTPServer?
    init(_ server: HTTPServer?) { self.server = server }
}

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

    init(configuration: ReferenceServerConfiguration, questions: [SurveyQuestion], rawQuestions: [UInt8]? = nil, loops: Int) {
        self.configuration = configuration
        faults = configuration.faults
        validIDs = Dictionary(questions.map { ($0.id.text, $0.id.isInteger) }, uniquingKeysWith: { first, _ in first })
        counts = (0..<max(1, loops)).map { _ in Shard() }
        sequence = Endpoint.allCases.map { _ in Sequence() }
        questionsResponse = EncodedResponse(.json(200, rawQuestions ?? Array(SurveyQuestion.json(questions).utf8)))
        routes =
            configuration.api == .contract ? nil : StyleRoutes(style: configuration.api, questions: questions, seed: configuration.seed)
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
        guard endpoint == .submit else { return (.respond(questionsResponse), "200") }
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
            rejected: server?.requestsRejected ?? 0, sessions: sessions.requestsByToken(),
            closedSessions: sessions.closedCount() + (routes?.book.closed ?? 0),
            stored: routes?.book.stored ?? (0, 0))
    }
}
