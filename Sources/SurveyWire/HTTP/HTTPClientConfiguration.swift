/// Limits and timeouts of every HTTP attempt, and how https targets are trusted.
public struct HTTPClientConfiguration: Sendable, Hashable {
    /// The whole attempt, connect and TLS handshake included, of a request without a timeout of
    /// its own (a step's): no complete response by then is a `timeout`. Expiries are checked
    /// every 5 ms, so a timeout fires up to 5 ms late.
    public var timeout: Duration
    /// The connect alone, within the attempt's timeout; nil: the attempt's timeout alone.
    public var connectTimeout: Duration?
    /// The largest response body read, in bytes (a plan's `max_body`): a longer one, declared or
    /// as it arrives, is `response_too_large` and its connection is closed. At least 1.
    public var maxBodyBytes: Int
    /// Longer status line plus headers is `malformed_response`.
    var maxHeadBytes = 64 * 1024
    /// How `https://` targets are verified and whom the client says it is; unused for `http://`.
    public var tls: TLSConfiguration
    /// Which HTTP version the client speaks (a plan's `http`).
    public var version: HTTPVersion = .auto
    /// How respondents hold connections (a plan's `connections`).
    public var sharing: ConnectionSharing = .perRequest
    /// The proxy every connection goes through, nil for none: the run's, resolved for its
    /// target from the plan, `--proxy` or the environment (a respondent's own, from the data
    /// feed, rides on its `Device`).
    public var proxy: HTTPProxy?

    /// Limits: 5 s for the whole attempt, the connect within it, and a 1 MiB body; TLS verified
    /// against the system's certificates; unless given.
    public init(
        timeout: Duration = .seconds(5), connectTimeout: Duration? = nil, maxBodyBytes: Int = 1 << 20,
        tls: TLSConfiguration = TLSConfiguration()
    ) {
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxBodyBytes = maxBodyBytes
        self.tls = tls
    }
}

/// Which HTTP version a client speaks.
public enum HTTPVersion: String, Sendable, Hashable, CaseIterable {
    /// Over TLS, h2 or http/1.1, whichever the server picks by ALPN; over plain http, HTTP/1.1
    /// (what URLSession and browsers do).
    case auto
    /// HTTP/1.1 only; over TLS, ALPN offers http/1.1 alone.
    case http1 = "1.1"
    /// HTTP/2 only: over TLS, ALPN offers h2 alone and a server that does not pick it fails
    /// every attempt as a `protocol_error`; over plain http, h2c with prior knowledge (RFC 9113 §3.3).
    case http2 = "2"

    /// The ALPN protocols a client offers over TLS, preferred first.
    var applicationProtocols: [String] {
        switch self {
        case .auto: ["h2", "http/1.1"]
        case .http1: ["http/1.1"]
        case .http2: ["h2"]
        }
    }
}

/// How respondents hold connections.
public enum ConnectionSharing: String, Sendable, Hashable, CaseIterable {
    /// Each request in flight has a connection to itself, as each device running the app has its
    /// own: kept alive after its response, then taken by the next request of a respondent on
    /// the same event loop. Under HTTP/2, one stream at a time on each connection.
    case perRequest = "per_request"
    /// Each respondent holds its own connection for its whole survey, as a phone running the app
    /// does: opened by its first request (a handshake of its own over TLS), kept while it thinks,
    /// closed when it leaves; no other respondent uses it. A server meets as many connections as
    /// there are respondents under way, thinking or not (Gatling's default, a connection per
    /// virtual user). Under HTTP/2, one stream at a time on it.
    case perRespondent = "per_respondent"
    /// Under HTTP/2, the requests of the respondents on one event loop go out as streams of as
    /// few connections as the server's limit of concurrent streams allows (what a proxy or a
    /// CDN in front of a server does, and h2load's `-m`). HTTP/1.1 cannot share: one request in
    /// flight per connection, as `perRequest`.
    case shared
}
