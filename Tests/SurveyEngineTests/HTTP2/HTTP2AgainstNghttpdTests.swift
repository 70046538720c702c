import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

#if canImport(Glibc)
    import Glibc
#endif

/// The client's HTTP/2 machine against nghttp2's own server, `nghttpd`, in cleartext with prior
/// knowledge on loopback: an implementation no one here wrote decides whether the preface, the
/// SETTINGS, HPACK and flow control are right.
@Suite(
    .enabled(if: Installed.nghttpd != nil, "nghttpd is not installed: no HTTP/2 server to test against (.ci/run installs nghttp2-server)"))
struct HTTP2AgainstNghttpdTests {
    /// nghttpd serving `directory` on a free loopback port, and a socket to it.
    func start(_ directory: TemporaryDirectory) async throws -> (ChildProcess, RawClient) {
        for _ in 0..<5 {
            guard let port = freeLoopbackPort() else { break }
            let server = try ChildProcess(
                try #require(Installed.nghttpd), ["--no-tls", "-a", "127.0.0.1", "-d", directory.path, String(port)])
            // Until nghttpd itself listens there, however long a busy machine takes to start it,
            // or it has exited (the port was taken meanwhile: another one, then).
            if await server.waitFor(within: 60, { listensOnLoopback(pid: $0.pid, port: port) ? true : nil }) == true,
                let socket = try? RawClient(port: port)
            {
                return (server, socket)
            }
            server.stop()
        }
        struct NoServer: Error {}
        throw NoServer()
    }

    @Test func tenStreamsAtOnceThroughSmallWindowsComeBackWhole() async throws {
        let directory = try TemporaryDirectory()
        // Larger than both windows below: nghttpd must wait for this end's WINDOW_UPDATEs.
        let survey = (0..<5_000).map { #"{"id":\#($0),"question":"Question number \#($0)?"}"# }.joined(separator: ",")
        _ = try directory.write("questions.json", "[" + survey + "]")
        let (server, socket) = try await start(directory)
        defer { server.stop() }
        // The exchange blocks on the socket, for as long as nghttpd takes: on a thread of its
        // own, not on one of the cooperative pool's, which every other test shares.
        let exchange = await onOwnThread { Result { try Self.exchange(socket) } }
        let (acknowledged, streams, responses, status) = try exchange.get()
        #expect(acknowledged, "nghttpd acknowledged this end's SETTINGS")
        #expect(responses.keys.sorted() == streams)
        for response in responses.values {
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "[" + survey + "]")
        }
        #expect(status == 404)
    }

    /// Ten GETs of /questions.json at once, then one of a file that is not there on the same
    /// connection: whether nghttpd acknowledged the SETTINGS, the ten streams, their responses,
    /// and the status of the last.
    private static func exchange(_ socket: RawClient) throws -> (
        acknowledged: Bool, streams: [UInt32], responses: [UInt32: HTTP2ClientMachine.Response], status: Int?
    ) {
        var settings = HTTP2ClientMachine.Settings()
        settings.initialWindowSize = 16_384
        settings.connectionWindow = 65_535
        var machine = HTTP2ClientMachine(settings: settings)
        var output: [UInt8] = []
        machine.start(into: &output)
        var streams: [UInt32] = []
        for index in 0..<10 {
            streams.append(
                machine.send(
                    method: "GET", scheme: "http", authority: "127.0.0.1", path: "/questions.json",
                    headers: [HPACK.Field("user-agent", "survey-bot-test"), HPACK.Field("x-respondent", String(index))], body: [],
                    into: &output))
        }
        socket.writeAll(output)
        var responses: [UInt32: HTTP2ClientMachine.Response] = [:]
        var reads = 0
        while responses.count < 10 && reads < 10_000 {
            let bytes = socket.readSome()
            guard !bytes.isEmpty else { break }
            reads += 1
            output = []
            for event in try machine.receive(bytes, into: &output) {
                if case .response(let stream, let response) = event { responses[stream] = response }
            }
            if !output.isEmpty { socket.writeAll(output) }
        }
        let acknowledged = machine.settingsAcknowledged
        // A file that is not there is a 404, on the same connection.
        output = []
        let missing = machine.send(
            method: "GET", scheme: "http", authority: "127.0.0.1", path: "/nothing", headers: [], body: [], into: &output)
        socket.writeAll(output)
        var status: Int?
        while status == nil {
            let bytes = socket.readSome()
            guard !bytes.isEmpty else { break }
            output = []
            for case .response(missing, let response) in try machine.receive(bytes, into: &output) { status = response.status }
            if !output.isEmpty { socket.writeAll(output) }
        }
        return (acknowledged, streams, responses, status)
    }
}
