import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The client's HTTP/2 session against nghttp2's own server, `nghttpd`, in cleartext with prior
/// knowledge on loopback: an implementation no one here wrote decides whether the preface, the
/// SETTINGS, HPACK and flow control are right.
@Suite(
    .enabled(if: Installed.nghttpd != nil, "nghttpd is not installed: no HTTP/2 server to test against (.ci/run installs nghttp2-server)"))
struct HTTP2AgainstNghttpdTests {
    /// A blocking loopback socket with a receive timeout, for a test's few exchanges.
    final class Socket {
        let fd: Int32

        init?(port: Int) {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(fd)
                return nil
            }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(fd) }

        func write(_ bytes: [UInt8]) {
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { return }
                sent += n
            }
        }

        /// What arrived, or nothing after the timeout or at the end.
        func read() -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            return n > 0 ? Array(buffer[..<n]) : []
        }
    }

    /// nghttpd serving `directory` on a free loopback port, and a socket to it.
    func start(_ directory: TemporaryDirectory) async throws -> (ChildProcess, Socket) {
        for _ in 0..<5 {
            let port = Int.random(in: 20_000..<60_000)
            let server = try ChildProcess(
                try #require(Installed.nghttpd), ["--no-tls", "-a", "127.0.0.1", "-d", directory.path, String(port)])
            var socket: Socket?
            _ = await eventually(within: 5) {
                socket = Socket(port: port)
                return socket != nil
            }
            if let socket { return (server, socket) }
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
        var settings = HTTP2ClientSession.Settings()
        settings.initialWindowSize = 16_384
        settings.connectionWindow = 65_535
        var session = HTTP2ClientSession(settings: settings)
        var output: [UInt8] = []
        session.start(into: &output)
        var streams: [UInt32] = []
        for index in 0..<10 {
            streams.append(
                session.send(
                    method: "GET", scheme: "http", authority: "127.0.0.1", path: "/questions.json",
                    headers: [HPACK.Field("user-agent", "survey-bot-test"), HPACK.Field("x-respondent", String(index))], body: [],
                    into: &output))
        }
        socket.write(output)
        var responses: [UInt32: HTTP2ClientSession.Response] = [:]
        var reads = 0
        while responses.count < 10 && reads < 10_000 {
            let bytes = socket.read()
            guard !bytes.isEmpty else { break }
            reads += 1
            output = []
            for event in try session.receive(bytes, into: &output) {
                if case .response(let stream, let response) = event { responses[stream] = response }
            }
            if !output.isEmpty { socket.write(output) }
        }
        #expect(session.settingsAcknowledged, "nghttpd acknowledged this end's SETTINGS")
        #expect(responses.keys.sorted() == streams)
        for response in responses.values {
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "[" + survey + "]")
        }
        // A file that is not there is a 404, on the same connection.
        output = []
        let missing = session.send(
            method: "GET", scheme: "http", authority: "127.0.0.1", path: "/nothing", headers: [], body: [], into: &output)
        socket.write(output)
        var status: Int?
        while status == nil {
            let bytes = socket.read()
            guard !bytes.isEmpty else { break }
            output = []
            for case .response(missing, let response) in try session.receive(bytes, into: &output) { status = response.status }
            if !output.isEmpty { socket.write(output) }
        }
        #expect(status == 404)
    }
}
