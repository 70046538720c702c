#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 socket address, resolved once and reused for every connection.
public struct SocketAddress: Sendable, CustomStringConvertible {
    fileprivate var storage = sockaddr_storage()
    fileprivate(set) var length: socklen_t = 0

    /// The address family (`AF_INET` or `AF_INET6`).
    var family: Int32 { Int32(storage.ss_family) }

    /// The numeric form: `127.0.0.1:8080`, or `[::1]:8080` for IPv6; `?` if it cannot be
    /// formatted.
    public var description: String {
        var copy = storage
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let result = withUnsafePointer(to: &copy) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard result == 0 else { return "?" }
        let name = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let port = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(name)]:\(port)" : "\(name):\(port)"
    }

    /// Whether this is the unspecified address (`0.0.0.0` or `::`): a server bound to it
    /// listens on every interface of the host.
    public var isUnspecified: Bool {
        var copy = storage
        return withUnsafePointer(to: &copy) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    withUnsafeBytes(of: address.pointee.sin6_addr) { $0.allSatisfy { $0 == 0 } }
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr == 0 }
        }
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var copy = storage
        return withUnsafePointer(to: &copy) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// Why a host name did not resolve.
    struct ResolutionError: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// Resolves `host` (a name or a numeric address) for TCP on `port`: every address, in the
    /// order the resolver prefers.
    static func resolve(host: String, port: Int) -> Result<[SocketAddress], ResolutionError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            let reason = String(cString: gai_strerror(status))
            return .failure(ResolutionError(description: "cannot resolve '\(host)': \(reason)"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            if let address = entry.pointee.ai_addr, entry.pointee.ai_family == AF_INET || entry.pointee.ai_family == AF_INET6 {
                var resolved = SocketAddress()
                resolved.length = entry.pointee.ai_addrlen
                withUnsafeMutableBytes(of: &resolved.storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen)))
                }
                addresses.append(resolved)
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(ResolutionError(description: "'\(host)' has no IPv4 or IPv6 address")) }
        return .success(addresses)
    }

    /// The address a socket is bound to.
    static func local(of fd: Int32) -> SocketAddress? {
        var address = SocketAddress()
        address.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &address.storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &address.length) }
        }
        return result == 0 ? address : nil
    }

    /// The port of an IPv4 or IPv6 address.
    var port: Int {
        var copy = storage
        return withUnsafePointer(to: &copy) { pointer in
            if family == AF_INET6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        }
    }

    /// Whether this is a loopback address (127.0.0.0/8 or ::1).
    var isLoopback: Bool {
        var copy = storage
        return withUnsafePointer(to: &copy) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    withUnsafeBytes(of: address.pointee.sin6_addr) { bytes in
                        bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
                    }
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt32(bigEndian: $0.pointee.sin_addr.s_addr) >> 24 == 127
            }
        }
    }
}

/// Small wrappers over the socket calls the client and the server share.
enum Sockets {
    /// A non-blocking, close-on-exec TCP socket.
    static func makeTCP(family: Int32) -> Int32 {
        socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }

    /// Opens a client's TCP socket: its descriptor, or -1 and the errno of the failure.
    typealias Opener = @Sendable (_ family: Int32) -> (fd: Int32, error: Int32)

    /// `makeTCP`, with its errno: how every client connection gets its socket, unless a test
    /// says otherwise.
    static let openTCP: Opener = { family in
        let fd = makeTCP(family: family)
        if fd < 0 { return (fd, errno) }
        if intoReserve(fd) {
            close(fd)
            return (-1, EMFILE)
        }
        return (fd, 0)
    }

    /// Whether `fd` is one of the last descriptors below the soft `RLIMIT_NOFILE`, which sockets
    /// must leave to the rest of the process: the Dispatch runtime opens files under `/proc` as
    /// it watches its threads (and traps when it cannot), and a run still has its reports to
    /// write. A socket given one of them is closed and counted as out of descriptors, as if the
    /// limit were that much lower.
    static func intoReserve(_ fd: Int32) -> Bool {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return false }
        return intoReserve(fd, softLimit: Int(clamping: limit.rlim_cur))
    }

    /// `intoReserve` against a given soft limit: the reserve is 1/32 of it, at least 8 and at
    /// most 32 descriptors.
    static func intoReserve(_ fd: Int32, softLimit: Int) -> Bool {
        let reserve = min(max(softLimit / 32, 8), 32)
        return Int(fd) >= softLimit - reserve
    }

    /// Whether an errno says this process, not the peer, ran out of something: descriptors
    /// (`EMFILE`, `ENFILE`), socket buffers or memory (`ENOBUFS`, `ENOMEM`), or — from
    /// `connect()` — a free local port (`EADDRNOTAVAIL`; Linux says `EAGAIN` when the
    /// ephemeral ports are all in use).
    static func isLocalResource(_ error: Int32, atConnect: Bool) -> Bool {
        switch error {
        case EMFILE, ENFILE, ENOBUFS, ENOMEM: true
        case EADDRNOTAVAIL, EAGAIN: atConnect
        default: false
        }
    }

    /// `socket(): Too many open files (EMFILE)`: what a local failure says in a report.
    static func describe(_ error: Int32, call: String) -> String {
        let names: [Int32: String] = [
            EMFILE: "EMFILE", ENFILE: "ENFILE", ENOBUFS: "ENOBUFS", ENOMEM: "ENOMEM", EADDRNOTAVAIL: "EADDRNOTAVAIL", EAGAIN: "EAGAIN",
            ENOSPC: "ENOSPC",
        ]
        return "\(call): \(String(cString: strerror(error)))" + (names[error].map { " (\($0))" } ?? "")
    }

    static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The pending error of a socket (after a non-blocking connect), or 0.
    static func pendingError(_ fd: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
        return error
    }

    /// How far a non-blocking write got.
    enum WriteResult {
        /// Every byte is in the kernel.
        case done
        /// The socket buffer is full: wait for EPOLLOUT, then write again.
        case wouldBlock
        /// The peer is gone; the errno says how.
        case failed(Int32)
    }

    /// Sends `bytes[written...]` without blocking, advancing `written` past what the kernel took.
    static func write(_ fd: Int32, _ bytes: [UInt8], from written: inout Int) -> WriteResult {
        while written < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                send(fd, buffer.baseAddress! + written, buffer.count - written, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                written += sent
                continue
            }
            let error = errno
            if error == EINTR { continue }
            return error == EAGAIN || error == EWOULDBLOCK ? .wouldBlock : .failed(error)
        }
        return .done
    }

    /// Closes with a TCP reset instead of an orderly close (SO_LINGER with a zero timeout).
    static func closeWithReset(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
    }
}
