import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A raw loopback client socket: bytes in and out as a test script says, blocking, every read
/// bounded by a receive timeout.
final class RawClient: Sendable {
    let fd: Int32

    /// Connects to 127.0.0.1:`port`; `receiveBuffer` shrinks the socket's receive buffer first
    /// (a client that reads slowly, or never, fills it sooner).
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    /// Writes as much of `bytes` as the socket takes before `deadline`, without blocking, or
    /// until it has taken nothing for `stall`; returns how many bytes went.
    func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant, stall: Duration? = nil) -> Int {
        var offset = 0
        var progressed = ContinuousClock.now
        while offset < bytes.count && ContinuousClock.now < deadline {
            if let stall, ContinuousClock.now - progressed > stall { break }
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if n > 0 {
                progressed = ContinuousClock.now
                offset += n
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                usleep(1000)
            } else {
                break
            }
        }
        return offset
    }

    /// Writes `bytes`, as much as goes within 30 s: for a test's few exchanges. The bound only
    /// stops a hung test; the peer, another process or loop, may wait seconds for a core.
    func writeAll(_ bytes: [UInt8]) {
        _ = write(bytes, until: .now + .seconds(30))
    }

    /// The next bytes that arrive within 30 s (a hang's bound, as for `writeAll`); empty after
    /// that, or at the close.
    func readSome() -> [UInt8] {
        read(until: .now + .seconds(30), stopAfter: 1).bytes
    }

    /// What arrives before `deadline`, or until the server closes the connection (then `closed`).
    func read(until deadline: ContinuousClock.Instant, stopAfter wanted: Int = .max) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while ContinuousClock.now < deadline && received.count < wanted {
            // Waits no longer than the deadline for something to read (or the close).
            let left = deadline - ContinuousClock.now
            var watched = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            if poll(&watched, 1, milliseconds) == 0 { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                received += chunk[..<n]
            } else if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                return (received, true)
            }
        }
        return (received, false)
    }
}
