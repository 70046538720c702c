import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// The HTTP/2 client on the event loops (`HTTPClient` with `http: 2`, `HTTP2Connection`) against
/// a server scripted frame by frame: multiplexing, GOAWAY, reset streams, and the hostile
/// servers that must end as data — no crash, no unbounded memory, no hang past the timeout.
@Suite struct HTTP2ConnectionTests {
    /// A client for `server` speaking h2c, run by `body`, then shut down.
    func withClient(
        _ server: ScriptedHTTP2Server, sharing: ConnectionSharing = .shared, timeout: Duration = .seconds(30), maxBody: Int = 1 << 20,
        _ body: (HTTPClient) async throws -> Void
    ) async throws {
        var configuration = HTTPClientConfiguration(timeout: timeout, maxBodyBytes: maxBody)
        configuration.version = .http2
        configuration.sharing = sharing
        try await SurveyEngineTests.withClient(server.target, configuration, body)
    }

    func request(_ client: HTTPClient, _ method: String = "GET", _ path: String = "/questions", body: String? = nil) -> HTTPRequest {
        HTTPRequest(
            try! HTTPRequest.Template(method: method, path: path, target: client.target), body: body.map { Array($0.utf8) },
            collectBody: true)
    }

    /// Sends `count` requests at once; their results in the order sent.
    func sendAll(_ client: HTTPClient, _ count: Int, method: String = "GET", body: String? = nil) async -> [TransportResult] {
        await withTaskGroup(of: (Int, TransportResult).self) { group in
            for index in 0..<count {
                let request = request(client, method, "/questions?n=\(index)", body: body)
                group.addTask { (index, await client.send(request)) }
            }
            var results: [(Int, TransportResult)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    func body(_ result: TransportResult) -> String? {
        guard case .success(let response) = result.received else { return nil }
        return String(decoding: response.body, as: UTF8.self)
    }

    func failure(_ result: TransportResult) -> TransportFailure? {
        guard case .failure(let failure) = result.received else { return nil }
        return failure
    }

    @Test func sharedRequestsGoAsStreamsOfOneConnection() async throws {
        let server = try ScriptedHTTP2Server()
        let serving = server.serve { peer, _ in
            guard peer.open([(.maxConcurrentStreams, 10)]) else { return }
            let (streams, frames) = peer.requests(3)
            // The request's fields as HTTP/2 has them: lower-case names, `Host` as :authority.
            let block =
                frames.compactMap { frame -> [UInt8]? in
                    if case .headers(_, let fragment, _, _) = frame { return fragment } else { return nil }
                }.first ?? []
            var decoder = HPACKDecoder()
            let fields = (try? decoder.decode(block)) ?? []
            let names = fields.map { String(decoding: $0.name, as: UTF8.self) }
            let authority = fields.first { $0.name == Array(":authority".utf8) }.map { String(decoding: $0.value, as: UTF8.self) }
            for stream in streams {
                peer.respond(stream, body: "stream \(stream) \(names.prefix(5).joined(separator: ",")) \(authority ?? "none")")
            }
            _ = peer.drain()
        }
        try await withClient(server) { client in
            let results = await sendAll(client, 3)
            let bodies = results.compactMap(body)
            #expect(bodies.count == 3, "\(results)")
            #expect(Set(bodies.map { $0.split(separator: " ")[1] }) == ["1", "3", "5"])
            #expect(
                bodies.allSatisfy { $0.hasSuffix(" :method,:scheme,:authority,:path,user-agent 127.0.0.1:\(server.port)") }, "\(bodies)")
            #expect(results.filter { $0.connection?.reused == false }.count == 1, "one attempt opened the connection")
            #expect(results.allSatisfy { $0.connection?.wire == .h2c })
        }
        await serving.value
        #expect(server.connectionsAccepted == 1)
    }

    @Test func requestsPerRequestEachHaveAConnection() async throws {
        let server = try ScriptedHTTP2Server()
        let serving = server.serve(connections: 3) { peer, _ in
            guard peer.open() else { return }
            let (streams, _) = peer.requests(1)
            // No answer until all three are in flight: an answered connection is kept alive for
            // the next request, which a busy machine may start only then.
            let waitedFor = ContinuousClock.now
            while server.connectionsAccepted < 3, ContinuousClock.now - waitedFor < .seconds(60) { usleep(1_000) }
            for stream in streams { peer.respond(stream, body: "ok") }
            _ = peer.drain()
        }
        try await withClient(server, sharing: .perRequest) { client in
            let results = await sendAll(client, 3)
            #expect(results.compactMap(body) == ["ok", "ok", "ok"], "\(results)")
            #expect(results.allSatisfy { $0.connection?.reused == false })
            await client.shutdown()
        }
        await serving.value
        #expect(server.connectionsAccepted == 3)
    }

    /// A respondent's own connection the server closes to new streams (its limit down to 0, a
    /// server shedding load) is replaced, and closed: no connection stays open out of reach.
    @Test func aRespondentsConnectionThatTakesNoMoreStreamsIsReplacedAndClosed() async throws {
        let server = try ScriptedHTTP2Server()
        let serving = server.serve(connections: 2) { peer, index in
            guard peer.open() else { return }
            let (streams, _) = peer.requests(1)
            // The limit goes down before the answer: the client knows it when its attempt ends.
            if index == 0 { peer.send(.settings([(.maxConcurrentStreams, 0)], ack: false)) }
            peer.respond(streams[0], body: "\(index)")
            _ = peer.drain()
        }
        try await withClient(server, sharing: .perRespondent) { client in
            let device = ConnectionAffinity(cutoff: RunCutoff())
            var own = request(client)
            own.scope = .respondent(device)
            #expect(body(await client.send(own)) == "0")
            #expect(body(await client.send(own)) == "1")
            #expect(await client.openConnectionCount() == 1)
            client.release(device)
            #expect(await client.openConnectionCount() == 0)
        }
        await serving.value
        #expect(server.connectionsAccepted == 2)
    }

    @Test func goAwaySendsUnprocessedStreamsAgainOnANewConnection() async throws {
        let server = try ScriptedHTTP2Server()
        let serving = server.serve(connections: 2) { peer, index in
            guard peer.open() else { return }
            if index == 0 {
                let (streams, _) = peer.requests(3)
                // The first answered; the server goes away having processed only it.
                peer.respond(streams[0], body: "first")
                peer.send(.goAway(lastStream: streams[0], error: .noError, debug: Array("shutting down".utf8)))
                _ = peer.drain()
            } else {
                let (streams, _) = peer.requests(2)
                for stream in streams { peer.respond(stream, body: "again") }
                _ = peer.drain()
            }
        }
        try await withClient(server) { client in
            let results = await sendAll(client, 3)
            #expect(results.compactMap(body).sorted() == ["again", "again", "first"], "\(results)")
            #expect(results.filter { $0.connection?.reconnected == true }.count == 2)
        }
        await serving.value
        #expect(server.connectionsAccepted == 2)
    }

    @Test func resetStreamsFailWithTheirCode() async throws {
        let server = try ScriptedHTTP2Server()
        let serving = server.serve { peer, _ in
            guard peer.open() else { return }
            let (streams, _) = peer.requests(2)
            peer.send(.resetStream(stream: streams[0], error: .refusedStream), .resetStream(stream: streams[1], error: .internalError))
            _ = peer.drain()
        }
        try await withClient(server) { client in
            let results = await sendAll(client, 2)
            let failures = results.compactMap(failure)
            #expect(failures.map(\.kind) == [.streamReset, .streamReset], "\(results)")
            let refused = try #require(failures.first { $0.detail?.contains("REFUSED_STREAM") == true })
            #expect(!refused.requestSent, "a refused stream was not processed: safe to send again")
            let broken = try #require(failures.first { $0.detail?.contains("INTERNAL_ERROR") == true })
            #expect(broken.requestSent)
        }
        await serving.value
    }

    @Test func aBodyPastTheLimitCancelsItsStreamOnly() async throws {
        let server = try ScriptedHTTP2Server()
        let cancelled = ResultBox()
        let serving = server.serve { peer, _ in
            guard peer.open() else { return }
            let (streams, _) = peer.requests(2)
            peer.respond(streams[0], body: String(repeating: "x", count: 5_000))
            peer.respond(streams[1], body: "small")
            cancelled.set(peer.drain().contains(.resetStream(stream: streams[0], error: .cancel)))
        }
        try await withClient(server, maxBody: 1_000) { client in
            let results = await sendAll(client, 2)
            #expect(results.compactMap(failure).map(\.kind) == [.responseTooLarge], "\(results)")
            #expect(results.compactMap(body) == ["small"])
        }
        await serving.value
        #expect(cancelled.value == true, "the client cancelled the stream it would not read")
    }

    @Test func aWindowThatNeverOpensTimesOut() async throws {
        let server = try ScriptedHTTP2Server()
        let sent = ResultBox()
        let serving = server.serve { peer, _ in
            // RFC 9113's windows of 65,535 bytes, never opened by a WINDOW_UPDATE.
            guard peer.open() else { return }
            var bytes = 0
            var ended = false
            for frame in peer.drain() {
                if case .data(_, let data, let end) = frame {
                    bytes += data.count
                    ended = ended || end
                }
            }
            sent.set(bytes == 65_535 && !ended)
        }
        try await withClient(server, timeout: .milliseconds(300)) { client in
            let started = ContinuousClock.now
            let result = await client.send(request(client, "POST", "/question/submit", body: String(repeating: "a", count: 100_000)))
            #expect(failure(result)?.kind == .timeout, "\(result)")
            // Ended by the timeout (a sweep every 5 ms), not a hang: generous for a loaded machine.
            #expect(ContinuousClock.now - started < .seconds(60))
        }
        await serving.value
        #expect(sent.value == true, "the client sent what the window allowed, and not a byte more")
    }

    /// What a hostile or broken server sends after its SETTINGS, and what this end must say.
    struct Breach: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: @Sendable (_ stream: UInt32, _ peer: ScriptedHTTP2Server.Peer) -> [UInt8]
        /// The GOAWAY's code; nil where the server sends faster than it reads, so that the
        /// client's goodbye, written after its unread PING acknowledgments, may never reach it.
        var goAway: HTTP2Error?
        var testDescription: String { name }
    }

    static let breaches: [Breach] = [
        Breach(
            name: "a CONTINUATION flood",
            bytes: { stream, peer in
                var bytes: [UInt8] = []
                HTTP2Frame.headers(stream: stream, fragment: peer.headerBlock(), endStream: false, endHeaders: false).write(into: &bytes)
                for _ in 0..<40 {
                    HTTP2Frame.continuation(stream: stream, fragment: [UInt8](repeating: 0x40, count: 16_000), endHeaders: false)
                        .write(into: &bytes)
                }
                return bytes
            }, goAway: .enhanceYourCalm),
        Breach(
            name: "a PING flood",
            bytes: { _, _ in
                var bytes: [UInt8] = []
                for index in 0..<12_000 {
                    HTTP2Frame.ping([UInt8](repeating: UInt8(index & 0xFF), count: 8), ack: false).write(into: &bytes)
                }
                return bytes
            }, goAway: nil),
        Breach(
            name: "an HPACK bomb: one header list past the limit",
            bytes: { stream, _ in
                var block: [UInt8] = []
                var encoder = HPACKEncoder()
                encoder.encode(
                    [HPACK.Field(":status", "200")] + (0..<20).map { HPACK.Field("x-bomb-\($0)", String(repeating: "b", count: 4_000)) },
                    into: &block)
                // In frames of the default size, so that only the list's size is at fault.
                var bytes: [UInt8] = []
                var offset = 0
                while offset < block.count {
                    let end = min(block.count, offset + 16_000)
                    let fragment = Array(block[offset..<end])
                    if offset == 0 {
                        HTTP2Frame.headers(stream: stream, fragment: fragment, endStream: true, endHeaders: false).write(into: &bytes)
                    } else {
                        HTTP2Frame.continuation(stream: stream, fragment: fragment, endHeaders: end == block.count).write(into: &bytes)
                    }
                    offset = end
                }
                return bytes
            }, goAway: .compressionError),
        Breach(
            name: "DATA on stream 0",
            bytes: { _, _ in
                var bytes: [UInt8] = []
                HTTP2Frame.data(stream: 0, data: [1, 2, 3], endStream: false).write(into: &bytes)
                return bytes
            }, goAway: .protocolError),
        Breach(
            name: "a window pushed past 2^31-1",
            bytes: { _, _ in
                var bytes: [UInt8] = []
                HTTP2Frame.windowUpdate(stream: 0, increment: 0x7FFF_FFFF).write(into: &bytes)
                return bytes
            }, goAway: .flowControlError),
    ]

    @Test(arguments: breaches)
    func aServerBreakingTheProtocolEndsAsProtocolError(_ breach: Breach) async throws {
        let server = try ScriptedHTTP2Server()
        let goAway = ResultBox()
        let serving = server.serve { peer, _ in
            guard peer.open() else { return }
            let (streams, _) = peer.requests(1)
            peer.sendRaw(breach.bytes(streams[0], peer))
            for frame in peer.drain() {
                if case .goAway(_, let error, _) = frame { goAway.set(error == breach.goAway) }
            }
        }
        try await withClient(server, timeout: .seconds(20)) { client in
            let result = await client.send(request(client))
            let failed = try #require(failure(result), "\(result)")
            #expect(failed.kind == .protocolError)
            #expect(failed.detail?.isEmpty == false)
        }
        await serving.value
        if breach.goAway != nil { #expect(goAway.value == true, "the client said why in its GOAWAY") }
    }

    @Test func h2cToAnHTTP1ServerSaysSo() async throws {
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { _ in
            .respond(EncodedResponse(HTTPServerResponse(status: 200, body: Array("ok".utf8))))
        }
        var configuration = HTTPClientConfiguration(timeout: .seconds(20))
        configuration.version = .http2
        let client = try HTTPClient(
            target: HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port), group: group, configuration: configuration)
        let result = await client.send(request(client))
        await client.shutdown()
        await server.shutdown()
        group.shutdown()
        let failed = try #require(failure(result), "\(result)")
        #expect(failed.kind == .protocolError)
        #expect(failed.detail?.contains("HTTP/1") == true, "\(failed)")
    }
}

/// A value a server's thread sets and a test reads after it.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Bool?

    func set(_ value: Bool) {
        lock.lock()
        if stored != true { stored = value }
        lock.unlock()
    }

    var value: Bool? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
