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
        self.host = host.lowercased()
        let withoutQuery = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        self.path = String(withoutQuery)
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
