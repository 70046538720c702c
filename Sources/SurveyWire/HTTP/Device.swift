/// A respondent's own connections under `connections: per_respondent`, as the HTTP client keeps
/// them for its `ConnectionAffinity`: what one phone running the app holds. Made with the
/// respondent's first request; its connections stay here between its requests, out of the
/// loop's shared lists, and close when the respondent leaves (`Transport.release`).
///
/// Touched only on the thread of the loop its connections live on: the loop of its first
/// request, to which the client sends each later one.
final class Device {
    /// The loop its connections live on (its index in the group); nil before its first request.
    var loop: Int?
    /// Its HTTP/1.1 connection, idle between its requests or carrying one.
    var http1: ClientConnection?
    /// Its HTTP/2 connection, one stream at a time.
    var http2: HTTP2Connection?
    /// The TLS session of its last connection, offered when it opens another.
    var resumption: TLSResumption?
    /// The respondent's own proxy, in place of the run's (`ConnectionAffinity.proxy`).
    let proxy: HTTPProxy?
    /// Set when its respondent has left: a connection that ends an attempt afterwards closes.
    var released = false

    init(proxy: HTTPProxy?) {
        self.proxy = proxy
    }
}

extension ConnectionAffinity {
    /// The connections the HTTP client keeps for this respondent, made on first use.
    var device: Device {
        if let held, let device = held as? Device { return device }
        let device = Device(proxy: proxy)
        held = device
        return device
    }
}

extension HTTPRequest {
    /// The respondent's own connections, when it holds some (`affinity`); nil: the loop's
    /// shared connections.
    var device: Device? { affinity?.device }
}
