/// Why an HTTP attempt produced no usable response. A failed attempt is data, not an exception.
///
/// The raw values are the names used in reports and in plans' `retry.*.on` lists.
public enum ErrorKind: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Nothing listening: the connect was refused. The request was never sent.
    case connectionRefused = "connection_refused"
    /// The peer reset the connection (a TCP RST) before a complete response arrived.
    case connectionReset = "connection_reset"
    /// The peer closed the connection (end of stream) before a complete response arrived.
    case connectionClosed = "connection_closed"
    /// No complete response within the attempt's timeout (connect or response).
    case timeout
    /// Bytes arrived that are not HTTP/1.1 (bad status line, bad headers, bad chunking), or a
    /// body the survey contract cannot read (questions that are not a list of id/question).
    case malformedResponse = "malformed_response"
    /// A response with a status its step accepts, refused by one of the step's `expect` checks
    /// (`ResponseExpectation`): the server said no inside a success, as JSON-RPC's in-band
    /// errors do. The attempt's detail names the check and what the server sent.
    case rejected
    /// The response body exceeded the configured limit (`HTTPClientConfiguration.maxBodyBytes`,
    /// a plan's `max_body`), declared or as it arrived; the connection was closed.
    case responseTooLarge = "response_too_large"
    /// The target's host name did not resolve.
    case dns
    /// The TLS protocol failed (https targets): an alert such as a version or cipher the two ends
    /// do not share, a broken record, or the server closing during the handshake.
    case tlsHandshake = "tls_handshake"
    /// The server's certificate did not verify (https targets): untrusted, expired, not yet
    /// valid, or for another host name.
    case tlsCertificate = "tls_certificate"
    /// The server broke HTTP/2's rules (RFC 9113: a frame out of place, a header block HPACK
    /// cannot read, a window past its bounds, a flood of control frames), or did not speak the
    /// HTTP version the plan requires (`http: 2` and a server that does not pick h2). The
    /// attempt's detail says which.
    case protocolError = "protocol_error"
    /// The server reset the attempt's HTTP/2 stream (RST_STREAM); the detail names the error
    /// code (`REFUSED_STREAM`: the server did not process the request).
    case streamReset = "stream_reset"
    /// This process ran out of a local resource before the request could leave: file
    /// descriptors (`EMFILE`, `ENFILE` at `socket()`), socket memory, or local ports
    /// (`EADDRNOTAVAIL`, `EAGAIN` at `connect()`). Not the server's doing, and not an attempt
    /// sent: metrics count it apart from the attempts (`EndpointMetrics.localResource`).
    case localResource = "local_resource"
    /// A value filled into the request's head at send time — from a server's field, a
    /// capture, an answer, a data row or the environment — holds a byte no header value may
    /// (CR, LF, NUL or another control character): the request was not sent. The detail names
    /// the header and the byte, never the value.
    case invalidRequest = "invalid_request"
    /// The HTTP proxy the client goes through refused to open a tunnel: it answered `CONNECT`
    /// with a status other than 2xx (407: credentials missing or wrong; 403: the proxy forbids
    /// that host or port; 502: the proxy could not reach the target). The request never reached
    /// the target; the detail names the proxy, its status and reason phrase, and what it means.
    case proxyRefused = "proxy_refused"

    /// The kind named `name`: a raw value, or a name a kind had before (`body_too_large`), so
    /// that plans and reports that use it keep working.
    public init?(name: String) {
        guard let kind = ErrorKind(rawValue: name) ?? Self.formerNames[name] else { return nil }
        self = kind
    }

    /// Names kinds had before, by the kind they are now.
    private static let formerNames: [String: ErrorKind] = ["body_too_large": .responseTooLarge]

    /// By raw value, so that reports list the kinds in a fixed, alphabetical order.
    public static func < (lhs: ErrorKind, rhs: ErrorKind) -> Bool { lhs.rawValue < rhs.rawValue }
}
