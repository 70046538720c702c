/// A respondent's own connections under `connections: per_respondent`: what one phone running
/// the app holds. Its requests carry it (`HTTPRequest.device`); the client keeps its connections
/// here between them, out of the loop's shared lists, and closes them when the respondent
/// leaves (`Transport.release`).
///
/// Touched only on the thread of the loop its connections live on: the loop of its first
/// request, to which the client sends each later one.
public final class Device: @unchecked Sendable {
    /// The run's cutoff, which the respondent's requests carry through it.
    let cutoff: RunCutoff
    /// The loop its connections live on (its index in the group); nil before its first request.
    var loop: Int?
    /// Its HTTP/1.1 connection, idle between its requests or carrying one.
    var http1: ClientConnection?
    /// Its HTTP/2 connection, one stream at a time.
    var http2: HTTP2Connection?
    /// The TLS session of its last connection, offered when it opens another.
    var resumption: TLSResumption?
    /// The respondent's own proxy (a data feed's `proxy` column), in place of the run's.
    package var proxy: HTTPProxy?
    /// Set when its respondent has left: a connection that ends an attempt afterwards closes.
    var released = false

    package init(cutoff: RunCutoff) {
        self.cutoff = cutoff
    }
}
