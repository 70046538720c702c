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

/// A `Set-Cookie` field value read by RFC 6265 §5.2: the name and value, and the attributes
/// that matter to a client that is not a browser. `HttpOnly` and unknown attributes are
/// ignored; of an attribute given twice, the last counts.
struct SetCookie: Sendable {
    var name: [UInt8]
    var value: [UInt8]
    /// From `Max-Age`: seconds from now; 0 or less is already expired.
    var maxAge: Int64?
    /// From `Expires`: seconds since the Unix epoch.
    var expires: Int64?
    /// From `Domain`, lowercase, a leading dot removed; nil when absent or empty.
    var domain: String?
    /// From `Path`, when it starts with `/`.
    var path: String?
    var secure = false

    /// Reads a field value; nil when it sets no cookie (no `=` before the first `;`, or an
    /// empty name).
    init?(_ field: some Collection<UInt8>) {
        let bytes = Array(field)
        let end = bytes.firstIndex(of: 0x3B) ?? bytes.endIndex
        let pair = bytes[..<end]
        guard let equals = pair.firstIndex(of: 0x3D) else { return nil }
        let name = Self.trimmed(pair[..<equals])
        guard !name.isEmpty else { return nil }
        self.name = Array(name)
        value = Array(Self.trimmed(pair[(equals + 1)...]))
        var rest = bytes[end...]
        while let semicolon = rest.first, semicolon == 0x3B {
            rest = rest.dropFirst()
            let next = rest.firstIndex(of: 0x3B) ?? rest.endIndex
            take(attribute: rest[..<next])
            rest = rest[next...]
        }
    }

    private mutating func take(attribute av: ArraySlice<UInt8>) {
        let equals = av.firstIndex(of: 0x3D)
        let name = Self.lowercased(Self.trimmed(av[..<(equals ?? av.endIndex)]))
        let value = equals.map { Self.trimmed(av[($0 + 1)...]) } ?? []
        switch name {
        case "expires":
            if let date = CookieDate.parse(value) { expires = date }
        case "max-age":
            guard let first = value.first, first == 0x2D || (0x30...0x39).contains(first) else { return }
            let digits = first == 0x2D ? value.dropFirst() : value[...]
            guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return }
            var seconds: Int64 = 0
            for digit in digits { seconds = seconds > Int64.max / 20 ? Int64.max / 10 : seconds * 10 + Int64(digit - 0x30) }
            maxAge = first == 0x2D ? -seconds : seconds
        case "domain":
            // An empty Domain is ignored, as RFC 6265 advises.
            guard !value.isEmpty else { return }
            let text = Self.lowercased(value)
            domain = text.hasPrefix(".") ? String(text.dropFirst()) : text
        case "path":
            let text = String(decoding: value, as: UTF8.self)
            path = text.hasPrefix("/") ? text : nil
        case "secure":
            secure = true
        default:
            break
        }
    }

    /// Without leading and trailing spaces and tabs.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
