/// Limits and timeouts of every HTTP attempt, and how https targets are trusted.
public struct HTTPClientConfiguration: Sendable, Hashable {
    /// The whole attempt, connect and TLS handshake included: no complete response by then is a
    /// `timeout`. Deadlines are checked every 5 ms, so a timeout fires up to 5 ms late.
    public var timeout: Duration
    /// The connect alone, when shorter than `timeout`; nil means `timeout`.
    public var connectTimeout: Duration?
    /// The largest response body read, in bytes (a plan's `max_body`): a longer one, declared or
    /// as it arrives, is `response_too_large` and its connection is closed. At least 1.
    public var maxBodyBytes: Int
    /// Longer status line plus headers is `malformed_response`.
    var maxHeadBytes = 64 * 1024
    /// How `https://` targets are verified and whom the client says it is; unused for `http://`.
    public var tls: TLSConfiguration

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
