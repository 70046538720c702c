import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// The event-loop client's HTTP/2 against servers no one here wrote: nginx over TLS (ALPN h2,
/// and its fallback to http/1.1) and in cleartext (h2c), and nghttpd. Each server's own log or
/// answer says which protocol carried each request.
@Suite(.enabled(if: Installed.nginx != nil && Installed.openssl != nil, "nginx or openssl is not installed (.ci/run installs them)"))
struct HTTP2AgainstNginxTests {
    func client(
        port: Int, scheme: HTTPTarget.Scheme, tls: TLSConfiguration = TLSConfiguration(), version: HTTPVersion,
        sharing: ConnectionSharing = .perRequest, _ body: (HTTPClient) async throws -> Void
    ) async throws {
        var configuration = HTTPClientConfiguration(timeout: .seconds(20), tls: tls)
        configuration.version = version
        configuration.sharing = sharing
        try await withClient(HTTPTarget(scheme: scheme, host: "127.0.0.1", port: port), configuration, body)
    }

    func request(_ client: HTTPClient, _ method: String, _ path: String, body: String? = nil) -> HTTPRequest {
        HTTPRequest(
            try! HTTPRequest.Template(method: method, path: path, target: client.target), body: body.map { Array($0.utf8) },
            collectBody: true)
    }

    func status(_ result: TransportResult) -> Int? {
        if case .success(let response) = result.received { return response.status }
        return nil
    }

    /// GET /questions, POST /question/submit and ten more submits at once.
    func survey(_ client: HTTPClient) async -> [TransportResult] {
        var results = [await client.send(request(client, "GET", "/questions"))]
        results.append(await client.send(request(client, "POST", "/question/submit", body: #"{"id":1,"answer":"blue"}"#)))
        let more = await withTaskGroup(of: TransportResult.self) { group in
            for index in 0..<10 {
                let submit = request(client, "POST", "/question/submit", body: #"{"id":\#(index),"answer":"x"}"#)
                group.addTask { await client.send(submit) }
            }
            var all: [TransportResult] = []
            for await result in group { all.append(result) }
            return all
        }
        return results + more
    }

    @Test func autoSpeaksH2WhenNginxPicksItAndSharesOneConnection() async throws {
        let authority = try TLSIdentity(names: ["Survey Test CA"], isAuthority: true)
        let server = try await NginxServer.start(identity: try TLSIdentity(names: ["127.0.0.1"], issuer: authority), http2: true)
        defer { server.stop() }
        let tls = TLSConfiguration(trustedCertificates: [authority.certificatePEM])
        try await client(port: server.port, scheme: .https, tls: tls, version: .auto, sharing: .shared) { client in
            let results = await survey(client)
            #expect(results.map(status) == Array(repeating: 200, count: 12), "\(results)")
            #expect(results.allSatisfy { $0.connection?.wire == .h2 })
            #expect(results.filter { $0.connection?.reused == false }.count == 1)
        }
        // nginx's own account: every request over HTTP/2, all on its first connection.
        let logged = await server.waitForProtocolLog(12)
        #expect(logged.count == 12)
        #expect(logged.allSatisfy { $0.hasSuffix(" HTTP/2.0 1") }, "\(logged)")
        #expect(logged.first?.hasPrefix("GET /questions 200 TLSv1.3") == true, "\(logged)")
    }

    @Test func autoFallsBackToHTTP1WhenNginxOffersNoH2AndHTTP2Alone() async throws {
        let authority = try TLSIdentity(names: ["Survey Test CA"], isAuthority: true)
        let server = try await NginxServer.start(identity: try TLSIdentity(names: ["127.0.0.1"], issuer: authority))
        defer { server.stop() }
        let tls = TLSConfiguration(trustedCertificates: [authority.certificatePEM])
        try await client(port: server.port, scheme: .https, tls: tls, version: .auto) { client in
            let results = await survey(client)
            #expect(results.map(status) == Array(repeating: 200, count: 12), "\(results)")
            #expect(results.allSatisfy { $0.connection?.wire == .http1 }, "\(results.map { $0.connection?.wire })")
        }
        let logged = await server.waitForProtocolLog(12)
        #expect(logged.allSatisfy { $0.contains(" HTTP/1.1 ") }, "\(logged)")
        // Required and refused: a protocol_error that says so, nothing sent.
        try await client(port: server.port, scheme: .https, tls: tls, version: .http2) { client in
            let result = await client.send(request(client, "GET", "/questions"))
            guard case .failure(let failure) = result.received else {
                Issue.record("expected a failure, got \(result)")
                return
            }
            #expect(failure.kind == .protocolError)
            #expect(failure.detail?.contains("does not speak HTTP/2") == true, "\(failure)")
            #expect(!failure.requestSent)
        }
        #expect(server.requests.count == 12)
    }

    @Test func h2cWithPriorKnowledgeToNginx() async throws {
        let server = try await NginxServer.startCleartextHTTP2()
        defer { server.stop() }
        try await client(port: server.port, scheme: .http, version: .http2, sharing: .shared) { client in
            let results = await survey(client)
            #expect(results.map(status) == Array(repeating: 200, count: 12), "\(results)")
            #expect(results.allSatisfy { $0.connection?.wire == .h2c })
        }
        let logged = await server.waitForProtocolLog(12)
        #expect(logged.filter { $0.hasPrefix("POST /question/submit 200 ") && $0.hasSuffix(" HTTP/2.0 1") }.count == 11, "\(logged)")
    }
}

@Suite(.enabled(if: Installed.nghttpd != nil, "nghttpd is not installed (.ci/run installs nghttp2-server)"))
struct HTTP2ClientAgainstNghttpdTests {
    @Test func theClientReadsNghttpdsFilesOverH2c() async throws {
        let directory = try TemporaryDirectory()
        let survey = (0..<3_000).map { #"{"id":\#($0),"question":"Question number \#($0)?"}"# }.joined(separator: ",")
        _ = try directory.write("questions", "[" + survey + "]")
        guard let port = freeLoopbackPort() else { return }
        let server = try ChildProcess(try #require(Installed.nghttpd), ["--no-tls", "-a", "127.0.0.1", "-d", directory.path, String(port)])
        defer { server.stop() }
        _ = await server.waitFor(within: 30) { listensOnLoopback(pid: $0.pid, port: port) ? true : nil }
        let group = EventLoopGroup(threads: 1)
        var configuration = HTTPClientConfiguration(timeout: .seconds(20))
        configuration.version = .http2
        configuration.sharing = .shared
        let client = try HTTPClient(
            target: HTTPTarget(scheme: .http, host: "127.0.0.1", port: port), group: group, configuration: configuration)
        let target = client.target
        let results = await withTaskGroup(of: TransportResult.self) { tasks in
            for path in ["/questions", "/questions", "/questions", "/missing"] {
                let request = HTTPRequest(try! HTTPRequest.Template(method: "GET", path: path, target: target), collectBody: true)
                tasks.addTask { await client.send(request) }
            }
            var all: [TransportResult] = []
            for await result in tasks { all.append(result) }
            return all
        }
        await client.shutdown()
        group.shutdown()
        var bodies: [Int: Int] = [:]
        for result in results {
            guard case .success(let response) = result.received else {
                Issue.record("\(result)")
                continue
            }
            if response.status == 200 { #expect(String(decoding: response.body, as: UTF8.self) == "[" + survey + "]") }
            bodies[response.status, default: 0] += 1
        }
        // Three streams at once on one connection, and a 404 among them.
        #expect(bodies == [200: 3, 404: 1])
    }
}
