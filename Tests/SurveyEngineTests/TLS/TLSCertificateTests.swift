import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

#if canImport(Glibc)
    import Glibc
#endif

/// Verification of the server's certificate by the client, of the client's by the server, and
/// how each failure is classified.
@Suite struct TLSCertificateTests {
    private static let day = Duration.seconds(86_400)

    /// The client's handshake against a server with `identity`, the client trusting `trusted`.
    private func clientStep(
        against identity: TLSIdentity, trusting trusted: [TLSIdentity], host: String = "localhost",
        _ tweak: (inout TLSConfiguration) -> Void = { _ in }
    ) throws -> TLSStep {
        let pair = try TLSPair(
            client: try TLSFixtures.client(trusting: trusted, tweak), server: try TLSServerContext(identity: identity), host: host)
        return pair.handshake().client
    }

    @Test func selfSignedCertificateTrustedInMemoryVerifies() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        #expect(try clientStep(against: identity, trusting: [identity]) == .done)
    }

    @Test func untrustedSelfSignedCertificateFailsAsCertificate() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let other = try TLSIdentity.selfSigned(names: ["localhost"])
        let pair = try TLSPair(client: try TLSFixtures.client(trusting: [other]), server: try TLSServerContext(identity: identity))
        let (client, server) = pair.handshake()
        #expect(client == .failed(TLSFailure(.certificate, reason: "self-signed certificate")))
        // The server only hears the client's alert: a protocol failure on its side.
        #expect(server.failure?.kind == .handshake)
        #expect(server.failure?.reason.contains("alert") == true)
    }

    @Test func expiredCertificateFailsAsCertificate() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"], notBefore: .zero - Self.day * 2, notAfter: .zero - Self.day)
        #expect(
            try clientStep(against: identity, trusting: [identity]) == .failed(TLSFailure(.certificate, reason: "certificate has expired")))
    }

    @Test func notYetValidCertificateFailsAsCertificate() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"], notBefore: Self.day, notAfter: Self.day * 2)
        #expect(
            try clientStep(against: identity, trusting: [identity])
                == .failed(TLSFailure(.certificate, reason: "certificate is not yet valid")))
    }

    @Test func wrongHostNameFailsAsCertificate() throws {
        let identity = try TLSIdentity.selfSigned(names: ["other.example"])
        #expect(try clientStep(against: identity, trusting: [identity]) == .failed(TLSFailure(.certificate, reason: "hostname mismatch")))
    }

    @Test func serverNameOverrideIsWhatTheCertificateMustName() throws {
        let identity = try TLSIdentity.selfSigned(names: ["other.example"])
        #expect(try clientStep(against: identity, trusting: [identity], host: "127.0.0.1") { $0.serverName = "other.example" } == .done)
        #expect(
            try clientStep(against: identity, trusting: [identity], host: "other.example") { $0.serverName = "third.example" }
                == .failed(TLSFailure(.certificate, reason: "hostname mismatch")))
    }

    @Test func ipLiteralHostVerifiesAgainstTheCertificatesIPAddresses() throws {
        let byAddress = try TLSIdentity.selfSigned(names: ["127.0.0.1"])
        #expect(try clientStep(against: byAddress, trusting: [byAddress], host: "127.0.0.1") == .done)
        let ipMismatch = TLSStep.failed(TLSFailure(.certificate, reason: "IP address mismatch"))
        #expect(try clientStep(against: byAddress, trusting: [byAddress], host: "::1") == ipMismatch)
        // A DNS name that happens to be the address's usual name does not stand for the address.
        let byName = try TLSIdentity.selfSigned(names: ["localhost"])
        #expect(try clientStep(against: byName, trusting: [byName], host: "127.0.0.1") == ipMismatch)
    }

    @Test func insecureModeAcceptsAnyCertificate() throws {
        let expiredElsewhere = try TLSIdentity.selfSigned(
            names: ["other.example"], notBefore: .zero - Self.day * 2, notAfter: .zero - Self.day)
        #expect(try clientStep(against: expiredElsewhere, trusting: []) { $0.verify = false } == .done)
        #expect(try clientStep(against: expiredElsewhere, trusting: []).failure?.kind == .certificate)
    }

    @Test func certificateOfAnUnknownAuthorityFailsAndTrustingTheCAPassesIt() throws {
        let authority = try TLSIdentity(names: ["Survey Test CA"], isAuthority: true)
        let leaf = try TLSIdentity(names: ["localhost"], issuer: authority)
        let stranger = try TLSIdentity.selfSigned(names: ["localhost"])
        #expect(
            try clientStep(against: leaf, trusting: [stranger])
                == .failed(TLSFailure(.certificate, reason: "unable to get local issuer certificate")))
        let client = try TLSClientContext(TLSConfiguration(trustedCertificates: [authority.certificatePEM]))
        let pair = try TLSPair(client: client, server: try TLSServerContext(identity: leaf))
        #expect(pair.handshake() == (.done, .done))
    }

    @Test func minimumVersion13AgainstAServerCappedAt12FailsAsHandshake() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let client = try TLSFixtures.client(trusting: [identity]) { $0.minimumVersion = .tls13 }
        let pair = try TLSPair(client: client, server: try TLSServerContext(identity: identity, options: .init(maximumVersion: .tls12)))
        let (clientStep, server) = pair.handshake()
        #expect(clientStep == .failed(TLSFailure(.handshake, reason: "tlsv1 alert protocol version")))
        #expect(server == .failed(TLSFailure(.handshake, reason: "unsupported protocol")))
    }

    @Test func peerClosingMidHandshakeFailsAsHandshake() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let client = try TLSFixtures.client(trusting: [identity])
        let server = try TLSServerContext(identity: identity)
        // The peer takes the ClientHello and goes away without a word: the client reads the end.
        let silent = try TLSPair(client: client, server: server)
        #expect(silent.client.handshake() == .wantRead)
        var hello = [UInt8](repeating: 0, count: 4096)
        #expect(recv(silent.serverFD, &hello, hello.count, 0) > 0)
        silent.closeServer()
        #expect(silent.client.handshake() == .failed(TLSFailure(.handshake, reason: "peer closed the connection during the handshake")))
        // The peer answers, then goes away: the client learns it writing its Finished (EPIPE).
        let answered = try TLSPair(client: client, server: server)
        #expect(answered.client.handshake() == .wantRead)
        #expect(answered.server.handshake() == .wantRead)
        answered.closeServer()
        let failure = try #require(answered.client.handshake().failure)
        #expect(failure.kind == .handshake)
        #expect(failure.reason == "peer closed the connection during the handshake")
    }

    @Test(arguments: [TLSConfiguration.Version.tls12, .tls13])
    func serverRequiringAClientCertificateAcceptsOneAndRefusesNone(version: TLSConfiguration.Version) throws {
        let serverIdentity = try TLSIdentity.selfSigned(names: ["localhost"])
        let clientIdentity = try TLSIdentity.selfSigned(names: ["survey-bot client"])
        let server = try TLSServerContext(
            identity: serverIdentity, options: .init(maximumVersion: version, trustedClientCertificates: [clientIdentity.certificatePEM]))
        let withCertificate = try TLSFixtures.client(trusting: [serverIdentity]) {
            $0.clientCertificateChainPEM = clientIdentity.certificatePEM
            $0.clientPrivateKeyPEM = clientIdentity.privateKeyPEM
        }
        let accepted = try TLSPair(client: withCertificate, server: server)
        #expect(accepted.handshake() == (.done, .done))
        #expect(accepted.server.peerPresentedCertificate)

        let refused = try TLSPair(client: try TLSFixtures.client(trusting: [serverIdentity]), server: server)
        let (client, serverStep) = refused.handshake()
        #expect(serverStep == .failed(TLSFailure(.handshake, reason: "peer did not return a certificate")))
        // TLS 1.3 finishes the client's handshake before the server has judged: the alert
        // arrives with the first read.
        let clientFailure = client.failure ?? { if case .failed(let failure) = refused.read(refused.client) { failure } else { nil } }()
        let expected = version == .tls13 ? "tlsv13 alert certificate required" : "sslv3 alert handshake failure"
        #expect(clientFailure == TLSFailure(.handshake, reason: expected))
    }

    @Test func untrustedClientCertificateFailsAsCertificateOnTheServer() throws {
        let serverIdentity = try TLSIdentity.selfSigned(names: ["localhost"])
        let trusted = try TLSIdentity.selfSigned(names: ["trusted client"])
        let stranger = try TLSIdentity.selfSigned(names: ["stranger"])
        let server = try TLSServerContext(identity: serverIdentity, options: .init(trustedClientCertificates: [trusted.certificatePEM]))
        let client = try TLSFixtures.client(trusting: [serverIdentity]) {
            $0.clientCertificateChainPEM = stranger.certificatePEM
            $0.clientPrivateKeyPEM = stranger.privateKeyPEM
        }
        let pair = try TLSPair(client: client, server: server)
        #expect(pair.handshake().server == .failed(TLSFailure(.certificate, reason: "self-signed certificate")))
    }
}
