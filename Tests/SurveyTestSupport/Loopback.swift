import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A port on 127.0.0.1 the kernel handed out a moment ago, for a server that cannot be told to
/// pick one itself; nil if no socket could be bound.
func freeLoopbackPort() -> Int? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
}

/// Whether process `pid` itself holds a TCP socket listening on 127.0.0.1:`port`: the sockets of
/// its descriptors (/proc/PID/fd) matched by inode against the listening ones (/proc/PID/net/tcp).
/// A connect would also reach another program that took the port first.
func listensOnLoopback(pid: Int32, port: Int) -> Bool {
    let descriptors = "/proc/\(pid)/fd"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: descriptors),
        let table = procFile("/proc/\(pid)/net/tcp")
    else { return false }
    let sockets = Set(
        names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\($0)") }
            .filter { $0.hasPrefix("socket:[") }.map { String($0.dropFirst("socket:[".count).dropLast()) })
    // "  sl  local_address rem_address   st tx_queue:rx_queue tr:tm->when retrnsmt   uid  timeout inode"
    let hex = String(port, radix: 16, uppercase: true)
    let local = "0100007F:" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    return table.split(separator: "\n").dropFirst().contains { line in
        let fields = line.split(separator: " ")
        return fields.count > 9 && fields[1] == local && fields[3] == "0A" && sockets.contains(String(fields[9]))
    }
}

/// The whole text of a file under /proc, read to its end: such files report a size of 0, and
/// Foundation's `String(contentsOfFile:)` returns only their first page (about 4 KB of
/// /proc/PID/net/tcp, some 27 sockets), so a listening socket listed after many others was
/// missed on a busy machine. Nil when it cannot be opened.
func procFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// A blocking TCP socket listening on 127.0.0.1, on a port the kernel picked, for a scripted
/// server on a thread of its own; its `accept()` waits 60 s at most, so that a connection the
/// client never opens ends the script instead of hanging the suite. Nil if none could be had.
func blockingLoopbackListener() -> (fd: Int32, port: Int)? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let listening = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard listening else {
        close(fd)
        return nil
    }
    var timeout = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}
