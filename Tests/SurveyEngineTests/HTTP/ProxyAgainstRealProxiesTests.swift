import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// What the client does through a real proxy, told by the proxy's own access log: one `CONNECT`
/// per tunnel, requests in absolute form for plain http, TLS and h2 end to end through a tunnel,
/// h2c refused or passed as the proxy is configured, credentials checked.
struct RealProxyScenarios {
    typealias Start = (_ connectPorts: [Int], _ credentials: ProxyCredentials?) async throws -> ProxyServer

    let start: Start
    static let credentials = ProxyCredentials(user: "surveyor", password: "tunnel-Pa55")

    private func configuration(proxy: ProxyServer, credentials: ProxyCredentials?, version: HTTPVersion, tls: TLSConfiguration = .init())
        -> HTTPClientConfiguration
    {
        var configuration = HTTPClientConfiguration(timeout: .seconds(30), tls: tls)
        configuration.version = version
        configuration.proxy = HTTPProxy(host: "127.0.0.1", port: proxy.port, user: credentials?.user, password: credentials?.password)
        return configuration
    }

    private func request(_ target: HTTPTarget, _ method: String = "GET", _ path: String = "/questions", body: String? = nil) -> HTTPRequest
    {
        HTTPRequest(
            try! HTTPRequest.Template(method: method, path: path, target: target), body: body.map { Array($0.utf8) }, collectBody: true)
    }

    private func status(_ outcome: TransportResult) -> Int? {
        if case .success(let response) = outcome.received { return response.status }
        return nil
    }

    private func failure(_ outcome: TransportResult) -> TransportFailure? {
        if case .failure(let failure) = outcome.received { return failure }
        return nil
    }

    /// Three respondents holding their own connections over https, two requests each: three
    /// tunnels, so three `CONNECT`s in the proxy's log, and six requests in nginx's.
    func oneTunnelPerRespondentOverHTTPS() async throws {
        let authority = try TLSIdentity(names: ["Survey Test CA"], isAuthority: true)
        let server = try await NginxServer.start(identity: try TLSIdentity(names: ["127.0.0.1"], issuer: authority))
        defer { server.stop() }
        let proxy = try await start([server.port], Self.credentials)
        defer { proxy.stop() }
        let target = HTTPTarget(scheme: .https, host: "127.0.0.1", port: server.port)
        var configuration = configuration(
            proxy: proxy, credentials: Self.credentials, version: .auto,
            tls: TLSConfiguration(trustedCertificates: [authority.certificatePEM]))
        configuration.sharing = .perRespondent
        try await withClient(target, configuration) { client in
            for _ in 0..<3 {
                let device = ConnectionAffinity(cutoff: RunCutoff())
                for round in 0..<2 {
                    var attempt = request(target)
                    attempt.scope = .respondent(device)
                    let outcome = await client.send(attempt)
                    #expect(status(outcome) == 200, "\(outcome)")
                    // nginx without h2: ALPN agreed on http/1.1 through the tunnel.
                    #expect(outcome.connection?.wire == .http1)
                    #expect(outcome.connection?.reused == (round == 1))
                }
                client.release(device)
            }
        }
        #expect(await server.waitForRequests(6).count == 6)
        let logged = await proxy.waitForRequests(3)
        #expect(logged == Array(repeating: "CONNECT 127.0.0.1:\(server.port)", count: 3), "\(logged)")
    }

    /// h2 end to end through one tunnel: nginx picks h2 by ALPN, every request a stream of one
    /// connection, one `CONNECT`.
    func h2ThroughATunnel() async throws {
        let authority = try TLSIdentity(names: ["Survey Test CA"], isAuthority: true)
        let server = try await NginxServer.start(identity: try TLSIdentity(names: ["127.0.0.1"], issuer: authority), http2: true)
        defer { server.stop() }
        let proxy = try await start([server.port], nil)
        defer { proxy.stop() }
        let target = HTTPTarget(scheme: .https, host: "127.0.0.1", port: server.port)
        var configuration = configuration(
            proxy: proxy, credentials: nil, version: .auto, tls: TLSConfiguration(trustedCertificates: [authority.certificatePEM]))
        configuration.sharing = .shared
        try await withClient(target, configuration) { client in
            for _ in 0..<4 {
                let outcome = await client.send(request(target, "POST", "/question/submit", body: #"{"id":1,"answer":"x"}"#))
                #expect(status(outcome) == 200, "\(outcome)")
                #expect(outcome.connection?.wire == .h2)
            }
        }
        let logged = await server.waitForProtocolLog(4)
        #expect(logged.count == 4 && logged.allSatisfy { $0.hasSuffix(" HTTP/2.0 1") }, "\(logged)")
        #expect(await proxy.waitForRequests(1) == ["CONNECT 127.0.0.1:\(server.port)"])
    }

    /// Plain http over HTTP/1.1: no tunnel, each request to the proxy in absolute form,
    /// counted in its log.
    func plainHTTPInAbsoluteForm(credentials: ProxyCredentials?) async throws {
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(
            host: "127.0.0.1", port: 0, group: group,
            handler: { request in .respond(EncodedResponse(HTTPServerResponse(status: 200, body: Array(request.path.utf8)))) })
        let proxy: ProxyServer
        do {
            proxy = try await start([], credentials)
        } catch {
            await server.shutdown()
            group.shutdown()
            throw error
        }
        defer { proxy.stop() }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        try await tearingDown(
            after: {
                try await withClient(target, configuration(proxy: proxy, credentials: credentials, version: .auto)) { client in
                    for (method, body) in [("GET", nil), ("POST", "a=1"), ("GET", nil)] {
                        let outcome = await client.send(request(target, method, body: body))
                        #expect(status(outcome) == 200, "\(outcome)")
                        #expect(outcome.connection?.wire == .http1)
                    }
                }
            },
            {
                await server.shutdown()
                group.shutdown()
            })
        let url = "http://127.0.0.1:\(server.port)/questions"
        #expect(await proxy.waitForRequests(3) == ["GET \(url)", "POST \(url)", "GET \(url)"])
    }

    /// h2c through a tunnel to nginx: passed when the proxy allows `CONNECT` to its port,
    /// refused with 403 (`proxy_refused`) when it does not.
    func h2c(allowed: Bool) async throws {
        let server = try await NginxServer.startCleartextHTTP2()
        defer { server.stop() }
        let proxy = try await start(allowed ? [server.port] : [], nil)
        defer { proxy.stop() }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        try await withClient(target, configuration(proxy: proxy, credentials: nil, version: .http2)) { client in
            let outcome = await client.send(request(target))
            if allowed {
                #expect(status(outcome) == 200, "\(outcome)")
                #expect(outcome.connection?.wire == .h2c)
            } else {
                let failure = failure(outcome)
                #expect(failure?.kind == .proxyRefused, "\(outcome)")
                #expect(
                    failure?.detail?.hasPrefix("the proxy 127.0.0.1:\(proxy.port) answered CONNECT 127.0.0.1:\(server.port) with 403")
                        == true)
                #expect(failure?.requestSent == false)
            }
        }
        #expect(await proxy.waitForRequests(1) == ["CONNECT 127.0.0.1:\(server.port)"])
        if allowed {
            #expect(await server.waitForProtocolLog(1).first?.hasSuffix(" HTTP/2.0 1") == true)
        } else {
            #expect(server.requests.isEmpty)
        }
    }

    /// A proxy that wants credentials, given none: a tunnel refused with 407 (`proxy_refused`,
    /// saying to give them); a plain-http request answered 407, an ordinary response.
    func credentialsMissing() async throws {
        let proxy = try await start([], Self.credentials)
        defer { proxy.stop() }
        let tunnelled = HTTPTarget(scheme: .https, host: "127.0.0.1", port: 443)
        try await withClient(tunnelled, configuration(proxy: proxy, credentials: nil, version: .auto)) { client in
            let failure = failure(await client.send(request(tunnelled)))
            #expect(failure?.kind == .proxyRefused)
            #expect(
                failure?.detail?.contains("with 407 Proxy Authentication Required: give credentials in the proxy URL") == true,
                "\(String(describing: failure))")
        }
        let plain = HTTPTarget(scheme: .http, host: "127.0.0.1", port: 9)
        try await withClient(plain, configuration(proxy: proxy, credentials: nil, version: .auto)) { client in
            #expect(status(await client.send(request(plain))) == 407)
        }
        var wrong = Self.credentials
        wrong.password = "not-it"
        try await withClient(tunnelled, configuration(proxy: proxy, credentials: wrong, version: .auto)) { client in
            let failure = failure(await client.send(request(tunnelled)))
            #expect(failure?.kind == .proxyRefused)
            #expect(failure?.detail?.contains("the proxy refused the credentials of the proxy URL") == true)
            #expect(failure?.detail?.contains("not-it") == false)
            #expect(failure?.detail?.contains(Self.credentials.user) == false)
        }
    }
}

@Suite(.enabled(if: Installed.squid != nil && Installed.nginx != nil, "squid or nginx is not installed (.ci/run installs them)"))
struct ProxyAgainstSquidTests {
    let scenarios = RealProxyScenarios { ports, credentials in try await ProxyServer.squid(connectPorts: ports, credentials: credentials) }

    @Test func oneCONNECTPerRespondentOverHTTPSWithCredentials() async throws { try await scenarios.oneTunnelPerRespondentOverHTTPS() }
    @Test func h2EndToEndThroughOneTunnel() async throws { try await scenarios.h2ThroughATunnel() }
    @Test func plainHTTPInAbsoluteFormWithCredentials() async throws {
        try await scenarios.plainHTTPInAbsoluteForm(credentials: RealProxyScenarios.credentials)
    }
    @Test func plainHTTPInAbsoluteForm() async throws { try await scenarios.plainHTTPInAbsoluteForm(credentials: nil) }
    /// squid's default refuses `CONNECT` to any port but 443 (and here the TLS fixtures').
    @Test func h2cToAPortSquidForbidsIsRefusedWith403() async throws { try await scenarios.h2c(allowed: false) }
    @Test func missingOrWrongCredentialsAre407() async throws { try await scenarios.credentialsMissing() }
}

@Suite(.enabled(if: Installed.tinyproxy != nil && Installed.nginx != nil, "tinyproxy or nginx is not installed (.ci/run installs them)"))
struct ProxyAgainstTinyproxyTests {
    let scenarios = RealProxyScenarios { ports, credentials in
        try await ProxyServer.tinyproxy(connectPorts: ports, credentials: credentials)
    }

    @Test func oneCONNECTPerRespondentOverHTTPSWithCredentials() async throws { try await scenarios.oneTunnelPerRespondentOverHTTPS() }
    @Test func h2EndToEndThroughOneTunnel() async throws { try await scenarios.h2ThroughATunnel() }
    @Test func plainHTTPInAbsoluteFormWithCredentials() async throws {
        try await scenarios.plainHTTPInAbsoluteForm(credentials: RealProxyScenarios.credentials)
    }
    /// tinyproxy passes h2c where its `ConnectPort` allows the port.
    @Test func h2cThroughATunnelTinyproxyAllows() async throws { try await scenarios.h2c(allowed: true) }
    @Test func missingOrWrongCredentialsAre407() async throws { try await scenarios.credentialsMissing() }
}
