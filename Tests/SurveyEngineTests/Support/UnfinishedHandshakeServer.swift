import Foundation
import Synchronization

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

#if canImport(Glibc)
    import Glibc
#endif

/// A listener on 127.0.0.1 that plays a TLS server whose handshakes never finish: it accepts
/// every connection, reads the client's first TLS record — the ClientHello — and then closes the
/// connection, resets it, or says nothing until the client goes away.
///
/// It runs on a thread of its own (blocking calls have no place on the cooperative pool),
/// polling every 10 ms until `stop()`, which `deinit` calls too.
final class UnfinishedHandshakeServer: @unchecked Sendable {
    /// What it does once a client's ClientHello has arrived.
    enum Behaviour: Sendable {
        /// Closes the connection: the client reads an end of stream.
        case close
        /// Closes with SO_LINGER 0: the client gets a TCP reset.
        case reset
        /// Keeps the connection open and sends nothing.
        case stayQuiet
    }

    struct Seen: Sendable {
        /// The first TLS record of each connection, once it arrived whole.
        var clientHellos: [[UInt8]] = []
        /// Connections the client closed (or reset) while the server said nothing.
        var clientsGone = 0
    }

    let port: Int
    /// Shared with the thread, which holds no reference to the server: `deinit` can stop it.
    private final class State: Sendable {
        let value = Mutex<(seen: Seen, stopping: Bool, stopped: Bool)>((Seen(), false, false))
    }
    private let state = State()

    init(_ behaviour: Behaviour) throws {
        let address = try SocketAddress.resolve(host: "127.0.0.1", port: 0).get()[0]
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0, address.withSockAddr({ bind(listener, $0, $1) }) == 0, listen(listener, 64) == 0,
            let port = SocketAddress.local(of: listener)?.port
        else {
            let error = String(cString: strerror(errno))
            if listener >= 0 { close(listener) }
            throw PeerFailure(description: "cannot listen on 127.0.0.1: \(error)")
        }
        self.port = port
        let state = self.state
        Thread { Self.serve(listener, behaviour, state) }.start()
    }

    deinit { stop() }

    /// What it has seen so far.
    var seen: Seen { state.value.withLock { $0.seen } }

    /// Stops the thread, which closes every connection and the listener; returns once it has.
    func stop() {
        state.value.withLock { $0.stopping = true }
        while !state.value.withLock({ $0.stopped }) { usleep(1000) }
    }

    private static func serve(_ listener: Int32, _ behaviour: Behaviour, _ state: State) {
        // Each connection: its descriptor and what it has sent until its ClientHello was whole.
        var connections: [(fd: Int32, received: [UInt8], helloDone: Bool)] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !state.value.withLock({ $0.stopping }) {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            fds += connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), 10) > 0 else { continue }
            var kept: [(fd: Int32, received: [UInt8], helloDone: Bool)] = []
            if fds[0].revents != 0 {
                let fd = accept(listener, nil, nil)
                if fd >= 0 {
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                    kept.append((fd, [], false))
                }
            }
            for (index, var connection) in connections.enumerated() {
                guard fds[index + 1].revents != 0 else {
                    kept.append(connection)
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 && !(count < 0 && (errno == EAGAIN || errno == EINTR)) {
                    // The client closed or reset the connection.
                    if connection.helloDone { state.value.withLock { $0.seen.clientsGone += 1 } }
                    close(connection.fd)
                    continue
                }
                if count > 0 && !connection.helloDone {
                    connection.received += buffer[..<count]
                    // A record: type, version (2 bytes), length (2 bytes), then that many bytes.
                    let received = connection.received
                    let length = received.count >= 5 ? 5 + (Int(received[3]) << 8 | Int(received[4])) : Int.max
                    if received.count >= length {
                        connection.helloDone = true
                        state.value.withLock { $0.seen.clientHellos.append(Array(received.prefix(length))) }
                        switch behaviour {
                        case .close:
                            close(connection.fd)
                            continue
                        case .reset:
                            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                            setsockopt(connection.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                            close(connection.fd)
                            continue
                        case .stayQuiet:
                            break
                        }
                    }
                }
                kept.append(connection)
            }
            connections = kept
        }
        for connection in connections { close(connection.fd) }
        close(listener)
        state.value.withLock { $0.stopped = true }
    }
}

/// Whether `record` is a TLS handshake record holding a ClientHello.
func isClientHello(_ record: [UInt8]) -> Bool {
    record.count > 5 && record[0] == 0x16 && record[5] == 0x01
}
