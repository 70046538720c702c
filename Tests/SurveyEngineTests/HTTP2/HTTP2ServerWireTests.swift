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
