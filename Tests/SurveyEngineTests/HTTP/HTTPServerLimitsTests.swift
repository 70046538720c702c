import Foundation
import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

#if canImport(Glibc)
    import Glibc
#endif

/// The server's own defences, each against a client that would otherwise take the server's
/// memory or its descriptors: back-pressure on unread responses, a cap on connections, and
/// timeouts for idle connections and slow requests. Loopback only, each bounded in time.
@Suite struct HTTPServerLimitsTests {
    /// Requests the handler was called for.
    final class Handled: Sendable {
        let count = Atomic<Int>(0)
    }

    /// A server on loopback with `limits`, answering every request with `body`; counts requests.
    private func withServer(
        limits: HTTPServer.Limits, body: Int = 4096, _ test: (HTTPServer, Handled) async throws -> Void
    ) async throws {
        let group = EventLoopGroup(threads: 1)
        let handled = Handled()
        let response = EncodedResponse(HTTPServerResponse(status: 200, body: [UInt8](repeating: 0x61, count: body)))
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, limits: limits) { _ in
            handled.count.add(1, ordering: .relaxed)
            return .respond(response)
        }
        do {
            try await test(server, handled)
        } catch {
            await server.shutdown()
            group.shutdown()
            throw error
        }
        await server.shutdown()
        group.shutdown()
    }

    private static let request = Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)

    @Test func aClientThatPipelinesAndNeverReadsIsNotReadPastTheUnsentLimit() async throws {
        try await withServer(limits: .init(maxUnsentBytes: 64 * 1024), body: 1024) { server, handled in
            let client = try RawClient(port: server.port, receiveBuffer: 4096)
            // A million requests (2^20), 44 MB, more than the socket buffers between the two hold (a
            // few MB each way on loopback), would be a GB of answers; the client reads none.
            var doubled = Self.request
            for _ in 0..<20 { doubled += doubled }
            let flood = doubled
            // Written until the socket takes nothing more for half a second; then the server has
            // answered all it will: its count holds still. Once the unsent answers pass the
            // limit, the server reads no more: a second of writing gets no further. A server
            // loop a busy machine kept off its core for that half second looks the same for a
            // while, and reads again once it runs: the writing goes on from where it got to
            // until a second of it gets nowhere, or the flood is all written (the server then
            // read it all, which the checks below refuse).
            let deadline = ContinuousClock.now + .seconds(60)
            var first = 0
            var answered = 0
            var second = 0
            repeat {
                first += second
                first += await onOwnThread { [first] in
                    client.write(Array(flood[first...]), until: deadline, stall: .milliseconds(500))
                }
                answered = handled.count.load(ordering: .relaxed)
                for _ in 0..<60 {
                    try await Task.sleep(for: .milliseconds(300))
                    let now = handled.count.load(ordering: .relaxed)
                    if now == answered { break }
                    answered = now
                }
                second = await onOwnThread { [first] in client.write(Array(flood[first...]), until: .now + .seconds(1)) }
            } while second > 0 && first + second < flood.count && ContinuousClock.now < deadline
            // Nor is another request answered.
            try await Task.sleep(for: .milliseconds(300))
            #expect(first < flood.count)
            #expect(second == 0, "the server read \(second) more bytes")
            #expect(handled.count.load(ordering: .relaxed) == answered)
            #expect(answered < first / Self.request.count)
        }
    }

    @Test func pipelinedRequestsAreAllAnsweredWhenTheClientReadsThem() async throws {
        try await withServer(limits: .init(maxUnsentBytes: 16 * 1024)) { server, handled in
            let client = try RawClient(port: server.port)
            let count = 2_000
            let requests = Array([[UInt8]](repeating: Self.request, count: count).joined())
            let deadline = ContinuousClock.now + .seconds(60)
            // Written while the answers are read: the server pauses and resumes many times.
            async let written = onOwnThread { client.write(requests, until: deadline) }
            let length = EncodedResponse(HTTPServerResponse(status: 200, body: [UInt8](repeating: 0x61, count: 4096))).bytes.count
            let (bytes, _) = await onOwnThread { client.read(until: deadline, stopAfter: count * length) }
            #expect(await written == requests.count)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.components(separatedBy: "HTTP/1.1 200").count - 1 == count)
            #expect(handled.count.load(ordering: .relaxed) == count)
        }
    }

    @Test func connectionsPastTheCapAreClosedAndThoseOpenGoOn() async throws {
        try await withServer(limits: .init(maxConnections: 4)) { server, handled in
            let port = server.port
            let (answers, refusals, again) = await onOwnThread { () -> ([String], [Bool], String) in
                let kept = (0..<4).compactMap { _ in try? RawClient(port: port) }
                // Each read ends with its answer, or the close: its bound only stops a hung test.
                for client in kept { _ = client.write(Self.request, until: .now + .seconds(30)) }
                let answers = kept.map { String(decoding: $0.read(until: .now + .seconds(30), stopAfter: 4096).bytes, as: UTF8.self) }
                let extra = (0..<6).compactMap { _ in try? RawClient(port: port) }
                let refusals = extra.map { client in
                    _ = client.write(Self.request, until: .now + .seconds(1))
                    return client.read(until: .now + .seconds(30)).closed
                }
                // The four kept still answer.
                guard let first = kept.first else { return (answers, refusals, "") }
                _ = first.write(Self.request, until: .now + .seconds(30))
                return (answers, refusals, String(decoding: first.read(until: .now + .seconds(30), stopAfter: 4096).bytes, as: UTF8.self))
            }
            #expect(answers.count == 4 && answers.allSatisfy { $0.hasPrefix("HTTP/1.1 200") })
            #expect(refusals == Array(repeating: true, count: 6))
            #expect(again.hasPrefix("HTTP/1.1 200"))
            #expect(server.connectionsRefused == 6)
            #expect(handled.count.load(ordering: .relaxed) == 5)
        }
    }

    @Test func anIdleConnectionIsClosedAfterTheIdleTimeout() async throws {
        try await withServer(limits: .init(idleTimeout: .milliseconds(300))) { server, _ in
            let client = try RawClient(port: server.port)
            let began = ContinuousClock.now
            #expect(await onOwnThread { client.read(until: .now + .seconds(30)).closed })
            #expect(ContinuousClock.now - began >= .milliseconds(300))
            #expect(server.connectionsTimedOut == 1)
        }
    }

    /// An HTTP/2 connection with no stream open is idle like an HTTP/1.1 one: closed after the
    /// idle timeout, so that held-open connections cannot keep descriptors from the rest.
    @Test func anIdleHTTP2ConnectionIsClosedAfterTheIdleTimeout() async throws {
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(
            host: "127.0.0.1", port: 0, group: group, limits: .init(idleTimeout: .milliseconds(300)), http2: HTTP2ServerOptions()
        ) { _ in .respond(EncodedResponse(HTTPServerResponse(status: 200))) }
        let client = try RawClient(port: server.port)
        var hello = HTTP2Frame.preface
        HTTP2Frame.settings([], ack: false).write(into: &hello)
        _ = client.write(hello, until: .now + .seconds(10))
        let began = ContinuousClock.now
        let (bytes, closed) = await onOwnThread { client.read(until: .now + .seconds(30)) }
        #expect(closed, "the server closed the idle connection")
        #expect(ContinuousClock.now - began >= .milliseconds(300))
        // It spoke HTTP/2 first: its SETTINGS, nine bytes of frame header with type 4.
        #expect(bytes.count >= 9 && bytes[3] == 4, "\(bytes.prefix(16))")
        // And it said goodbye before it closed (RFC 9113 §6.8): GOAWAY, type 7, without error,
        // so that a request crossing it is known to be unprocessed.
        var frames: [(type: UInt8, payload: ArraySlice<UInt8>)] = []
        var at = 0
        while at + 9 <= bytes.count {
            let length = Int(bytes[at]) << 16 | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2])
            guard at + 9 + length <= bytes.count else { break }
            frames.append((bytes[at + 3], bytes[(at + 9)..<(at + 9 + length)]))
            at += 9 + length
        }
        let goAway = try #require(frames.last { $0.type == 7 }, "\(frames.map(\.type))")
        #expect(goAway.payload.count >= 8 && goAway.payload.dropFirst(4).prefix(4).allSatisfy { $0 == 0 })
        #expect(server.connectionsTimedOut == 1)
        await server.shutdown()
        group.shutdown()
    }

    @Test func aRequestTricklingInSlowerThanTheHeaderTimeoutIsClosed() async throws {
        try await withServer(limits: .init(idleTimeout: .seconds(60), headerTimeout: .milliseconds(500))) { server, handled in
            let client = try RawClient(port: server.port)
            let began = ContinuousClock.now
            let closed = await onOwnThread {
                // A byte every 50 ms: never idle, and never a whole head.
                for byte in Array("GET /metrics HTTP/1.1\r\nX-Slow: ".utf8) + [UInt8](repeating: 0x61, count: 1_000) {
                    if client.write([byte], until: .now + .seconds(1)) == 0 { return true }
                    if client.read(until: .now + .milliseconds(50)).closed { return true }
                }
                return false
            }
            #expect(closed)
            // Not before the timeout, and well before the bytes ran out (a minute of them).
            #expect(ContinuousClock.now - began >= .milliseconds(500))
            #expect(server.connectionsTimedOut == 1)
            #expect(handled.count.load(ordering: .relaxed) == 0)
        }
    }
}
