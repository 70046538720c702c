/// Where a request goes, as cookies see it: the host (lowercase), the path without its query,
/// and whether the channel is secure (https).
public struct CookieOrigin: Sendable, Hashable {
    /// The request's host, lowercase, without a port.
    public var host: String
    /// The request's path, from `/`, without its query.
    public var path: String
    /// Whether the request goes over https: only then are `Secure` cookies sent.
    public var secure: Bool

    /// The origin of a request to `host` and `path` (a query is dropped), secure or not.
    public init(host: String, path: String, secure: Bool) {
        // Made for every request of a journey whose path varies: no copy when none is needed.
        self.host = host.utf8.contains { (0x41...0x5A).contains($0) || $0 >= 0x80 } ? host.lowercased() : host
        self.path = path.utf8.firstIndex(of: 0x3F).map { String(path[..<$0]) } ?? path
        self.secure = secure
    }

    /// The default-path of RFC 6265 §5.1.4: the directory of the request's path.
    var defaultPath: String {
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// Whether the host is an IP address, which only matches a cookie domain exactly.
    var hostIsAddress: Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0 == "." || $0.isASCII && $0.isNumber })
    }
}
