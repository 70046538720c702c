/// An HTTP proxy the client reaches its target through: a forward proxy that takes plain http
/// requests in absolute form, and opens `CONNECT` tunnels for https (and h2c where it allows).
/// Its credentials, when the URL has them, become a `Proxy-Authorization: Basic` field: a
/// secret, which `description` never shows.
public struct HTTPProxy: Sendable, Hashable, CustomStringConvertible {
    /// A host name, an IPv4 address, or an IPv6 address without brackets.
    public var host: String
    /// The proxy's TCP port: 1080 when the URL gives none, as curl has it.
    public var port: Int
    /// The value of the `Proxy-Authorization` field (`Basic …`), nil without credentials.
    package var authorization: String?
    /// The credentials as a server might echo them back — the user, the password and the
    /// `Basic` token — for reports to mask; empty without credentials.
    package var secrets: [String] = []

    /// The port a proxy URL without one means (curl's).
    public static let defaultPort = 1080

    /// A proxy at `host:port`, with `Basic` credentials when `user` is given.
    public init(host: String, port: Int = HTTPProxy.defaultPort, user: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        if let user {
            let token = Base64.encode(Array("\(user):\(password ?? "")".utf8))
            authorization = "Basic " + token
            secrets = [user, password ?? "", token].filter { !$0.isEmpty }
        }
    }

    /// Whether the proxy asks for credentials of the client.
    public var hasCredentials: Bool { authorization != nil }

    /// The host and port as a `CONNECT` or `Host` names them: `proxy.example:3128`, `[::1]:3128`.
    package var authority: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// `http://host:port`, with `***@` in place of credentials: what output may show.
    public var description: String {
        "http://\(hasCredentials ? "***@" : "")\(authority)"
    }

    /// Parses a proxy URL as curl reads `HTTPS_PROXY`: `[http://][user[:password]@]host[:port][/]`;
    /// user and password percent-decoded. A scheme other than `http://` is refused, and the
    /// error never repeats the credentials.
    public static func parse(_ text: String) -> Result<HTTPProxy, HTTPTarget.ParseError> {
        var rest = Substring(text)
        if let scheme = rest.firstRange(of: "://") {
            let name = rest[..<scheme.lowerBound].lowercased()
            guard name == "http" else {
                return .failure(HTTPTarget.ParseError("a proxy URL must start with http:// (\(name):// proxies are not supported)"))
            }
            rest = rest[scheme.upperBound...]
        }
        while rest.hasSuffix("/") { rest.removeLast() }
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("#") else {
            return .failure(HTTPTarget.ParseError("a proxy URL takes no path, query or fragment"))
        }
        var user: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let parts = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let decodedUser = percentDecoded(parts[0]), let decodedPassword = parts.count > 1 ? percentDecoded(parts[1]) : "" else {
                return .failure(HTTPTarget.ParseError("the proxy URL's credentials have a '%' not followed by two hex digits"))
            }
            user = decodedUser
            password = parts.count > 1 ? decodedPassword : nil
        }
        switch HTTPTarget.parse("http://\(rest)") {
        case .failure(let error):
            return .failure(error)
        case .success(let target):
            let port = rest.hasSuffix(":\(target.port)") ? target.port : defaultPort
            return .success(HTTPProxy(host: target.host, port: port, user: user, password: password))
        }
    }

    /// `%XX` decoded; nil when a `%` is not followed by two hex digits.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// RFC 4648 base64, for `Basic` credentials.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let a = UInt32(bytes[index])
            let b = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let c = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let triple = a << 16 | b << 8 | c
            out.append(alphabet[Int(triple >> 18 & 63)])
            out.append(alphabet[Int(triple >> 12 & 63)])
            out.append(index + 1 < bytes.count ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
            out.append(index + 2 < bytes.count ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
