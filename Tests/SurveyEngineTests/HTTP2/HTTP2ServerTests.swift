import Foundation
import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// `HTTPServer` speaking HTTP/2 on loopback, against the engine's own client: h2c with prior
/// knowledge and HTTP/1.1 on one port, h2 by ALPN over TLS, and every action of the handler
/// carried out on its stream alone.
@Suite struct HTTP2ServerTests {
    /// A server on a free loopback port with `handler`, HTTP/2 on, over TLS when `tls`; a client
    /// speaking `version` to it; `body` runs with both, which are then shut down.
    func withServer(
        tls: Bool = false, version: HTTPVersion = .http2, timeout: Duration = .seconds(10), http2: HTTP2ServerOptions? = .init(),
        handler: @escaping HTTPServer.Handler, _ body: (HTTPServer, HTTPClient) async throws -> Void
    ) async throws {
        let group = EventLoopGroup(threads: 1)
        var serverTLS: TLSServerContext?
        var configuration = HTTPClientConfiguration(timeout: timeout)
        configuration.version = version
        configuration.sharing = .shared
        if tls {
            let (context, certificate) = try TLSServerContext.selfSigned()
            serverTLS = context
            configuration.tls.trustedCertificates = [certificate]
        }
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, tls: serverTLS, http2: http2, handler: handler)
        let target = HTTPTarget(scheme: tls ? .https : .http, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(target: target, group: group, configuration: configuration)
        try await tearingDown(client, server, group) { try await body(server, client) }
    }

    /// Answers each request with its path as the body.
    static let echo: HTTPServer.Handler = { request in
        .respond(EncodedResponse(HTTPServerResponse(status: 200, body: Array(request.path.utf8))))
    }

    func send(_ client: HTTPClient, _ path: String, method: String = "GET", body: String? = nil) async -> TransportResult {
        let request = HTTPRequest(
            try! HTTPRequest.Template(method: method, path: path, target: client.target), body: body.map { Array($0.utf8) },
            collectBody: true)
        return await client.send(request)
    }

    func sendAll(_ client: HTTPClient, _ paths: [String]) async -> [String: TransportResult] {
        await withTaskGroup(of: (String, TransportResult).self) { group in
            for path in paths { group.addTask { (path, await send(client, path)) } }
            var results: [String: TransportResult] = [:]
            for await (path, result) in group { results[path] = result }
            return results
        }
    }

    func body(_ result: TransportResult?) -> String? {
        guard case .success(let response)? = result?.received else { return nil }
        return String(decoding: response.body, as: UTF8.self)
    }

    @Test func h2cWithPriorKnowledgeAndHTTP11ShareOnePort() async throws {
        try await withServer(handler: Self.echo) { server, client in
            let paths = (0..<50).map { "/questions?n=\($0)" }
            let results = await sendAll(client, paths)
            for path in paths {
                #expect(body(results[path]) == path)
                #expect(results[path]?.connection?.wire == .h2c)
            }
            let posted = await send(client, "/question/submit", method: "POST", body: #"{"id":1,"answer":"red"}"#)
            #expect(body(posted) == "/question/submit")

            // The same port answers HTTP/1.1, which never starts with the preface.
            let group = EventLoopGroup(threads: 1)
            let plain = try HTTPClient(target: client.target, group: group, configuration: HTTPClientConfiguration())
            let result = await send(plain, "/plain")
            await plain.shutdown()
            group.shutdown()
            #expect(body(result) == "/plain")
            #expect(result.connection?.wire == .http1)
            #expect(server.connectionsAccepted >= 2)
        }
    }

    @Test func overTLSTheServerPicksH2WhenOfferedAndHTTP11Otherwise() async throws {
        for version in [HTTPVersion.http2, .auto, .http1] {
            try await withServer(tls: true, version: version, handler: Self.echo) { _, client in
                let result = await send(client, "/questions")
                #expect(body(result) == "/questions")
                #expect(result.connection?.wire == (version == .http1 ? .http1 : .h2), "\(version)")
            }
        }
        // A server without HTTP/2 picks http/1.1 as before: a client requiring h2 fails.
        try await withServer(tls: true, version: .http2, http2: nil, handler: Self.echo) { _, client in
            let result = await send(client, "/questions")
            guard case .failure(let failure) = result.received else {
                Issue.record("answered over h2")
                return
            }
            #expect(failure.kind == .protocolError)
        }
    }

    @Test func eachActionHoldsOrBreaksItsOwnStreamOnly() async throws {
        let closes = Atomic<Int>(0)
        let handler: HTTPServer.Handler = { request in
            let ok = EncodedResponse(HTTPServerResponse(status: 200, body: Array(request.path.utf8)))
            switch request.path {
            case "/reset": return .reset
            case "/hang": return .hang
            case "/raw": return .raw([0, 1, 2])
            case "/slow": return .after(.milliseconds(100), .respond(ok))
            case "/trickle": return .trickle(ok, interval: .milliseconds(1))
            case "/close":
                // The first goes unprocessed with GOAWAY; sent again, it is answered.
                return closes.wrappingAdd(1, ordering: .relaxed).oldValue == 0 ? .close : .respond(ok)
            default: return .respond(ok)
            }
        }
        try await withServer(timeout: .seconds(1), handler: handler) { _, client in
            let fine = (0..<10).map { "/fine\($0)" }
            let results = await sendAll(client, ["/reset", "/hang", "/raw", "/slow", "/trickle"] + fine)
            for path in fine + ["/slow", "/trickle"] { #expect(body(results[path]) == path, "\(path)") }
            func kind(_ path: String) -> ErrorKind? {
                guard case .failure(let failure)? = results[path]?.received else { return nil }
                return failure.kind
            }
            #expect(kind("/reset") == .streamReset)
            #expect(kind("/hang") == .timeout)
            #expect(kind("/raw") == .streamReset)

            let again = await send(client, "/close")
            #expect(body(again) == "/close")
            #expect(again.connection?.reconnected == true)
            #expect(closes.load(ordering: .relaxed) == 2)
        }
    }

    @Test func aSlowWindowDelaysRequestBodiesButLosesNothing() async throws {
        let options = HTTP2ServerOptions(windowSize: 10, windowDelay: .milliseconds(20))
        let bodies = Mutex<[String]>([])
        let handler: HTTPServer.Handler = { request in
            bodies.withLock { $0.append(String(decoding: request.body, as: UTF8.self)) }
            return .respond(EncodedResponse(HTTPServerResponse(status: 200)))
        }
        try await withServer(http2: options, handler: handler) { _, client in
            // The first request goes out with the preface, before the client knows the server's
            // window (RFC 9113's 65,535 until then): open the connection first.
            #expect(body(await send(client, "/questions")) == "")
            let body = #"{"id":1,"answer":"a rather long answer"}"#
            let started = ContinuousClock.now
            let result = await send(client, "/question/submit", method: "POST", body: body)
            let elapsed = ContinuousClock.now - started
            guard case .success(let response) = result.received else {
                Issue.record("\(result)")
                return
            }
            #expect(response.status == 200)
            #expect(bodies.withLock { $0 } == ["", body])
            // 40 bytes through a window of 10: three windows given back, 20 ms apart at least.
            #expect(body.utf8.count == 40)
            #expect(elapsed >= .milliseconds(60), "\(elapsed)")
        }
    }
}
