import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

#if canImport(Glibc)
    import Glibc
#endif

/// The shim against an independent peer: `openssl s_server` on 127.0.0.1, over a real TCP socket
/// stepped with poll(2) as the event loop would step it with epoll.
@Suite(.enabled(if: Installed.openssl != nil, "the openssl command is not installed: no independent TLS peer to test against"))
struct TLSOpenSSLServerTests {
    @Test func verifiesTalksAndResumesWithOpenSSLsServer() async throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost", "127.0.0.1"])
        let server = try await OpenSSLServer.start(identity: identity, options: ["-alpn", "http/1.1"])
        defer { server.stop() }
        let port = server.port
        let client = try TLSFixtures.client(trusting: [identity])

        // Each exchange blocks in poll(2) for as long as s_server takes: on a thread of its own,
        // not on one of the cooperative pool's, which every other test shares.
        let first = try await Self.exchangeOnOwnThread(client, port: port, host: "localhost", resuming: nil)
        #expect(first.version == "TLSv1.3")
        #expect(first.alpn == "http/1.1")
        #expect(!first.resumed)
        #expect(first.response.hasPrefix("HTTP/1.0 200 ok\r\n"))
        #expect(first.response.contains("New, TLSv1.3"), "s_server's own account of the connection")
        let saved = try #require(first.saved)

        let second = try await Self.exchangeOnOwnThread(client, port: port, host: "127.0.0.1", resuming: saved)
        #expect(second.resumed)
        #expect(second.response.contains("Reused, TLSv1.3"), "s_server's own account of the connection")

        let stranger = try TLSFixtures.client(trusting: [try TLSIdentity.selfSigned(names: ["localhost"])])
        await #expect(throws: TLSFailure(.certificate, reason: "self-signed certificate")) {
            try await Self.exchangeOnOwnThread(stranger, port: port, host: "localhost", resuming: nil)
        }
    }

    /// `exchange` on a thread of its own.
    private static func exchangeOnOwnThread(_ context: TLSClientContext, port: Int, host: String, resuming saved: TLSResumption?)
        async throws -> Exchange
    {
        let handed = Handed(saved)
        return try await onOwnThread { Result { try exchange(context, port: port, host: host, resuming: handed.value) } }.get()
    }

    /// A session handed to the exchange's thread: used there alone, once this test's task has
    /// passed it on.
    private struct Handed: @unchecked Sendable {
        let value: TLSResumption?
        init(_ value: TLSResumption?) { self.value = value }
    }

    /// Made on the exchange's thread and read by the test's task once that thread is done with
    /// it, the saved session included.
    private struct Exchange: @unchecked Sendable {
        var version: String
        var alpn: String?
        var resumed: Bool
        var response: String
        var saved: TLSResumption?
    }

    /// Connects, shakes hands, sends a GET, reads the answer until the server closes: 60 s at
    /// most, a bound for a hung test only (s_server is another process, which a busy machine
    /// may keep waiting for a core).
    private static func exchange(_ context: TLSClientContext, port: Int, host: String, resuming saved: TLSResumption?) throws
        -> Exchange
    {
        let deadline = ContinuousClock.now + .seconds(60)
        let address = try #require(try SocketAddress.resolve(host: "127.0.0.1", port: port).get().first)
        let fd = Sockets.makeTCP(family: address.family)
        try #require(fd >= 0)
        defer { close(fd) }
        let connected = address.withSockAddr { connect(fd, $0, $1) }
        try #require(connected == 0 || errno == EINPROGRESS)
        try #require(wait(fd, for: Int16(POLLOUT), until: deadline) && Sockets.pendingError(fd) == 0)

        let tls = try TLSConnection(client: context, fd: fd, host: host, resuming: saved)
        var step = tls.handshake()
        while step == .wantRead || step == .wantWrite {
            try #require(wait(fd, for: Int16(step == .wantRead ? POLLIN : POLLOUT), until: deadline), "handshake timed out")
            step = tls.handshake()
        }
        if case .failed(let failure) = step { throw failure }

        let request = Array("GET / HTTP/1.0\r\n\r\n".utf8)
        var written = 0
        while written < request.count {
            switch request.withUnsafeBytes({ tls.write(UnsafeRawBufferPointer(rebasing: $0[written...])) }) {
            case .wrote(let count): written += count
            case .wantRead: try #require(wait(fd, for: Int16(POLLIN), until: deadline))
            case .wantWrite: try #require(wait(fd, for: Int16(POLLOUT), until: deadline))
            case .failed(let failure): throw failure
            }
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        reading: while true {
            switch buffer.withUnsafeMutableBytes({ tls.read(into: $0) }) {
            case .bytes(let count): response += buffer[..<count]
            case .wantRead: try #require(wait(fd, for: Int16(POLLIN), until: deadline), "response timed out")
            case .wantWrite: try #require(wait(fd, for: Int16(POLLOUT), until: deadline))
            case .closed: break reading
            case .failed(let failure): throw failure
            }
        }
        let exchange = Exchange(
            version: tls.protocolVersion, alpn: tls.applicationProtocol, resumed: tls.resumed,
            response: String(decoding: response, as: UTF8.self), saved: tls.resumption())
        tls.shutdown()
        return exchange
    }

    /// Whether `fd` is ready for `events` before `deadline`.
    private static func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while ContinuousClock.now < deadline {
            var entry = pollfd(fd: fd, events: events, revents: 0)
            if poll(&entry, 1, 100) > 0 { return true }
        }
        return false
    }
}
