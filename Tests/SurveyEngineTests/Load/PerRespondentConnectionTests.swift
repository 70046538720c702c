import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// `connections: per_respondent`: each respondent holds a connection of its own for its whole
/// survey, as a phone running the app does, and closes it when it leaves; no other respondent
/// sends on it. Counted by a real server on loopback, over each protocol the client speaks.
@Suite struct PerRespondentConnectionTests {
    enum Wire: String, CaseIterable {
        /// Plain http: HTTP/1.1.
        case http1
        /// Plain http with `http: 2`: h2c with prior knowledge.
        case h2c
        /// https under `auto` to a server without HTTP/2: each connection offers h2 by ALPN, the
        /// server picks http/1.1, and the HTTP/1.1 client takes the socket over.
        case tlsHTTP1
        /// https under `auto` to a server with HTTP/2: h2.
        case h2
    }

    /// Six respondents, two at a time on two threads, each fetching the questions and answering
    /// three, over `wire`, holding connections as `sharing` says; the run and the server's count
    /// of connections accepted, and of those the client still held when the run ended.
    func run(
        _ wire: Wire, _ sharing: ConnectionSharing, think: ThinkTime = .zero, serverIdle: Duration = .seconds(60)
    ) async throws -> (result: RunResult, accepted: Int, heldAfter: Int) {
        let group = EventLoopGroup(threads: 2)
        var serverTLS: TLSServerContext?
        var client = HTTPClientConfiguration(timeout: .seconds(60))
        client.sharing = sharing
        client.version = wire == .h2c ? .http2 : .auto
        if wire == .tlsHTTP1 || wire == .h2 {
            let (context, certificate) = try TLSServerContext.selfSigned()
            serverTLS = context
            client.tls.trustedCertificates = [certificate]
        }
        let server = try HTTPServer(
            host: "127.0.0.1", port: 0, group: group, tls: serverTLS, limits: HTTPServer.Limits(idleTimeout: serverIdle),
            http2: wire == .h2c || wire == .h2 ? .init() : nil
        ) { request in
            .respond(EncodedResponse(HTTPServerResponse(status: 200, body: request.method == "GET" ? Array(questionsJSON.utf8) : [])))
        }
        let target = HTTPTarget(scheme: serverTLS == nil ? .http : .https, host: "127.0.0.1", port: server.port)
        let transport = try HTTPClient(target: target, group: group, configuration: client)
        var outcome: (RunResult, Int, Int)?
        try await tearingDown(transport, server, group) {
            let configuration = RunConfiguration(
                load: .closed(respondents: 6), concurrency: 2, think: think, seed: 5, answers: AnswerBook(fallback: ["x"]),
                client: client)
            let coordinator = try RunCoordinator(configuration: configuration, target: target, transport: transport, executors: group.loops)
            let result = await coordinator.run()
            outcome = (result, server.connectionsAccepted, await transport.openConnectionCount())
        }
        return try #require(outcome)
    }

    @Test(arguments: Wire.allCases)
    func eachRespondentOpensAConnectionOfItsOwnAndClosesItAsItLeaves(_ wire: Wire) async throws {
        let (result, accepted, heldAfter) = try await run(wire, .perRespondent)
        #expect(result.metrics.respondentsCompleted == 6)
        // One connection a respondent, opened by its first request and carrying its others.
        #expect(accepted == 6)
        #expect(result.metrics[.questions].newConnections == 6 && result.metrics[.questions].reusedConnections == 0)
        #expect(result.metrics[.submit].newConnections == 0 && result.metrics[.submit].reusedConnections == 18)
        // Each closed as its respondent left.
        #expect(heldAfter == 0)
        // A new phone has no session to resume, though its thread's connections had some.
        #expect(result.metrics[.questions].tlsResumed == 0)
    }

    @Test(arguments: [Wire.http1, .h2c])
    func perRequestConnectionsPassFromRespondentToRespondent(_ wire: Wire) async throws {
        // The control: the two threads' connections carry every respondent in turn, and stay open.
        let (result, accepted, heldAfter) = try await run(wire, .perRequest)
        #expect(result.metrics.respondentsCompleted == 6)
        #expect(accepted <= 2)
        #expect(result.metrics[.questions].reusedConnections >= 4)
        #expect(heldAfter == accepted)
    }

    @Test(arguments: Wire.allCases)
    func aConnectionTheServerClosesWhileItsRespondentThinksIsReplacedByANewOne(_ wire: Wire) async throws {
        // The server closes a connection idle for 50 ms, at its next sweep (every 250 ms); each
        // respondent thinks 1 s before each answer, long after: a request finds its respondent's
        // connection closed and opens another (every one, unless a busy machine held a loop back
        // for most of a second), which is then its own, and none fails. (Sent as the server
        // closes, a request would race the close, as with any server that times idle
        // connections out: HTTP/1.1's would end as `connection_reset`.)
        let think = ThinkTime.uniform(DurationRange(fixed: .seconds(1)))
        let (result, accepted, heldAfter) = try await run(wire, .perRespondent, think: think, serverIdle: .milliseconds(50))
        #expect(result.metrics.respondentsCompleted == 6)
        #expect(result.metrics[.submit].attempts == 18 && result.metrics[.submit].failedAttempts == 0, "\(result.metrics[.submit].errors)")
        let replaced = result.metrics[.submit].newConnections
        #expect(replaced > 0)
        #expect(accepted == 6 + replaced)
        #expect(heldAfter == 0)
        // Over TLS the new one resumes its respondent's own session.
        if wire == .tlsHTTP1 || wire == .h2 { #expect(result.metrics[.submit].tlsResumed == replaced) }
    }

    /// A respondent keeps sending on the connection it holds when the loop's next handshake
    /// learns the other protocol (a balancer's backends may answer ALPN differently): it opens
    /// no second one, and none is left open when it leaves.
    @Test(arguments: [(true, WireProtocol.http1), (false, WireProtocol.h2)])
    func aRespondentKeepsItsConnectionWhenTheLoopLearnsTheOtherProtocol(serverSpeaksHTTP2: Bool, learned: WireProtocol) async throws {
        let group = EventLoopGroup(threads: 1)
        let (context, certificate) = try TLSServerContext.selfSigned()
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, tls: context, http2: serverSpeaksHTTP2 ? .init() : nil) { _ in
            .respond(EncodedResponse(HTTPServerResponse(status: 200)))
        }
        var configuration = HTTPClientConfiguration(timeout: .seconds(60))
        configuration.sharing = .perRespondent
        configuration.tls.trustedCertificates = [certificate]
        let target = HTTPTarget(scheme: .https, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(target: target, group: group, configuration: configuration)
        try await tearingDown(client, server, group) {
            let device = ConnectionAffinity(cutoff: RunCutoff())
            var request = HTTPRequest(try HTTPRequest.Template(method: "GET", path: "/questions", target: target))
            request.scope = .respondent(device)
            let first = await client.send(request)
            #expect(first.connection?.reused == false && first.connection?.wire == (serverSpeaksHTTP2 ? .h2 : .http1))
            // Another respondent's handshake on this loop learned the other protocol.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                group.loops[0].execute {
                    client.pools[0].negotiated = learned
                    done.resume()
                }
            }
            let second = await client.send(request)
            #expect(second.connection?.reused == true, "\(String(describing: second.connection))")
            #expect(await client.openConnectionCount() == 1)
            client.release(device)
            #expect(await client.openConnectionCount() == 0)
        }
    }
}
