/// Sends one HTTP request and says what came of it. The engine does not care which client runs
/// behind it: the event-loop client (`HTTPClient`, http and https), or a scripted fake
/// in tests.
public protocol Transport: Sendable {
    /// One attempt: a response, or the reason there is none. Never throws: a failure is data.
    func send(_ request: HTTPRequest) async -> TransportOutcome

    /// Closes idle connections and releases resources. No `send` may follow.
    func shutdown() async
}

/// A request ready to send: a prebuilt head (request line and fixed headers) and a body.
public struct HTTPRequest: Sendable {
    /// The part of a request that does not change between attempts: method, path, headers.
    public final class Template: Sendable {
        let method: String
        /// The path on the server, base path included.
        let path: String
        let headers: [HTTPHeader]
        /// `METHOD path HTTP/1.1`, `Host`, the fixed headers, each line ending in CRLF; the
        /// `Content-Length` line and the blank line are added per request.
        let head: [UInt8]

        /// Builds the head once: the request line with `path` (base path included), `Host` for
        /// `target` (its port left out when it is the scheme's default), survey-bot's
        /// `User-Agent` unless `headers` has one, then `headers` in order.
        ///
        /// Throws, and builds nothing, when a part would break the head's framing (`HTTPSyntax`):
        /// a method or header name that is not a token, a path that is not an origin-form
        /// request target, a host that is not one, a header value with a control character, or
        /// a header the engine owns (`Host`, `Content-Length`, `Transfer-Encoding`, `Connection`).
        public init(method: String, path: String, target: HTTPTarget, headers: [HTTPHeader] = []) throws(HTTPSyntaxError) {
            guard HTTPSyntax.isToken(method) else {
                throw HTTPSyntaxError("the method '\(method.escapingControls)' is not an HTTP token (like GET or POST)", offset: 0)
            }
            try HTTPSyntax.checkRequestTarget(path)
            try HTTPSyntax.checkHost(target.host)
            for header in headers { try HTTPSyntax.checkHeader(header) }
            self.method = method
            self.path = path
            self.headers = headers
            var head: [UInt8] = []
            head.append(contentsOf: "\(method) \(path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\n".utf8)
            if !headers.contains(where: { $0.name.lowercased() == "user-agent" }) {
                head.append(contentsOf: "User-Agent: survey-bot/\(SurveyEngine.version)\r\n".utf8)
            }
            for header in headers {
                head.append(contentsOf: "\(header.name): \(header.value)\r\n".utf8)
            }
            self.head = head
        }
    }

    let template: Template
    /// The body, or nil for none (no Content-Length is sent for a GET without a body).
    var body: [UInt8]?
    /// Whether the response body is wanted; when not, it is read and dropped.
    var collectBody: Bool
    /// A reading of the run's clock (`EngineClock`; for `HTTPClient`, `MonotonicClock`) at which
    /// the attempt ends as a `timeout` even if its own timeout has not run out: the end of the
    /// grace after a run's duration. Nil: the timeout alone.
    var cutoff: UInt64?

    /// A request of `template` with `body`. The response body is dropped unless
    /// `collectBody`: only a caller that reads it should pay for keeping it.
    public init(_ template: Template, body: [UInt8]? = nil, collectBody: Bool = false) {
        self.template = template
        self.body = body
        self.collectBody = collectBody
    }
}

/// What a server answered.
public struct TransportResponse: Sendable, Equatable {
    var status: Int
    /// The body when it was asked for, else empty.
    var body: [UInt8]
    /// The `Retry-After` header, as sent.
    var retryAfter: String?
    /// Bytes of body received, kept or not.
    var bodyBytes: Int

    init(status: Int, body: [UInt8] = [], retryAfter: String? = nil, bodyBytes: Int? = nil) {
        self.status = status
        self.body = body
        self.retryAfter = retryAfter
        self.bodyBytes = bodyBytes ?? body.count
    }
}

/// Why an attempt has no response.
public struct TransportFailure: Error, Sendable, Equatable {
    /// What went wrong, as reports and retry conditions name it.
    public var kind: ErrorKind
    /// Whether any of the request reached the wire: a request never sent is always safe to retry.
    var requestSent: Bool
    /// What a person needs to know beyond the kind, such as why a certificate was refused
    /// ("certificate has expired"); nil when the kind says it all.
    var detail: String?

    init(_ kind: ErrorKind, requestSent: Bool, detail: String? = nil) {
        self.kind = kind
        self.requestSent = requestSent
        self.detail = detail
    }
}

/// The connection an attempt went over: kept alive from an earlier attempt, or opened for this
/// one — then how long its connect and TLS handshake took, and what TLS agreed.
struct ConnectionInfo: Sendable, Hashable {
    // Kept small: a copy rides in every attempt's outcome, through frames that ten thousand
    // waiting respondents hold at once. Times are nanoseconds, 0 for none.
    private var connectNanoseconds: UInt64
    private var handshakeNanoseconds: UInt64
    /// The protocol version and cipher suite of a new https connection: "TLSv1.3 TLS_AES_256_GCM_SHA384".
    var tls: String?
    /// Whether the connection was kept alive from an earlier attempt.
    var reused: Bool
    /// Whether a new https connection resumed an earlier session (an abbreviated handshake).
    var tlsResumed: Bool
    /// Whether this new connection carries a request sent again because the kept-alive one it
    /// first went out on was found closed by the server (`ConnectionPool.reconnect`).
    var reconnected: Bool

    /// A connection kept alive from an earlier attempt.
    static let reused = ConnectionInfo(reused: true)

    init(
        reused: Bool, connectTime: Duration? = nil, tlsHandshakeTime: Duration? = nil, tls: String? = nil, tlsResumed: Bool = false,
        reconnected: Bool = false
    ) {
        self.reused = reused
        self.reconnected = reconnected
        connectNanoseconds = connectTime.map { max(1, $0.clampedNanoseconds) } ?? 0
        handshakeNanoseconds = tlsHandshakeTime.map { max(1, $0.clampedNanoseconds) } ?? 0
        self.tls = tls
        self.tlsResumed = tlsResumed
    }

    /// From the attempt's start to the TCP connection's, for a new connection.
    var connectTime: Duration? {
        connectNanoseconds == 0 ? nil : .nanoseconds(Int64(clamping: connectNanoseconds))
    }

    /// From the TCP connection to the end of the TLS handshake, for a new https connection.
    var tlsHandshakeTime: Duration? {
        get { handshakeNanoseconds == 0 ? nil : .nanoseconds(Int64(clamping: handshakeNanoseconds)) }
        set { handshakeNanoseconds = newValue.map { max(1, $0.clampedNanoseconds) } ?? 0 }
    }
}

/// One attempt's result and its service time.
public struct TransportOutcome: Sendable, Equatable {
    /// The response, or why there is none.
    public var result: Result<TransportResponse, TransportFailure>
    /// From the attempt's start (the connect, or the first byte sent on a kept-alive
    /// connection) to the last byte of the response, or to the failure.
    var serviceTime: Duration
    /// The connection the attempt went over; nil when it never had one (a name that did not
    /// resolve, no descriptor left) or the transport does not say.
    var connection: ConnectionInfo?

    /// An outcome.
    init(_ result: Result<TransportResponse, TransportFailure>, serviceTime: Duration, connection: ConnectionInfo? = nil) {
        self.result = result
        self.serviceTime = serviceTime
        self.connection = connection
    }

    /// A response that took `serviceTime`.
    static func response(_ response: TransportResponse, serviceTime: Duration, connection: ConnectionInfo? = nil)
        -> TransportOutcome
    {
        TransportOutcome(.success(response), serviceTime: serviceTime, connection: connection)
    }

    /// A failure of `kind` after `serviceTime`.
    static func failure(
        _ kind: ErrorKind, requestSent: Bool, serviceTime: Duration, detail: String? = nil, connection: ConnectionInfo? = nil
    ) -> TransportOutcome {
        TransportOutcome(
            .failure(TransportFailure(kind, requestSent: requestSent, detail: detail)), serviceTime: serviceTime, connection: connection)
    }
}
