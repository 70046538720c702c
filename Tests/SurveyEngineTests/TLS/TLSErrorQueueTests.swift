import CTLS
import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// A read or a write empties the thread's OpenSSL error queue only when another call may have
/// filled it (`queue_known_empty` in the shim): an error another call left there must not be
/// taken for the read's own.
@Suite struct TLSErrorQueueTests {
    @Test func anErrorAnotherCallLeftIsNotTakenForAReadsOwn() throws {
        _ = try TLSLibrary.shared.get()
        let context = try #require(ctls_context_new(0))
        defer { ctls_context_free(context) }
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let pair = try TLSPair(client: try TLSFixtures.client(trusting: [identity]), server: try TLSServerContext(identity: identity))
        #expect(pair.handshake() == (.done, .done))
        let request = Array("GET / HTTP/1.1\r\n\r\n".utf8)
        #expect(try pair.transfer(request, from: pair.client, to: pair.server).get() == request)
        var buffer = [UInt8](repeating: 0, count: 64)
        // Nothing more to read: the server's read waits, and leaves the queue empty.
        #expect(buffer.withUnsafeMutableBytes { pair.server.read(into: $0) } == .wantRead)
        // A broken certificate, on this thread, leaves its error on the queue…
        let broken = Array("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n".utf8)
        let trusted = broken.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { ctls_context_trust_pem(context, $0.baseAddress, $0.count) }
        }
        #expect(trusted == -1)
        // …which the next read empties first: it still only waits, and what comes next arrives.
        #expect(buffer.withUnsafeMutableBytes { pair.server.read(into: $0) } == .wantRead)
        #expect(try pair.transfer(request, from: pair.client, to: pair.server).get() == request)
    }
}
