import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

#if canImport(Glibc)
    import Glibc
#endif

/// `HTTPServer` with HTTP/2 on, driven byte by byte over a blocking loopback socket: the preface
/// may arrive in pieces and still be told from HTTP/1.1, and a client that floods frames is sent
/// GOAWAY and cut off.
@Suite struct HTTP2ServerWireTests {

    /// A server echoing each request's path, HTTP/2 on; `body` runs on a thread of its own with
    /// a socket to it.
    func withServer(_ body: @escaping @Sendable (HTTPServer, RawClient) -> Void) async throws {
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, http2: .init()) { request in
            .respond(EncodedResponse(HTTPServerResponse(status: 200, body: Array(request.path.utf8))))
        }
        let port = server.port
        let connected = await onOwnThread { () -> Bool in
            guard let socket = try? RawClient(port: port) else { return false }
            body(server, socket)
            return true
        }
        #expect(connected)
        await server.shutdown()
        group.shutdown()
    }

    enum HalfOpen: String, CaseIterable {
        /// HEADERS without END_STREAM, and no DATA after them.
        case headersWithoutBody
        /// HEADERS without END_HEADERS, and no CONTINUATION after them.
        case headersWithoutContinuation
        /// HEADERS, then part of the body, and no END_STREAM.
        case partialBody
    }

    /// A stream whose request is still arriving past the server's header timeout closes its
    /// connection, as a slow HTTP/1.1 request does: half-open streams cannot hold the server's
    /// memory for ever (40 connections of them took it from 22 MB to 459 MB, still open after
    /// 70 s). A connection whose requests all arrived is left alone.
    @Test(arguments: HalfOpen.allCases)
    func aStreamHalfOpenPastTheHeaderTimeoutClosesItsConnection(_ shape: HalfOpen) async throws {
        let group = EventLoopGroup(threads: 1)
        let timeout = Duration.milliseconds(600)
        let server = try HTTPServer(
            host: "127.0.0.1", port: 0, group: group, limits: HTTPServer.Limits(headerTimeout: timeout), http2: .init()
        ) { request in
            .respond(EncodedResponse(HTTPServerResponse(status: 200, body: Array(request.path.utf8))))
        }
        let port = server.port
        let (closedAfter, completeStayed) = await onOwnThread { () -> (Duration?, Bool) in
            guard let socket = try? RawClient(port: port), let complete = try? RawClient(port: port) else { return (nil, false) }
            var client = HTTP2ClientMachine()
            var bytes: [UInt8] = []
            client.start(into: &bytes)
            var request: [UInt8] = []
            _ = client.send(
                method: "POST", scheme: "http", authority: "127.0.0.1", path: "/slow", headers: [], body: Array("abcdef".utf8),
                into: &request)
            // The request's frames, then all but what the shape leaves out.
            var frames: [HTTP2Frame] = []
            var rest = request[...]
            while case .frame(let frame, let length)? = try? HTTP2Frame.read(rest, maxFrameSize: 1 << 20) {
                frames.append(frame)
                rest = rest.dropFirst(length)
            }
            for frame in frames {
                switch (frame, shape) {
                case (.headers(let stream, let fragment, _, _), .headersWithoutContinuation):
                    HTTP2Frame.headers(stream: stream, fragment: fragment, endStream: false, endHeaders: false).write(into: &bytes)
                case (.headers, _): frame.write(into: &bytes)
                case (.data(let stream, let data, _), .partialBody):
                    HTTP2Frame.data(stream: stream, data: Array(data.prefix(2)), endStream: false).write(into: &bytes)
                default: break
                }
            }
            let start = ContinuousClock.now
            socket.writeAll(bytes)
            // A connection of the same age whose one request arrived whole.
            var whole: [UInt8] = []
            var other = HTTP2ClientMachine()
            other.start(into: &whole)
            _ = other.send(method: "GET", scheme: "http", authority: "127.0.0.1", path: "/ok", headers: [], body: [], into: &whole)
            complete.writeAll(whole)
            let read = socket.read(until: start + .seconds(20))
            let elapsed = ContinuousClock.now - start
            let stayed = !complete.read(until: .now + .milliseconds(200)).closed
            return (read.closed ? elapsed : nil, stayed)
        }
        let elapsed = try #require(closedAfter, "the half-open connection stayed open for 20 s")
        #expect(elapsed >= timeout && elapsed < timeout + .seconds(5), "\(elapsed)")
        #expect(completeStayed)
        #expect(server.connectionsTimedOut == 1)
        await server.shutdown()
        group.shutdown()
    }

    @Test func aPrefaceInPiecesIsStillHTTP2() async throws {
        try await withServer { _, socket in
            var client = HTTP2ClientMachine()
            var opening: [UInt8] = []
            client.start(into: &opening)
            let id = client.send(
                method: "GET", scheme: "http", authority: "127.0.0.1", path: "/pieces", headers: [], body: [], into: &opening)
            // "PRI * HTTP/2.0" could begin neither HTTP/1.1 request nor anything else: the server
            // waits for the rest before it decides.
            for range in [0..<3, 3..<14, 14..<24, 24..<opening.count] {
                socket.writeAll(Array(opening[range]))
                usleep(20_000)
            }
            var response: HTTP2ClientMachine.Response?
            var reply: [UInt8] = []
            while response == nil {
                let bytes = socket.readSome()
                guard !bytes.isEmpty, let events = try? client.receive(bytes, into: &reply) else { break }
                for case .response(id, let answer) in events { response = answer }
                socket.writeAll(reply)
                reply = []
            }
            #expect(response?.status == 200)
            #expect(response?.body == Array("/pieces".utf8))
        }
    }

    @Test func aFloodOfPingsIsToldToCalmDownAndCutOff() async throws {
        try await withServer { server, socket in
            var opening: [UInt8] = []
            var client = HTTP2ClientMachine()
            client.start(into: &opening)
            var flood = opening
            for index in 0..<10_050 { HTTP2Frame.ping([UInt8(index & 0xFF)], ack: false).write(into: &flood) }
            socket.writeAll(flood)
            var received: [UInt8] = []
            while true {
                let bytes = socket.readSome()
                if bytes.isEmpty { break }
                received += bytes
            }
            var rest = received[...]
            var goAway: HTTP2Error?
            while case .frame(let frame, let length)? = try? HTTP2Frame.read(rest, maxFrameSize: 1 << 20) {
                if case .goAway(_, let error, _) = frame { goAway = error }
                rest = rest.dropFirst(length)
            }
            #expect(goAway == .enhanceYourCalm)
            #expect(server.requestsRejected == 1)
        }
    }
}
