import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

// The event-loop client against TLS servers it shares no code with — `openssl s_server` and
// nginx on 127.0.0.1 — and against peers that never finish a handshake. Failures are data: each
// test checks the `TransportFailure`'s kind and OpenSSL's reason, and where the server keeps an
// account of its own (s_server's status page and errors, nginx's log), that it agrees.
//
// Certificates are made in memory for each test: a CA of its own and the certificates it issued.

@Suite(.enabled(if: Installed.openssl != nil, "the openssl command is not installed: no s_server to test against (.ci/run installs it)"))
struct HTTPSAgainstOpenSSLServerTests {
    @Test func aCertificateIssuedByTheCAFileIsTrustedForItsAddressAndItsName() async throws {
        let authority = try TLSIdentity(names: ["Survey Test CA"], isAuthority: true)
        let server = try await OpenSSLServer.start(identity: try TLSIdentity(names: ["localhost", "127.0.0.1"], issuer: authority))
        defer { server.stop() }
        let trusting = TLSConfiguration(trustedCertificates: [authority.certificatePEM])
        var byName = trusting
        byName.serverName = "localhost"
        for tls in [trusting, byName] {
            let outcome = try await send(port: server.port, tls: tls)
            let response = try #require(responseOf(outcome), "\(outcome)")
            #expect(response.status == 200)
            let agreed = try #require(outcome.connection?.tls)
            #expect(agreed.hasPrefix("TLSv1.3 "))
            // s_server's status page says what it agreed: the same protocol and cipher.
            let page = String(decoding: response.body, as: UTF8.self)
            #expect(page.contains("New, TLSv1.3, Cipher is \(agreed.dropFirst("TLSv1.3 ".count))\n"), "\(page)")
        }
    }

    @Test func aSelfSignedCertificateIsRefusedAndAcceptedWithoutVerification() async throws {
        let server = try await OpenSSLServer.start(identity: try TLSIdentity.selfSigned(names: ["127.0.0.1"]))
        defer { server.stop() }
        // No CA file: the system's certificates, as a plan without `tls.ca_file` has it.
        let refused = try #require(failureOf(try await send(port: server.port, tls: TLSConfiguration())))
        #expect(refused.kind == .tlsCertificate)
        #expect(refused.detail == "self-signed certificate")
        #expect(!refused.requestSent)
        // The client told the server why before it hung up.
        #expect(await server.waitForLog("tlsv1 alert unknown ca"), "\(server.log)")
        // What `--insecure` sets.
        let accepted = try await send(port: server.port, tls: TLSConfiguration(verify: false))
        #expect(responseOf(accepted)?.status == 200, "\(accepted)")
    }

    @Test func aCertificateForAnotherNameIsAMismatchUnlessTheServerNameIsThatName() async throws {
        let authority = try TLSIdentity(names: ["Survey Test CA"], isAuthority: true)
        let server = try await OpenSSLServer.start(identity: try TLSIdentity(names: ["survey.example"], issuer: authority))
        defer { server.stop() }
        let trusting = TLSConfiguration(trustedCertificates: [authority.certificatePEM])
        let cases: [(serverName: String?, reason: String?)] = [
            (nil, "IP address mismatch"), ("localhost", "hostname mismatch"), ("survey.example", nil),
        ]
        for (serverName, reason) in cases {
            var tls = trusting
            tls.serverName = serverName
            let outcome = try await send(port: server.port, tls: tls)
            if let reason {
                let failure = try #require(failureOf(outcome), "\(serverName ?? "127.0.0.1")")
                #expect(failure.kind == .tlsCertificate)
                #expect(failure.detail == reason)
            } else {
                #expect(responseOf(outcome)?.status == 200, "the certificate is good for its own name: \(outcome)")
            }
        }
    }

    @Test func anExpiredOrNotYetValidCertificateIsRefusedWithItsReason() async throws {
        let authority = try TLSIdentity(names: ["Survey Test CA"], isAuthority: true)
        let tls = TLSConfiguration(trustedCertificates: [authority.certificatePEM])
        let day = Duration.seconds(86_400)
        let cases: [(notBefore: Duration, notAfter: Duration, reason: String)] = [
            (day * -2, day * -1, "certificate has expired"), (day, day * 2, "certificate is not yet valid"),
        ]
        for (notBefore, notAfter, reason) in cases {
            let identity = try TLSIdentity(names: ["127.0.0.1"], notBefore: notBefore, notAfter: notAfter, issuer: authority)
            let server = try await OpenSSLServer.start(identity: identity)
            defer { server.stop() }
            let failure = try #require(failureOf(try await send(port: server.port, tls: tls)), "\(reason)")
            #expect(failure.kind == .tlsCertificate)
            #expect(failure.detail == reason)
            #expect(!failure.requestSent)
        }
    }

    @Test func aRequiredClientCertificateIsShownAndItsAbsenceIsRefused() async throws {
        let authority = try TLSIdentity(names: ["Survey Test CA"], isAuthority: true)
        let clientAuthority = try TLSIdentity(names: ["Survey Clients CA"], isAuthority: true)
        let respondent = try TLSIdentity(names: ["respondent.survey-bot"], issuer: clientAuthority)
        let server = try await OpenSSLServer.start(
            identity: try TLSIdentity(names: ["127.0.0.1"], issuer: authority), requiringClientCertificatesFrom: clientAuthority)
        defer { server.stop() }
        let trusting = TLSConfiguration(trustedCertificates: [authority.certificatePEM])
        var identified = trusting
        identified.clientCertificateChainPEM = respondent.certificatePEM
        identified.clientPrivateKeyPEM = respondent.privateKeyPEM

        let shown = try await send(port: server.port, tls: identified)
        let response = try #require(responseOf(shown), "\(shown)")
        #expect(response.status == 200)
        let page = String(decoding: response.body, as: UTF8.self)
        #expect(page.contains("Client certificate\n") && page.contains("Subject: CN=respondent.survey-bot\n"), "\(page)")

        // TLS 1.3: the client's side of the handshake is over before the server checks, so the
        // request goes out, and the server's alert is what comes back.
        let refused = try #require(failureOf(try await send(port: server.port, tls: trusting)))
        #expect(refused.kind == .tlsHandshake)
        #expect(refused.detail == "tlsv13 alert certificate required")
        #expect(refused.requestSent)
        #expect(await server.waitForLog("peer did not return a certificate"), "\(server.log)")
    }

    @Test func overTLS12AMissingClientCertificateFailsTheHandshakeItself() async throws {
        let clientAuthority = try TLSIdentity(names: ["Survey Clients CA"], isAuthority: true)
        let server = try await OpenSSLServer.start(
            identity: try TLSIdentity.selfSigned(names: ["127.0.0.1"]), requiringClientCertificatesFrom: clientAuthority,
            options: ["-tls1_2"])
        defer { server.stop() }
        let outcome = try await send(port: server.port, tls: TLSConfiguration(verify: false))
        let refused = try #require(failureOf(outcome))
        #expect(refused.kind == .tlsHandshake)
        #expect(refused.detail == "sslv3 alert handshake failure")
        #expect(!refused.requestSent)
        #expect(outcome.connection?.tls == nil, "no handshake finished")
        #expect(await server.waitForLog("peer did not return a certificate"), "\(server.log)")
    }

    /// OpenSSL 3.0 signs a TLS 1.0 key exchange with SHA-1, which it allows at security level 0
    /// only: `-tls1` alone makes s_server fail every handshake ("no suitable signature
    /// algorithm"), so the server here also says `-cipher DEFAULT@SECLEVEL=0`.
    @Test func aServerOfferingOnlyTLS10IsAProtocolVersionFailure() async throws {
        let server = try await OpenSSLServer.start(
            identity: try TLSIdentity.selfSigned(names: ["127.0.0.1"]), options: ["-tls1", "-cipher", "DEFAULT@SECLEVEL=0"])
        defer { server.stop() }
        // It does speak TLS 1.0, to a client that offers it.
        let openssl = try #require(Installed.openssl)
        let legacy = try ChildProcess(
            openssl, ["s_client", "-connect", "127.0.0.1:\(server.port)", "-tls1", "-cipher", "DEFAULT@SECLEVEL=0"])
        defer { legacy.stop() }
        #expect(await legacy.waitFor { $0.allOutput.contains("Protocol  : TLSv1\n") ? true : nil } == true, "\(legacy.allOutput)")

        // survey-bot offers TLS 1.2 and 1.3 only; certificates aside, the versions do not meet.
        let outcome = try await send(port: server.port, tls: TLSConfiguration(verify: false))
        let refused = try #require(failureOf(outcome))
        #expect(refused.kind == .tlsHandshake)
        #expect(refused.detail == "tlsv1 alert protocol version")
        #expect(!refused.requestSent)
        #expect(await server.waitForLog("unsupported protocol"), "\(server.log)")
    }
}

@Suite(.enabled(if: Installed.nginx != nil, "nginx is not installed: no nginx to test against (.ci/run installs nginx-light)"))
struct HTTPSAgainstNginxTests {
    @Test(arguments: ["TLSv1.2", "TLSv1.3"])
    func nginxServesTheSurveyAPIOnKeptAliveAndResumedConnections(_ version: String) async throws {
        let authority = try TLSIdentity(names: ["Survey Test CA"], isAuthority: true)
        let server = try await NginxServer.start(
            identity: try TLSIdentity(names: ["localhost", "127.0.0.1"], issuer: authority), protocols: version)
        defer { server.stop() }
        let tls = TLSConfiguration(trustedCertificates: [authority.certificatePEM])
        try await withClient(port: server.port, tls: tls) { client in
            let questions = await client.send(request(client, "GET", "/questions"))
            let list = try #require(responseOf(questions), "\(questions)")
            #expect(list.status == 200)
            #expect(String(decoding: list.body, as: UTF8.self) == NginxServer.questions)
            #expect(questions.connection?.reused == false)
            #expect(questions.connection?.tls?.hasPrefix("\(version) ") == true, "\(questions)")
            #expect(questions.connection?.tlsResumed == false)

            let submit = await client.send(request(client, "POST", "/question/submit", body: #"{"id":1,"answer":"blue"}"#))
            #expect(responseOf(submit)?.status == 200, "\(submit)")
            #expect(submit.connection == .reused)

            // nginx closes the connection after /close: the next one resumes the session.
            let closing = await client.send(request(client, "GET", "/close"))
            #expect(responseOf(closing).map { String(decoding: $0.body, as: UTF8.self) } == "closed", "\(closing)")
            #expect(closing.connection == .reused)
            let resumed = await client.send(request(client, "GET", "/close"))
            #expect(responseOf(resumed)?.status == 200, "\(resumed)")
            #expect(resumed.connection?.reused == false)
            #expect(resumed.connection?.tlsResumed == true)
        }
        // nginx's own account: method, path, status, protocol, resumed ("r"), client certificate.
        let logged = await server.waitForRequests(4)
        #expect(
            logged == [
                "GET /questions 200 \(version) . NONE", "POST /question/submit 200 \(version) . NONE", "GET /close 200 \(version) . NONE",
                "GET /close 200 \(version) r NONE",
            ], "\(logged)")
    }

    /// nginx checks the client certificate after the handshake and answers in HTTP: a 400, not
    /// a TLS failure.
    @Test func nginxAnswers400WithoutTheClientCertificateItRequires() async throws {
        let authority = try TLSIdentity(names: ["Survey Test CA"], isAuthority: true)
        let clientAuthority = try TLSIdentity(names: ["Survey Clients CA"], isAuthority: true)
        let server = try await NginxServer.start(
            identity: try TLSIdentity(names: ["127.0.0.1"], issuer: authority), requiringClientCertificatesFrom: clientAuthority)
        defer { server.stop() }
        let trusting = TLSConfiguration(trustedCertificates: [authority.certificatePEM])
        func presenting(_ identity: TLSIdentity) -> TLSConfiguration {
            var tls = trusting
            tls.clientCertificateChainPEM = identity.certificatePEM
            tls.clientPrivateKeyPEM = identity.privateKeyPEM
            return tls
        }
        let respondent = presenting(try TLSIdentity(names: ["respondent.survey-bot"], issuer: clientAuthority))
        let stranger = presenting(try TLSIdentity.selfSigned(names: ["stranger.survey-bot"]))
        let cases: [(tls: TLSConfiguration, status: Int, page: String?)] = [
            (respondent, 200, nil), (trusting, 400, "No required SSL certificate was sent"), (stranger, 400, "The SSL certificate error"),
        ]
        for (tls, status, page) in cases {
            let outcome = try await send(port: server.port, tls: tls)
            let response = try #require(responseOf(outcome), "\(outcome)")
            #expect(response.status == status)
            if let page { #expect(String(decoding: response.body, as: UTF8.self).contains(page)) }
        }
        let logged = await server.waitForRequests(3)
        #expect(logged.count == 3)
        #expect(logged.first == "GET /questions 200 TLSv1.3 . SUCCESS")
        #expect(logged.dropFirst().first == "GET /questions 400 TLSv1.3 . NONE")
        #expect(logged.dropFirst(2).first?.hasPrefix("GET /questions 400 TLSv1.3 . FAILED:") == true, "\(logged)")
    }
}

/// Peers that never finish a handshake: no program needed, a listener in the test process.
@Suite struct HTTPSUnfinishedHandshakeTests {
    @Test func aPeerClosingAfterTheClientHelloIsAHandshakeFailure() async throws {
        let server = try UnfinishedHandshakeServer(.close)
        defer { server.stop() }
        let outcome = try await send(port: server.port, tls: TLSConfiguration(verify: false))
        let failure = try #require(failureOf(outcome))
        #expect(failure.kind == .tlsHandshake)
        #expect(failure.detail == "peer closed the connection during the handshake")
        #expect(!failure.requestSent)
        #expect(server.seen.clientHellos.map(isClientHello) == [true])
    }

    @Test func aPeerResettingAfterTheClientHelloIsAHandshakeFailure() async throws {
        let server = try UnfinishedHandshakeServer(.reset)
        defer { server.stop() }
        let failure = try #require(failureOf(try await send(port: server.port, tls: TLSConfiguration(verify: false))))
        #expect(failure.kind == .tlsHandshake)
        #expect(failure.detail == "Connection reset by peer during the handshake")
        #expect(!failure.requestSent)
        #expect(server.seen.clientHellos.map(isClientHello) == [true])
    }

    @Test func aHandshakeThatNeverFinishesTimesOutWhenTheTimeoutIsUp() async throws {
        let server = try UnfinishedHandshakeServer(.stayQuiet)
        defer { server.stop() }
        // Should the timeout never fire, the peer hangs up after 120 s, long after a busy
        // machine has let the attempt start: the attempt then ends as a handshake failure, which
        // the checks below refuse, instead of waiting for ever.
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { [weak server] in server?.stop() }
        let timeout = Duration.milliseconds(300)
        let outcome = try await send(port: server.port, tls: TLSConfiguration(verify: false), timeout: timeout)
        let failure = try #require(failureOf(outcome))
        #expect(failure.kind == .timeout)
        #expect(failure.detail == nil)
        #expect(!failure.requestSent)
        // Connected, then stuck in the handshake until the timeout was up: never less. The
        // service time is the loop thread's own measure (deadlines are checked every 5 ms). How
        // much later than the timeout the loop got to it depends on the machine's load, not on
        // the client, so no upper bound is claimed: the kind says the timeout ended it.
        #expect(outcome.connection?.connectTime != nil)
        #expect(outcome.connection?.tls == nil && outcome.connection?.tlsHandshakeTime == nil)
        // Under `http: auto` no protocol was agreed: the attempt counts as HTTP/1.1's, as one
        // whose handshake failed does — not as h2's, which ALPN never chose.
        #expect(outcome.connection?.wire == .http1)
        #expect(outcome.serviceTime >= timeout, "\(outcome.serviceTime)")
        #expect(server.seen.clientHellos.map(isClientHello) == [true])
        // The client closed its socket when it gave up.
        #expect(await eventually { server.seen.clientsGone == 1 })
    }
}

// MARK: - Helpers

/// A client of `127.0.0.1:port` over https with `tls` and `timeout`, on a loop of its own;
/// shut down after `body`, whether it returned or threw. The default timeout is far above any
/// loopback answer: s_server and nginx are processes a busy machine may keep waiting for a core.
private func withClient(
    port: Int, tls: TLSConfiguration, timeout: Duration = .seconds(30), _ body: (HTTPClient) async throws -> Void
) async throws {
    try await withClient(
        HTTPTarget(scheme: .https, host: "127.0.0.1", port: port), HTTPClientConfiguration(timeout: timeout, tls: tls), body)
}

/// One `GET /questions` from a new client: what came of it.
private func send(port: Int, tls: TLSConfiguration, timeout: Duration = .seconds(30)) async throws -> TransportResult {
    var outcome: TransportResult?
    try await withClient(port: port, tls: tls, timeout: timeout) { client in
        outcome = await client.send(request(client, "GET", "/questions"))
    }
    return try #require(outcome)
}

private func request(_ client: HTTPClient, _ method: String, _ path: String, body: String? = nil) -> HTTPRequest {
    HTTPRequest(
        // Tests pass fixed, valid paths and methods: they always frame.
        try! HTTPRequest.Template(method: method, path: path, target: client.target), body: body.map { Array($0.utf8) }, collectBody: true)
}

private func responseOf(_ outcome: TransportResult) -> TransportResponse? {
    if case .success(let response) = outcome.received { return response }
    return nil
}

private func failureOf(_ outcome: TransportResult) -> TransportFailure? {
    if case .failure(let failure) = outcome.received { return failure }
    return nil
}
