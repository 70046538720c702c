/// Where the survey API lives: scheme, host, port and an optional base path that prefixes the
/// plan's API paths (`http://127.0.0.1:8080/v1` + `/questions` → `/v1/questions`).
public struct HTTPTarget: Sendable, Hashable, CustomStringConvertible {
    /// How to reach the target: plain or over TLS.
    public enum Scheme: String, Sendable, Hashable {
        /// Plain HTTP/1.1 on the event loops (`HTTPClient`); port 80 by default.
        case http
        /// HTTP over TLS, on the same event loops (`HTTPClient` with a `TLSClientContext`); port 443 by default.
        case https

        fileprivate var defaultPort: Int { self == .http ? 80 : 443 }
    }

    /// `http` or `https`.
    public var scheme: Scheme
    /// A host name, an IPv4 address, or an IPv6 address without brackets.
    public var host: String
    /// The TCP port, from 1 to 65535.
    public var port: Int
    /// Empty, or a path starting with `/` and not ending with one.
    public var basePath: String

    /// A target as given, unchecked (`parse` checks text); `port` defaults to the scheme's.
    public init(scheme: Scheme, host: String, port: Int? = nil, basePath: String = "") {
        self.scheme = scheme
        self.host = host
        self.port = port ?? scheme.defaultPort
        self.basePath = basePath
    }

    /// Whether the host is written as an IPv6 address.
    var isIPv6Literal: Bool { host.contains(":") }

    /// The `Host` header value: the port is omitted when it is the scheme's default.
    package var hostHeader: String {
        let name = isIPv6Literal ? "[\(host)]" : host
        return port == scheme.defaultPort ? name : "\(name):\(port)"
    }

    /// The URL with its port always written: `http://127.0.0.1:8080/v1`, `https://[::1]:443`.
    public var description: String {
        let name = isIPv6Literal ? "[\(host)]" : host
        return "\(scheme.rawValue)://\(name):\(port)\(basePath)"
    }

    /// Parses `http://host[:port][/base]` or `https://…`; the error says what is wrong. The
    /// base path must be a path of RFC 3986 characters, percent-encoded where need be.
    public static func parse(_ text: String) -> Result<HTTPTarget, ParseError> {
        let scheme: Scheme
        var rest: Substring
        if text.lowercased().hasPrefix("http://") {
            scheme = .http
            rest = text.dropFirst(7)
        } else if text.lowercased().hasPrefix("https://") {
            scheme = .https
            rest = text.dropFirst(8)
        } else {
            return .failure(ParseError("expected an http:// or https:// URL"))
        }
        if rest.contains("?") || rest.contains("#") {
            return .failure(ParseError("a target URL takes no query or fragment"))
        }
        if rest.contains("@") {
            return .failure(ParseError("a target URL takes no user name or password; use api.headers"))
        }
        let authority: Substring
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            rest = rest[slash...]
        } else {
            authority = rest
            rest = ""
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                return .failure(ParseError("unterminated IPv6 address: missing ']'"))
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(ParseError("expected ':port' after the IPv6 address")) }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return .failure(ParseError("'\(host)' is not an IPv6 address"))
            }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard !host.isEmpty else { return .failure(ParseError("the URL has no host")) }
            guard host.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." || $0 == "_" }) else {
                return .failure(ParseError("'\(host)' is not a valid host name"))
            }
        }
        var port: Int?
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p), portText.allSatisfy(\.isNumber) else {
                return .failure(ParseError("'\(portText)' is not a port (1-65535)"))
            }
            port = p
        }
        do throws(HTTPSyntaxError) {
            if !rest.isEmpty { try HTTPSyntax.checkRequestTarget(String(rest), part: "base path", allowsQuery: false) }
        } catch {
            return .failure(ParseError(error.description))
        }
        var base = String(rest)
        while base.hasSuffix("/") { base.removeLast() }
        return .success(HTTPTarget(scheme: scheme, host: String(host), port: port, basePath: base))
    }

    /// Why text is not a target URL.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, such as `'70000' is not a port (1-65535)`.
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
