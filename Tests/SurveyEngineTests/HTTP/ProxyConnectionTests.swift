import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

#if canImport(Glibc)
    import Glibc
#endif

/// The client through an HTTP proxy, against a scripted proxy on loopback: plain http in
/// absolute form, https (and h2c) in a `CONNECT` tunnel, TLS end to end with a real server
/// through it, and every way a proxy can fail an attempt — each naming the proxy, none
/// repeating its credentials.
@Suite struct ProxyConnectionTests {
    private static let user = "alice"
    private static let password = "s3cret-Pa55"
    /// `Basic` of alice:s3cret-Pa55, as the proxy must receive it.
    private static let basic = "Basic " + Base64.encode(Array("\(user):\(password)".utf8))

    private func configuration(proxyPort: Int, credentials: Bool = true, version: HTTPVersion = .auto, tls: TLSConfiguration = .init())
        -> HTTPClientConfiguration
    {
        var configuration = HTTPClientConfiguration(timeout: .seconds(30), tls: tls)
        configuration.version = version
        configuration.proxy = HTTPProxy(
            host: "127.0.0.1", port: proxyPort, user: credentials ? Self.user : nil, password: credentials ? Self.password : nil)
        return configuration
    }

    private func request(_ target: HTTPTarget, _ method: String = "GET", path: String = "/questions", body: String? = nil) -> HTTPRequest {
        HTTPRequest(
            try! HTTPRequest.Template(method: method, path: path, target: target), body: body.map { Array($0.utf8) }, collectBody: true)
    }

    /// The failure of `outcome`, recorded as an issue when it has none.
    private func failure(_ outcome: TransportResult, sourceLocation: SourceLocation = #_sourceLocation) -> TransportFailure? {
        if case .failure(let failure) = outcome.received { return failure }
        Issue.record("expected a failure, got \(outcome)", sourceLocation: sourceLocation)
        return nil
    }

    /// The failure of one attempt at `target` through a scripted proxy that reads the request
    /// head and answers `answer`, then closes; the proxy, for what it read.
    private func failureThrough(
        answering answer: String, target: HTTPTarget = HTTPTarget(scheme: .https, host: "127.0.0.1", port: 8443), credentials: Bool = true,
        version: HTTPVersion = .auto, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (TransportFailure?, ScriptedProxy) {
        let proxy = try ScriptedProxy()
        let served = proxy.serve { peer in
            peer.readHead()
            peer.send(answer)
        }
        var result: TransportFailure?
        try await withClient(target, configuration(proxyPort: proxy.port, credentials: credentials, version: version)) { client in
            result = failure(await client.send(request(target)), sourceLocation: sourceLocation)
        }
        await served.value
        return (result, proxy)
    }

    private func status(_ outcome: TransportResult) -> Int? {
        if case .success(let response) = outcome.received { return response.status }
        return nil
    }

    /// Whether `text` holds no part of the proxy's credentials.
    private func keepsCredentials(_ text: String) -> Bool {
        !text.contains(Self.user) && !text.contains(Self.password) && !text.contains(Self.basic.dropFirst(6))
    }

    @Test func plainHTTPGoesInAbsoluteFormWithHostAndCredentialsOnAKeptAliveConnection() async throws {
        let proxy = try ScriptedProxy()
        let served = proxy.serve { peer in
            for _ in 0..<2 {
                guard peer.readHead() != nil else { return }
                peer.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            }
        }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: 8080)
        try await withClient(target, configuration(proxyPort: proxy.port)) { client in
            for method in ["GET", "POST"] {
                let outcome = await client.send(request(target, method, body: method == "POST" ? "a=1" : nil))
                guard case .success(let response) = outcome.received else {
                    Issue.record("\(outcome)")
                    return
                }
                #expect(response.status == 200)
            }
        }
        await served.value
        let heads = proxy.requestHeads
        try #require(heads.count == 2, "both requests went to the proxy on one connection")
        #expect(heads[0].hasPrefix("GET http://127.0.0.1:8080/questions HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"))
        #expect(heads[1].hasPrefix("POST http://127.0.0.1:8080/questions HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"))
        #expect(heads.allSatisfy { $0.contains("\r\nProxy-Authorization: \(Self.basic)\r\n") })
    }

    @Test func aProxyAsking407OfAnAbsoluteFormRequestIsAnOrdinaryResponse() async throws {
        let proxy = try ScriptedProxy()
        let served = proxy.serve { peer in
            peer.readHead()
            peer.send("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\nContent-Length: 0\r\n\r\n")
        }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: 8080)
        try await withClient(target, configuration(proxyPort: proxy.port, credentials: false)) { client in
            let outcome = await client.send(request(target))
            guard case .success(let response) = outcome.received else {
                Issue.record("\(outcome)")
                return
            }
            #expect(response.status == 407)
        }
        await served.value
        #expect(proxy.requestHeads.first?.contains("Proxy-Authorization") == false)
    }

    /// https through the proxy: `CONNECT` with `Host` and the credentials, then TLS and ALPN
    /// end to end with a real server through the tunnel (h2, which it picks), and the
    /// connection kept for the next request.
    @Test func httpsTunnelsWithCONNECTAndShakesHandsWithTheTargetThroughIt() async throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost", "127.0.0.1"])
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(
            host: "127.0.0.1", port: 0, group: group, tls: try TLSServerContext(identity: identity, options: .init()),
            http2: HTTP2ServerOptions(),
            handler: { _ in .respond(EncodedResponse(HTTPServerResponse(status: 200, body: Array("hi".utf8)))) })
        let proxy = try ScriptedProxy()
        let served = proxy.serve { peer in
            guard peer.readHead() != nil else { return }
            peer.send("HTTP/1.1 200 Connection established\r\n\r\n")
            peer.relay(to: server.port)
        }
        let target = HTTPTarget(scheme: .https, host: "localhost", port: server.port)
        let client = try HTTPClient(
            target: target, group: group,
            configuration: configuration(proxyPort: proxy.port, tls: TLSConfiguration(trustedCertificates: [identity.certificatePEM])))
        try await tearingDown(client, server, group) {
            for round in 0..<2 {
                let outcome = await client.send(request(target))
                guard case .success(let response) = outcome.received else {
                    Issue.record("\(outcome)")
                    return
                }
                #expect(String(decoding: response.body, as: UTF8.self) == "hi")
                #expect(outcome.connection?.wire == .h2)
                if round == 0 {
                    #expect(outcome.connection?.reused == false)
                    #expect(outcome.connection?.tls?.hasPrefix("TLSv1.3") == true)
                    #expect(outcome.connection?.connectTime != nil)
                } else {
                    #expect(outcome.connection?.reused == true)
                }
            }
        }
        await served.value
        #expect(
            proxy.requestHeads == [
                "CONNECT localhost:\(server.port) HTTP/1.1\r\nHost: localhost:\(server.port)\r\nProxy-Authorization: \(Self.basic)\r\n\r\n"
            ])
    }

    @Test func httpsOverHTTP1TunnelsToo() async throws {
        let identity = try TLSIdentity.selfSigned(names: ["127.0.0.1"])
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(
            host: "127.0.0.1", port: 0, group: group, tls: try TLSServerContext(identity: identity, options: .init()),
            handler: { request in .respond(EncodedResponse(HTTPServerResponse(status: 200, body: Array(request.path.utf8)))) })
        let proxy = try ScriptedProxy()
        let served = proxy.serve { peer in
            guard peer.readHead() != nil else { return }
            peer.send("HTTP/1.1 200 Connection established\r\nVia: scripted\r\n\r\n")
            peer.relay(to: server.port)
        }
        let target = HTTPTarget(scheme: .https, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(
            target: target, group: group,
            configuration: configuration(
                proxyPort: proxy.port, credentials: false, version: .http1,
                tls: TLSConfiguration(trustedCertificates: [identity.certificatePEM])))
        try await tearingDown(client, server, group) {
            let outcome = await client.send(request(target))
            guard case .success(let response) = outcome.received else {
                Issue.record("\(outcome)")
                return
            }
            // Origin form inside the tunnel: the server sees the path alone.
            #expect(String(decoding: response.body, as: UTF8.self) == "/questions")
            #expect(outcome.connection?.wire == .http1)
        }
        await served.value
        #expect(proxy.requestHeads == ["CONNECT 127.0.0.1:\(server.port) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n"])
    }

    @Test(arguments: [
        (407, "Proxy Authentication Required", "the proxy refused the credentials"),
        (403, "Forbidden", "forbids a tunnel to this host or port"),
        (502, "Bad Gateway", "could not reach the target"),
    ])
    func aRefusedCONNECTIsProxyRefusedWithTheStatusAndWhatItMeans(status: Int, reason: String, meaning: String) async throws {
        // squid's refusals come with a page: none of it is read.
        let (failure, proxy) = try await failureThrough(
            answering: "HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/html\r\nContent-Length: 9\r\n\r\n<p>no</p>")
        #expect(failure?.kind == .proxyRefused)
        #expect(failure?.requestSent == false)
        let detail = failure?.detail ?? ""
        #expect(detail.hasPrefix("the proxy 127.0.0.1:\(proxy.port) answered CONNECT 127.0.0.1:8443 with \(status) \(reason): "))
        #expect(detail.contains(meaning))
        #expect(keepsCredentials(detail))
    }

    @Test func a407WithoutCredentialsSaysToGiveThem() async throws {
        let (failure, proxy) = try await failureThrough(answering: "HTTP/1.1 407 Proxy Authentication Required\r\n\r\n", credentials: false)
        #expect(
            failure?.detail
                == "the proxy 127.0.0.1:\(proxy.port) answered CONNECT 127.0.0.1:8443 with 407 Proxy Authentication Required: "
                + "give credentials in the proxy URL (http://user:password@host:port)")
    }

    /// h2c (plain http under `http: 2`) goes through a tunnel too, which a proxy may refuse.
    @Test func h2cTunnelsAndARefusalIsTyped() async throws {
        let (failure, proxy) = try await failureThrough(
            answering: "HTTP/1.1 403 Forbidden\r\n\r\n", target: HTTPTarget(scheme: .http, host: "127.0.0.1", port: 8080), version: .http2)
        #expect(failure?.kind == .proxyRefused)
        #expect(failure?.detail?.contains("with 403 Forbidden") == true)
        #expect(proxy.requestHeads.first?.hasPrefix("CONNECT 127.0.0.1:8080 HTTP/1.1\r\n") == true)
    }

    @Test func aProxyClosingMidAnswerIsAClosedConnectionNamingTheProxy() async throws {
        let (failure, proxy) = try await failureThrough(answering: "HTTP/1.1 200 Conn")
        #expect(failure?.kind == .connectionClosed)
        #expect(failure?.detail == "the proxy 127.0.0.1:\(proxy.port) closed the connection before its answer to CONNECT was whole")
        #expect(failure?.requestSent == false)
    }

    /// A proxy that takes the connection and never answers `CONNECT`: the connect timeout,
    /// which bounds the tunnel too, ends the attempt, naming the proxy.
    @Test func aProxySilentAfterCONNECTTimesOutNamingTheProxy() async throws {
        let proxy = try ScriptedProxy()
        let served = proxy.serve { peer in
            peer.readHead()
            // Nothing more: wait for the client to give up and close.
            peer.readHead()
        }
        let target = HTTPTarget(scheme: .https, host: "127.0.0.1", port: 8443)
        var configuration = configuration(proxyPort: proxy.port)
        configuration.connectTimeout = .milliseconds(300)
        try await withClient(target, configuration) { client in
            let failure = failure(await client.send(request(target)))
            #expect(failure?.kind == .timeout)
            #expect(failure?.detail == "no answer to CONNECT within the connect timeout from the proxy 127.0.0.1:\(proxy.port)")
            #expect(failure?.requestSent == false)
        }
        await served.value
    }

    @Test func anAnswerThatIsNotHTTPIsMalformed() async throws {
        let (failure, _) = try await failureThrough(answering: "SSH-2.0-OpenSSH\r\n\r\n")
        #expect(failure?.kind == .malformedResponse)
        #expect(failure?.detail?.contains("without an HTTP/1.x status line") == true)
    }

    @Test(arguments: [HTTPTarget.Scheme.http, .https])
    func aDeadProxyPortIsARefusedConnectionNamingTheProxy(scheme: HTTPTarget.Scheme) async throws {
        // A port bound and not listening, held for the test: a port merely free could be the one
        // the kernel gives the client's own end, which TCP then connects to itself.
        let bound = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(bound) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let isBound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(bound, $0, length) == 0 && getsockname(bound, $0, &length) == 0
            }
        }
        try #require(isBound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let target = HTTPTarget(scheme: scheme, host: "127.0.0.1", port: 8080)
        try await withClient(target, configuration(proxyPort: port)) { client in
            let failure = failure(await client.send(request(target)))
            #expect(failure?.kind == .connectionRefused)
            #expect(failure?.detail == "cannot connect to the proxy 127.0.0.1:\(port): Connection refused")
            #expect(keepsCredentials(failure?.detail ?? ""))
        }
    }

    /// A respondent's own proxy (`Device.proxy`) takes its connections, the run's the others'.
    @Test func aRespondentsOwnProxyOverridesTheRunsForItsConnections() async throws {
        let runProxy = try ScriptedProxy()
        let ownProxy = try ScriptedProxy()
        let answer: @Sendable (ScriptedProxy.Peer) -> Void = { peer in
            guard peer.readHead() != nil else { return }
            peer.send("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        }
        let servedRun = runProxy.serve(answer)
        let servedOwn = ownProxy.serve(answer)
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: 8080)
        var configuration = configuration(proxyPort: runProxy.port, credentials: false)
        configuration.sharing = .perRespondent
        try await withClient(target, configuration) { client in
            let device = ConnectionAffinity(cutoff: RunCutoff())
            device.proxy = HTTPProxy(host: "127.0.0.1", port: ownProxy.port, user: "bob", password: "pw")
            var own = request(target, path: "/own")
            own.scope = .respondent(device)
            #expect(status(await client.send(own)) == 200)
            client.release(device)
            #expect(status(await client.send(request(target, path: "/run"))) == 200)
        }
        await servedRun.value
        await servedOwn.value
        #expect(ownProxy.requestHeads.first?.hasPrefix("GET http://127.0.0.1:8080/own HTTP/1.1\r\n") == true)
        #expect(ownProxy.requestHeads.first?.contains("Proxy-Authorization: Basic Ym9iOnB3\r\n") == true)
        #expect(runProxy.requestHeads.first?.hasPrefix("GET http://127.0.0.1:8080/run HTTP/1.1\r\n") == true)
    }
}
