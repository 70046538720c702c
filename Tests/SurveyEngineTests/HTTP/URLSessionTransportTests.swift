import Foundation
import Testing

@testable import SurveyEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The https transport, exercised over plain http against the project's server on loopback:
/// the classification and the deadline do not depend on TLS.
@Suite struct URLSessionTransportTests {
    @Test func answersAndDeadlines() async throws {
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { request in
            request.path == "/hang"
                ? .hang : .respond(EncodedResponse(HTTPServerResponse(status: 201, body: Array("made".utf8))))
        }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        // A generous deadline for the answer (URLSession's first request sets up a lot under a
        // loaded test run), a short one for the request that is never answered.
        let patient = URLSessionTransport(target: target, concurrency: 4, configuration: .init(timeout: .seconds(10)))
        let made = await patient.send(HTTPRequest(HTTPRequest.Template(method: "GET", path: "/x", target: target), collectBody: true))
        #expect(made.result == .success(TransportResponse(status: 201, body: Array("made".utf8))))
        await patient.shutdown()
        let transport = URLSessionTransport(target: target, concurrency: 4, configuration: .init(timeout: .milliseconds(300)))
        let hung = await transport.send(HTTPRequest(HTTPRequest.Template(method: "GET", path: "/hang", target: target)))
        #expect(hung.result == .failure(TransportFailure(.timeout, requestSent: true)))
        #expect(hung.serviceTime >= .milliseconds(300) && hung.serviceTime < .seconds(5))
        await transport.shutdown()
        await server.shutdown()
        group.shutdown()
    }

    @Test func mapsURLErrors() {
        #expect(URLSessionTransport.kind(of: URLError(.cannotConnectToHost)) == .connectionRefused)
        #expect(URLSessionTransport.kind(of: URLError(.serverCertificateUntrusted)) == .tls)
        #expect(URLSessionTransport.kind(of: URLError(.cannotFindHost)) == .dns)
        #expect(URLSessionTransport.kind(of: URLError(.timedOut)) == .timeout)
    }
}

/// Against a real TLS server with a self-signed certificate (openssl s_server on loopback):
/// verification is on, and its failure is classified as `tls`.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"))) struct TLSVerificationTests {
    @Test func selfSignedCertificateIsRefusedAsTLS() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("survey-bot-tls-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("key.pem").path
        let cert = directory.appendingPathComponent("cert.pem").path
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        make.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
        ]
        make.standardOutput = FileHandle.nullDevice
        make.standardError = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        // A port that was free a moment ago; another try if s_server still could not have it.
        var started: (Process, Int)?
        for _ in 0..<3 where started == nil {
            let port = try #require(Self.freePort())
            let server = Process()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            server.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", cert, "-key", key, "-www", "-quiet"]
            server.standardOutput = FileHandle.nullDevice
            server.standardError = FileHandle.nullDevice
            try server.run()
            if await Self.waitUntilListening(port, while: server) { started = (server, port) } else { Self.stop(server) }
        }
        let (server, port) = try #require(started)
        defer { Self.stop(server) }
        let target = HTTPTarget(scheme: .https, host: "127.0.0.1", port: port)
        let transport = URLSessionTransport(target: target, concurrency: 1, configuration: .init(timeout: .seconds(10)))
        let outcome = await transport.send(HTTPRequest(HTTPRequest.Template(method: "GET", path: "/", target: target)))
        #expect(outcome.result == .failure(TransportFailure(.tls, requestSent: true)))
        await transport.shutdown()
    }

    /// SIGKILL: a child of the test process inherits its blocked signal mask, SIGTERM included.
    private static func stop(_ process: Process) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// A port the kernel hands out for loopback, free a moment ago.
    private static func freePort() -> Int? {
        guard let loopback = try? SocketAddress.resolve(host: "127.0.0.1", port: 0).get().first else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        guard loopback.withSockAddr({ bind(fd, $0, $1) }) == 0 else { return nil }
        return SocketAddress.local(of: fd)?.port
    }

    /// Whether something accepts TCP connections on the port within 10 s, while `process` runs.
    /// It tries once more after the deadline, so that a test task kept from a thread past the
    /// deadline by a busy machine still sees a server that started in time.
    private static func waitUntilListening(_ port: Int, while process: Process) async -> Bool {
        guard let address = try? SocketAddress.resolve(host: "127.0.0.1", port: port).get().first else { return false }
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let connected = address.withSockAddr { connect(fd, $0, $1) } == 0
            close(fd)
            if connected { return true }
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
