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
    /// certificate or key file that cannot be read or used, an address that cannot be bound, or
    /// the typed survey asked of a shape that does not serve it.
    struct StartError: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// Starts serving on `host:port` (port 0 picks a free one) on the loops of `group`.
    init(
        configuration: ReferenceServerConfiguration, host: String = "127.0.0.1", port: Int = 0, group: EventLoopGroup
    ) throws(StartError) {
        self.configuration = configuration
        if configuration.survey == .typed, configuration.api == .jsonRPC {
            throw StartError(description: "the typed survey is served by the contract, pages, one_post and html shapes, not jsonrpc")
        }
        questions =
            configuration.survey == .typed
            ? TypedSurvey.standard.questions.map { SurveyQuestion(id: QuestionID($0.id), text: $0.text) }
            : try Self.loadQuestions(configuration.questions)
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
            let hosts = HostCheck(bindHost: host, allowed: configuration.allowedHosts)
            server = try HTTPServer(
                host: host, port: port, group: group, tls: tls, credentials: configuration.login || configuration.api == .html,
                keepsHost: true, http2: http2,
                unanswered: { state.countUnanswered($0) }
            ) { request in
                // A page using DNS rebinding cannot drive the server, nor read its counts, from a browser.
                guard hosts.allows(request.host) else { return .respond(Self.misdirected) }
                return state.handle(request)
            }
        } catch {
            throw StartError(description: error.description)
        }
        state.server.withLock { $0 = WeakServer(server) }
    }

    /// The questions a plan run against this server must have an answer for: every one, or
    /// the typed survey's required ones (its optional ones may be skipped).
    var needingAnswers: [QuestionID] {
        guard configuration.survey == .typed else { return questions.map(\.id) }
        return TypedSurvey.standard.requiredIDs
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

    /// The answer to a request for a host the server does not answer for.
    static let misdirected = EncodedResponse(
        HTTPServerResponse(
            status: HostCheck.misdirectedStatus,
            body: Array("misdirected: this server answers for localhost, an IP address, the name it binds and --allow-host\n".utf8)))

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

/// A reference to the HTTP server that the request handler (created before the server) can use.
struct WeakServer: Sendable {
    weak var server: HTTPServer?
    init(_ server: HTTPServer?) { self.server = server }
}
