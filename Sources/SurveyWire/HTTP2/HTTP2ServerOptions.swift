/// How an `HTTPServer` speaks HTTP/2 beside HTTP/1.1: ALPN `h2` over TLS, and cleartext h2 with
/// prior knowledge (a connection that opens with HTTP/2's preface) on the same port.
public struct HTTP2ServerOptions: Sendable, Hashable {
    /// Streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS).
    public var maxConcurrentStreams: Int
    /// Each stream's receive window (SETTINGS_INITIAL_WINDOW_SIZE), 1–2^31-1 bytes: how much of a
    /// request body the client may send before the server gives the window back. A small one
    /// makes a slow window.
    public var windowSize: Int
    /// How long the server waits before giving back the windows it read (WINDOW_UPDATE); zero
    /// gives them back as it reads. With a small `windowSize`, a request body goes out a window
    /// at a time, one per delay.
    public var windowDelay: Duration

    /// Options; the defaults allow 128 streams and RFC 9113's window of 65,535 bytes, given back
    /// at once.
    public init(maxConcurrentStreams: Int = 128, windowSize: Int = 65_535, windowDelay: Duration = .zero) {
        self.maxConcurrentStreams = maxConcurrentStreams
        self.windowSize = windowSize
        self.windowDelay = windowDelay
    }
}
