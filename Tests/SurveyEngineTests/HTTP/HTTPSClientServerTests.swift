import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// The event-loop client and server over TLS on loopback: the same exchanges as over plain
/// http, plus what only https has — certificates, handshakes, sessions, tickets.
@Suite struct HTTPSClientServerTests {
    /// A server with `identity`'s certificate (or a fresh one for localhost, 127.0.0.1 and ::1),
    /// a client trusting `trusted` (or the server's certificate), and teardown.
    private func withServer(
        identity: TLSIdentity? = nil, serverOptions: TLSServerContext.Options = .init(), threads: Int = 1,
        client tweak: (inout TLSConfiguration) -> Void = { _ in }, host: String = "127.0.0.1",
        handler: @escaping HTTPServer.Handler = { _ in .respond(EncodedResponse(HTTPServerResponse(status: 200, body: Array("hi".utf8)))) },
        _ body: (HTTPServer, HTTPClient) async throws -> Void
    ) async throws {
        let identity = try identity ?? TLSIdentity.selfSigned(names: ["localhost", "127.0.0.1", "::1"])
        let group = EventLoopGroup(threads: threads)
        let context = try TLSServerContext(identity: identity, options: serverOptions)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, tls: context, handler: handler)
        var tls = TLSConfiguration(trustedCertificates: [identity.certificatePEM])
        tweak(&tls)
        let target = HTTPTarget(scheme: .https, host: host, port: server.port)
        // No test here times an attempt out: the timeout is far above any loopback answer, so
        // that a machine busy with other work cannot turn a TLS handshake into a `timeout`.
        let client = try HTTPClient(target: target, group: group, configuration: HTTPClientConfiguration(timeout: .seconds(30), tls: tls))
        try await tearingDown(client, server, group) { try await body(server, client) }
    }

    private func request(_ client: HTTPClient, _ method: String = "GET", body: String? = nil) -> HTTPRequest {
        HTTPRequest(
            // A fixed, valid request: it always frames.
            try! HTTPRequest.Template(method: method, path: "/questions", target: client.target), body: body.map { Array($0.utf8) },
            collectBody: true)
    }

    private func failureOf(_ outcome: TransportResult) -> TransportFailure? {
        if case .failure(let failure) = outcome.received { return failure }
        return nil
    }

    /// Three hundred attempts at once on one loop: at most `maxSettingUp` TLS connections are
    /// in their handshake at a time, the others wait for one to end or for a kept-alive
    /// connection, and every attempt is answered.
    @Test func handshakesInFlightAreCappedPerLoopAndEveryAttemptIsAnswered() async throws {
        let identity = try TLSIdentity.selfSigned(names: ["127.0.0.1"])
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(
            host: "127.0.0.1", port: 0, group: group, tls: try TLSServerContext(identity: identity, options: .init()),
            handler: { _ in .respond(EncodedResponse(HTTPServerResponse(status: 200, body: Array("hi".utf8)))) })
        let target = HTTPTarget(scheme: .https, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(
            target: target, group: group,
            configuration: HTTPClientConfiguration(
                timeout: .seconds(120), tls: TLSConfiguration(trustedCertificates: [identity.certificatePEM])))
        try await tearingDown(client, server, group) {
            let statuses = await withTaskGroup(of: Int.self) { tasks in
                for _ in 0..<300 {
                    let attempt = request(client)
                    tasks.addTask {
                        if case .success(let response) = await client.send(attempt).received { return response.status }
                        return 0
                    }
                }
                var all: [Int] = []
                for await status in tasks { all.append(status) }
                return all
            }
            #expect(statuses == Array(repeating: 200, count: 300))
            let peak = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                group.loops[0].execute { continuation.resume(returning: client.pools[0].settingUpPeak) }
            }
            #expect(peak == ConnectionPool.maxSettingUp, "the first \(ConnectionPool.maxSettingUp) began at once, and no more")
        }
    }

    @Test func requestsGoThroughTLSAndReuseTheConnection() async throws {
        try await withServer(handler: { request in
            .respond(EncodedResponse(HTTPServerResponse(status: 200, body: Array("\(request.method) \(request.body.count)".utf8))))
        }) { server, client in
            let first = await client.send(request(client))
            guard case .success(let response) = first.received else {
                Issue.record("\(first)")
                return
            }
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "GET 0")
            #expect(first.connection?.reused == false)
            #expect(first.connection?.tls?.hasPrefix("TLSv1.3 ") == true)
            #expect((first.connection?.tlsHandshakeTime ?? .zero) > .zero)
            #expect(first.connection?.connectTime != nil)
            // A bigger body than one TLS record (16 KB) comes back whole, on the same connection.
            let big = String(repeating: "x", count: 40_000)
            let second = await client.send(request(client, "POST", body: big))
            guard case .success(let echoed) = second.received else {
                Issue.record("\(second)")
                return
            }
            #expect(String(decoding: echoed.body, as: UTF8.self) == "POST 40000")
            #expect(second.connection == .reused)
            #expect(server.connectionsAccepted == 1)
        }
    }

    @Test func ticketsArrivingOnAnIdleConnectionDoNotCloseIt() async throws {
        try await withServer { server, client in
            for _ in 0..<20 {
                let outcome = await client.send(request(client))
                #expect(failureOf(outcome) == nil)
                // Let TLS 1.3's session tickets reach the idle connection between requests.
                try await Task.sleep(for: .milliseconds(2))
            }
            #expect(server.connectionsAccepted == 1)
        }
    }

    @Test func aNewConnectionResumesTheLastSession() async throws {
        try await withServer(handler: { _ in .respondAndClose(EncodedResponse(HTTPServerResponse(status: 200))) }) { server, client in
            // The server closes every connection: each request shakes hands anew, the second one resumed.
            let first = await client.send(request(client))
            let second = await client.send(request(client))
            #expect(failureOf(first) == nil && failureOf(second) == nil)
            #expect(server.connectionsAccepted == 2)
            #expect(first.connection?.reused == false && second.connection?.reused == false)
            #expect(first.connection?.tlsResumed == false)
            #expect(second.connection?.tlsResumed == true)
        }
    }

    @Test func anUntrustedCertificateIsACertificateFailureWithItsReason() async throws {
        let stranger = try TLSIdentity.selfSigned(names: ["127.0.0.1"])
        try await withServer(client: { $0.trustedCertificates = [stranger.certificatePEM] }) {
            _, client in
            let outcome = await client.send(request(client))
            let failure = try #require(failureOf(outcome))
            #expect(failure.kind == .tlsCertificate)
            #expect(failure.detail == "self-signed certificate" || failure.detail == "self signed certificate")
            #expect(!failure.requestSent)
            #expect(outcome.connection?.reused == false)
            // h2 was offered (`auto`) but never agreed: the attempt is not HTTP/2's.
            #expect(outcome.connection?.wire == .http1)
        }
    }

    @Test func aCertificateForAnotherHostIsRefusedUnlessTheServerNameSaysSo() async throws {
        let identity = try TLSIdentity.selfSigned(names: ["survey.example"])
        try await withServer(identity: identity) { _, client in
            let failure = try #require(failureOf(await client.send(request(client))))
            #expect(failure.kind == .tlsCertificate)
            #expect(failure.detail?.contains("mismatch") == true)
        }
        try await withServer(identity: identity, client: { $0.serverName = "survey.example" }) { _, client in
            #expect(failureOf(await client.send(request(client))) == nil)
        }
    }

    @Test func insecureAcceptsAnyCertificate() async throws {
        try await withServer(client: { $0 = TLSConfiguration(verify: false) }) { _, client in
            #expect(failureOf(await client.send(request(client))) == nil)
        }
    }

    @Test func aVersionTheServerDoesNotSpeakIsAHandshakeFailure() async throws {
        try await withServer(serverOptions: .init(maximumVersion: .tls12), client: { $0.minimumVersion = .tls13 }) { _, client in
            let failure = try #require(failureOf(await client.send(request(client))))
            #expect(failure.kind == .tlsHandshake)
            #expect(failure.detail?.contains("protocol version") == true)
        }
    }

    /// https to a port that speaks plain http: a handshake failure, with OpenSSL's "wrong version
    /// number" and what it means.
    @Test func tlsToAPlainHTTPServerIsAHandshakeFailure() async throws {
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { _ in
            .respond(EncodedResponse(HTTPServerResponse(status: 200)))
        }
        let target = HTTPTarget(scheme: .https, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(target: target, group: group, configuration: HTTPClientConfiguration(timeout: .seconds(30)))
        let outcome = await client.send(request(client))
        await client.shutdown()
        await server.shutdown()
        group.shutdown()
        #expect(failureOf(outcome)?.kind == .tlsHandshake)
        #expect(
            failureOf(outcome)?.detail == "wrong version number (the server's answer was not TLS: does it speak plain http on this port?)",
            "\(failureOf(outcome)?.detail ?? "")")
    }

    @Test func aServerThatWantsAClientCertificateGetsOne() async throws {
        let clientIdentity = try TLSIdentity.selfSigned(names: ["survey-bot"])
        let options = TLSServerContext.Options(trustedClientCertificates: [clientIdentity.certificatePEM])
        let handled = Atomic<Int>(0)
        let counting: HTTPServer.Handler = { _ in
            handled.add(1, ordering: .relaxed)
            return .respond(EncodedResponse(HTTPServerResponse(status: 200)))
        }
        try await withServer(serverOptions: options, handler: counting) { server, client in
            // No certificate given. TLS 1.3: the client's side of the handshake is over before the
            // server checks, so the request goes out, and the server's alert is what comes back.
            let failure = try #require(failureOf(await client.send(request(client))), "no certificate given")
            #expect(failure.kind == .tlsHandshake)
            #expect(failure.detail == "tlsv13 alert certificate required")
            #expect(failure.requestSent)
            #expect(server.connectionsAccepted == 1)
            #expect(handled.load(ordering: .relaxed) == 0, "the server refused the connection before any request")
        }
        try await withServer(
            serverOptions: options,
            client: {
                $0.clientCertificateChainPEM = clientIdentity.certificatePEM
                $0.clientPrivateKeyPEM = clientIdentity.privateKeyPEM
            }
        ) {
            _, client in
            #expect(failureOf(await client.send(request(client))) == nil)
        }
    }

    @Test func aBadTrustedCertificateIsRefusedWhenTheClientIsMade() throws {
        let group = EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let garbage = TLSConfiguration(trustedCertificates: ["not a certificate\n"])
        let target = HTTPTarget(scheme: .https, host: "127.0.0.1", port: 1)
        #expect {
            _ = try HTTPClient(target: target, group: group, configuration: HTTPClientConfiguration(tls: garbage))
        } throws: { error in
            "\(error)" == "trusted certificate 1: no PEM certificate in it"
        }
        // http needs no TLS context: the same configuration is fine.
        _ = try HTTPClient(
            target: HTTPTarget(scheme: .http, host: "127.0.0.1", port: 1), group: group,
            configuration: HTTPClientConfiguration(tls: garbage))
    }

    @Test func manyConcurrentHTTPSRequestsAllArrive() async throws {
        try await withServer(threads: 2) { server, client in
            let failures = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        var failures = 0
                        for _ in 0..<25 where failureOf(await client.send(request(client))) != nil { failures += 1 }
                        return failures
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(failures == 0)
            // Callers off the loops are spread over both, so each loop's pool may open one
            // connection per task: at most 32 for 400 requests, kept alive and reused.
            #expect(server.connectionsAccepted <= 32)
        }
    }
}
