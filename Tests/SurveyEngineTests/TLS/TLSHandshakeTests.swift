import Testing

@testable import SurveyEngine
@testable import SurveyWire

#if canImport(Glibc)
    import Glibc
#endif

/// Client and server sessions of the shim over a socketpair: handshakes, data, closes, resumption.
@Suite struct TLSHandshakeTests {
    private static let versions: [(TLSConfiguration.Version, String)] = [(.tls12, "TLSv1.2"), (.tls13, "TLSv1.3")]

    @Test(arguments: versions)
    func handshakeCompletesAndReportsVersionCipherAndALPN(version: TLSConfiguration.Version, name: String) throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let server = try TLSServerContext(identity: identity, options: .init(maximumVersion: version))
        let pair = try TLSPair(client: try TLSFixtures.client(trusting: [identity]), server: server)
        let (client, serverStep) = pair.handshake()
        #expect(client == .done)
        #expect(serverStep == .done)
        #expect(pair.client.protocolVersion == name)
        #expect(pair.server.protocolVersion == name)
        let cipher = try #require(pair.client.cipher)
        #expect(cipher == pair.server.cipher)
        #expect(version == .tls13 ? cipher.hasPrefix("TLS_") : cipher.contains("ECDSA"))
        #expect(pair.client.applicationProtocol == "http/1.1")
        #expect(pair.server.applicationProtocol == "http/1.1")
        #expect(!pair.client.resumed)
    }

    @Test func applicationDataFlowsBothWaysAfterTheHandshake() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let pair = try TLSPair(client: try TLSFixtures.client(trusting: [identity]), server: try TLSServerContext(identity: identity))
        #expect(pair.handshake() == (.done, .done))
        // More than a socket buffer and many records: partial writes and wants on both sides.
        let request = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(try pair.transfer(request, from: pair.client, to: pair.server).get() == request)
        let response = Array("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n".utf8)
        #expect(try pair.transfer(response, from: pair.server, to: pair.client).get() == response)
    }

    @Test func readThatOnlyConsumesSessionTicketsWantsRead() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let pair = try TLSPair(client: try TLSFixtures.client(trusting: [identity]), server: try TLSServerContext(identity: identity))
        #expect(pair.handshake() == (.done, .done))
        #expect(pair.client.protocolVersion == "TLSv1.3")
        #expect(pair.client.resumption() == nil, "no ticket has been read yet")
        #expect(pair.read(pair.client) == .wantRead)
        #expect(pair.client.resumption() != nil, "the read took the server's tickets")
    }

    @Test func closeNotifyReadsAsClosed() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let pair = try TLSPair(client: try TLSFixtures.client(trusting: [identity]), server: try TLSServerContext(identity: identity))
        #expect(pair.handshake() == (.done, .done))
        pair.server.shutdown()
        #expect(pair.read(pair.client) == .closed)
    }

    @Test func endOfStreamWithoutCloseNotifyReadsAsClosed() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let pair = try TLSPair(client: try TLSFixtures.client(trusting: [identity]), server: try TLSServerContext(identity: identity))
        #expect(pair.handshake() == (.done, .done))
        pair.closeServer()
        var outcome = pair.read(pair.client)
        if outcome == .wantRead { outcome = pair.read(pair.client) }
        #expect(outcome == .closed)
    }

    @Test func writeToAClosedPeerFailsAsConnectionWithoutSIGPIPE() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let pair = try TLSPair(client: try TLSFixtures.client(trusting: [identity]), server: try TLSServerContext(identity: identity))
        #expect(pair.handshake() == (.done, .done))
        pair.closeServer()
        let bytes = [UInt8](repeating: 7, count: 1024)
        var outcome = TLSWrite.wrote(0)
        for _ in 0..<10 {
            outcome = bytes.withUnsafeBytes { pair.client.write($0) }
            if case .failed = outcome { break }
        }
        // Reaching this line at all means no SIGPIPE: the test process would have died of it.
        #expect(outcome == .failed(TLSFailure(.connection, reason: String(cString: strerror(EPIPE)), systemError: EPIPE)))
    }

    @Test(arguments: versions)
    func secondConnectionResumesTheSession(version: TLSConfiguration.Version, name: String) throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let server = try TLSServerContext(identity: identity, options: .init(maximumVersion: version))
        let client = try TLSFixtures.client(trusting: [identity])
        let first = try TLSPair(client: client, server: server)
        #expect(first.handshake() == (.done, .done))
        let response = Array("hello".utf8)
        #expect(try first.transfer(response, from: first.server, to: first.client).get() == response)
        #expect(!first.client.resumed)
        let saved = try #require(first.client.resumption())
        let second = try TLSPair(client: client, server: server, resuming: saved)
        #expect(second.handshake() == (.done, .done))
        #expect(second.client.resumed)
        #expect(second.server.resumed)
        #expect(second.client.protocolVersion == name)
        // Each connection saves the session it ends with for the next one (after a read: the
        // TLS 1.3 tickets come after the handshake).
        #expect(try second.transfer(response, from: second.server, to: second.client).get() == response)
        let next = try #require(second.client.resumption())
        let third = try TLSPair(client: client, server: server, resuming: next)
        #expect(third.handshake() == (.done, .done))
        #expect(third.client.resumed)
    }

    @Test func aTLS13SessionResumesOnlyOnce() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let server = try TLSServerContext(identity: identity)
        let client = try TLSFixtures.client(trusting: [identity])
        let first = try TLSPair(client: client, server: server)
        #expect(first.handshake() == (.done, .done))
        #expect(first.read(first.client) == .wantRead)
        let saved = try #require(first.client.resumption())
        let second = try TLSPair(client: client, server: server, resuming: saved)
        #expect(second.handshake() == (.done, .done))
        #expect(second.client.resumed)
        let third = try TLSPair(client: client, server: server, resuming: saved)
        #expect(third.handshake() == (.done, .done))
        #expect(!third.client.resumed, "a TLS 1.3 ticket is for one use: save again after every connection")
    }

    @Test func selfSignedServerContextIsTrustedThroughItsExportedCertificate() throws {
        let (server, pem) = try TLSServerContext.selfSigned()
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        let client = try TLSClientContext(TLSConfiguration(trustedCertificates: [pem]))
        for host in ["localhost", "127.0.0.1", "::1", "[::1]"] {
            let pair = try TLSPair(client: client, server: server, host: host)
            #expect(pair.handshake() == (.done, .done), "host \(host)")
        }
    }
}
