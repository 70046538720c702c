import Foundation

@testable import SurveyEngine

#if canImport(Glibc)
    import Glibc
#endif

/// The independent programs the real-server tests run, where they are installed.
enum Installed {
    /// `openssl` on the PATH.
    static let openssl = find("openssl")
    /// `nginx` on the PATH, or in /usr/sbin where Debian puts it (not on every user's PATH).
    static let nginx = find("nginx", also: ["/usr/sbin"])

    private static func find(_ name: String, also extra: [String] = []) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        return (path + extra).map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// Why a peer could not be started, with what it said.
struct PeerFailure: Error, CustomStringConvertible {
    var description: String
}

/// A port on 127.0.0.1 the kernel handed out a moment ago, for a server that cannot be told to
/// pick one itself; nil if no socket could be bound.
func freeLoopbackPort() -> Int? {
    guard let loopback = try? SocketAddress.resolve(host: "127.0.0.1", port: 0).get().first else { return nil }
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    guard loopback.withSockAddr({ bind(fd, $0, $1) }) == 0 else { return nil }
    return SocketAddress.local(of: fd)?.port
}

/// Whether process `pid` itself holds a TCP socket listening on 127.0.0.1:`port`: the sockets of
/// its descriptors (/proc/PID/fd) matched by inode against the listening ones (/proc/PID/net/tcp).
/// A connect would also reach another program that took the port first.
func listensOnLoopback(pid: Int32, port: Int) -> Bool {
    let descriptors = "/proc/\(pid)/fd"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: descriptors),
        let table = try? String(contentsOfFile: "/proc/\(pid)/net/tcp", encoding: .utf8)
    else { return false }
    let sockets = Set(
        names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\($0)") }
            .filter { $0.hasPrefix("socket:[") }.map { String($0.dropFirst("socket:[".count).dropLast()) })
    // "  sl  local_address rem_address   st tx_queue:rx_queue tr:tm->when retrnsmt   uid  timeout inode"
    let local = "0100007F:" + String(port, radix: 16, uppercase: true).leftPadded(to: 4)
    return table.split(separator: "\n").dropFirst().contains { line in
        let fields = line.split(separator: " ")
        return fields.count > 9 && fields[1] == local && fields[3] == "0A" && sockets.contains(String(fields[9]))
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
