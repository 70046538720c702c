import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyWire

#if canImport(Glibc)
    import Glibc
#endif

/// A client and a server TLS session over the two ends of a non-blocking `socketpair`, stepped in
/// turn on the test's thread: no network, no timing, the same outcome every run.
final class TLSPair {
    let client: TLSConnection
    let server: TLSConnection
    private(set) var clientFD: Int32 = -1
    private(set) var serverFD: Int32 = -1

    /// Makes both ends; `host` is what the client connects to (and checks, when it verifies).
    init(
        client context: TLSClientContext, server serverContext: TLSServerContext, host: String = "localhost",
        resuming saved: TLSResumption? = nil
    ) throws {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        try #require(socketpair(AF_UNIX, type, 0, &fds) == 0)
        clientFD = fds[0]
        serverFD = fds[1]
        client = try TLSConnection(client: context, fd: clientFD, host: host, resuming: saved)
        server = try TLSConnection(server: serverContext, fd: serverFD)
    }

    deinit {
        closeClient()
        closeServer()
    }

    func closeClient() {
        if clientFD >= 0 { close(clientFD) }
        clientFD = -1
    }

    func closeServer() {
        if serverFD >= 0 { close(serverFD) }
        serverFD = -1
    }

    /// Steps both handshakes until each is done or failed. A side that fails closes its socket,
    /// as a real peer would, so the other side learns of it instead of waiting forever.
    func handshake() -> (client: TLSStep, server: TLSStep) {
        var clientStep = TLSStep.wantWrite
        var serverStep = TLSStep.wantRead
        for _ in 0..<64 {
            if !clientStep.isFinal {
                clientStep = client.handshake()
                if case .failed = clientStep { closeClient() }
            }
            if !serverStep.isFinal {
                serverStep = server.handshake()
                if case .failed = serverStep { closeServer() }
            }
            if clientStep.isFinal && serverStep.isFinal { break }
        }
        return (clientStep, serverStep)
    }

    /// Sends `bytes` from one end and reads them at the other, stepping both until all arrived or
    /// either fails; returns what arrived, or the failure.
    func transfer(_ bytes: [UInt8], from sender: TLSConnection, to receiver: TLSConnection) -> Result<[UInt8], TLSFailure> {
        var written = 0
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var rounds = 0
        while received.count < bytes.count && rounds < 100_000 {
            rounds += 1
            if written < bytes.count {
                let result = bytes.withUnsafeBytes { sender.write(UnsafeRawBufferPointer(rebasing: $0[written...])) }
                switch result {
                case .wrote(let count): written += count
                case .wantRead, .wantWrite: break
                case .failed(let failure): return .failure(failure)
                }
            }
            let read = buffer.withUnsafeMutableBytes { receiver.read(into: $0) }
            switch read {
            case .bytes(let count): received.append(contentsOf: buffer[..<count])
            case .wantRead, .wantWrite: break
            case .closed: return .success(received)
            case .failed(let failure): return .failure(failure)
            }
        }
        return .success(received)
    }

    /// One read at `session`'s end into a 16 KB buffer.
    func read(_ session: TLSConnection) -> TLSRead {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        return buffer.withUnsafeMutableBytes { session.read(into: $0) }
    }
}

extension TLSStep {
    var isFinal: Bool {
        switch self {
        case .done, .failed: true
        case .wantRead, .wantWrite: false
        }
    }

    /// The failure, when the step is one.
    var failure: TLSFailure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }
}

/// TLS set-ups the tests share, all in memory.
enum TLSFixtures {
    /// A client that trusts exactly `identities`, verifying, with `tweak` applied to its configuration.
    static func client(trusting identities: [TLSIdentity], _ tweak: (inout TLSConfiguration) -> Void = { _ in }) throws -> TLSClientContext
    {
        var configuration = TLSConfiguration(trustedCertificates: identities.map(\.certificatePEM))
        tweak(&configuration)
        return try TLSClientContext(configuration)
    }
}
