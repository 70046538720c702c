/// One stored cookie (RFC 6265 §5.3). Its value is a secret: `description` shows the name only.
struct Cookie: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    var name: [UInt8]
    var value: [UInt8]
    /// Lowercase, without a leading dot; for a host-only cookie, the host that set it.
    var domain: String
    var path: String
    /// Sent back to `domain` only, not to its subdomains: the response set no `Domain`.
    var hostOnly: Bool
    /// Sent over https only.
    var secure: Bool
    /// A reading of the engine's clock (nanoseconds) from which the cookie is gone; `.max` for
    /// a session cookie, which lives as long as its respondent.
    var expiry: UInt64
    /// Orders cookies of equal path length in the `Cookie` header: earlier first. A cookie that
    /// replaces one of the same name, domain and path keeps its creation.
    var creation: UInt64

    /// The most bytes of name and value a cookie may hold, as browsers allow; a longer one is
    /// ignored.
    static let maxBytes = 4096

    var description: String { "\(String(decoding: name, as: UTF8.self))=*** (domain \(domain), path \(path))" }
    var debugDescription: String { description }

    func isExpired(at now: UInt64) -> Bool { expiry <= now }

    /// Whether the cookie goes with a request to `origin` (RFC 6265 §5.4, step 1).
    func matches(_ origin: CookieOrigin) -> Bool {
        if secure && !origin.secure { return false }
        if hostOnly ? origin.host != domain : !Cookie.domainMatches(origin, domain) { return false }
        return Cookie.pathMatches(origin.path, path)
    }

    /// RFC 6265 §5.1.3: the host is the domain, or a name (not an IP address) ending in `.domain`.
    static func domainMatches(_ origin: CookieOrigin, _ domain: String) -> Bool {
        if origin.host == domain { return true }
        guard !origin.hostIsAddress, origin.host.hasSuffix(domain), !domain.isEmpty else { return false }
        let before = origin.host.utf8.dropLast(domain.utf8.count).last
        return before == UInt8(ascii: ".")
    }

    /// RFC 6265 §5.1.4: the cookie's path is the request's, or a prefix of it ending at a `/`.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        return requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }
}
