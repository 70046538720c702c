/// Sends one HTTP request and says what came of it. The engine does not care which client runs
/// behind it: the event-loop client (`HTTPClient`, http and https), or a scripted fake
/// in tests.
///
/// An attempt is started, not awaited: `start` resumes a continuation the caller awaits in its
/// own frame. Ten thousand respondents waiting on their attempts at once each hold every frame
/// of their call chain in their task's memory, and a transport's own async frames (with the
/// witness that calls them through `any Transport`) added a kilobyte slab to each.
public protocol Transport: Sendable {
    /// Starts one attempt and resumes `continuation`, once, with what came of it: a response,
    /// or the reason there is none. Never throws: a failure is data. It must not block; a
    /// transport with waiting of its own to do does it in a task of its own.
    func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>)

    /// Closes idle connections and releases resources. No attempt may follow.
    func shutdown() async

    /// The respondent of `affinity` has left: its own connections close. It must not block.
    func release(_ affinity: ConnectionAffinity)
}

extension Transport {
    /// A transport without connections of its own to give respondents has nothing to close.
    public func release(_ affinity: ConnectionAffinity) {}

    /// One attempt, awaited: a response, or the reason there is none.
    public func send(_ request: HTTPRequest) async -> TransportResult {
        await withUnsafeContinuation { start(request, $0) }
    }
}

/// A request ready to send: a prebuilt head (request line and fixed headers) and a body.
public struct HTTPRequest: Sendable {
    /// The part of a request that does not change between attempts: method, path, headers.
    public final class Template: Sendable {
        package let method: String
        /// Whether the method is HEAD, whose response has no body: asked of every attempt, so
        /// answered once rather than by comparing strings each time.
        let isHead: Bool
        /// The path on the server, base path included.
        package let path: String
        let headers: [HTTPHeader]
        /// `METHOD path HTTP/1.1`, `Host`, the fixed headers but `Cookie`, each line ending in
        /// CRLF; the `Cookie` line, the `Content-Length` line and the blank line are added per
        /// request.
        package let head: [UInt8]
        /// The value of a `Cookie` header among `headers`, sent before the jar's cookies in the
        /// one `Cookie` line a request may carry (RFC 6265 §5.4).
        package let cookie: [UInt8]?
        /// Where the request goes, as a cookie jar matches it.
        package let cookieOrigin: CookieOrigin
        /// The names of the head's header lines in order — `host` first —, in lower case: with
        /// the head, the field list HTTP/2 sends (RFC 9113 §8.2), each value read in place from
        /// its line (`HTTP2Connection.encode`). Prepared once per template, and shared by the
        /// templates a respondent fills in from one recipe, whose lines have the same names.
        package let fieldNames: [[UInt8]]
        /// Why this head must not be sent: a value filled into one of its header lines holds a
        /// byte no field value may (`HTTPSyntax.fieldValueFault`). The attempt then fails as
        /// `invalid_request` and nothing leaves. Nil for a head that may go — every head built
        /// from checked parts.
        package let fault: String?

        /// Builds the head once: the request line with `path` (base path included), `Host` for
        /// `target` (its port left out when it is the scheme's default), survey-bot's
        /// `User-Agent` unless `headers` has one, then `headers` in order — but a `Cookie`
        /// header, whose value goes in the request's one `Cookie` line with the jar's cookies.
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
            isHead = method == "HEAD"
            self.path = path
            self.headers = headers
            (head, cookie) = Self.head(method: method, path: Array(path.utf8), host: target.hostHeader, headers: headers)
            cookieOrigin = CookieOrigin(host: target.host, path: path, secure: target.scheme == .https)
            fieldNames = Self.fieldNames(headers)
            fault = nil
        }

        /// A template of a head built by `head(method:path:host:headers:)` from parts already
        /// checked: a respondent's own requests, whose variables are filled in. `fieldNames` are
        /// its lines' names, as the template checked once for the same recipe has them; `fault`,
        /// why a value filled in keeps it from being sent.
        package init(
            method: String, path: String, head: [UInt8], cookie: [UInt8]?, cookieOrigin: CookieOrigin, fieldNames: [[UInt8]],
            fault: String? = nil
        ) {
            self.fault = fault
            self.method = method
            isHead = method == "HEAD"
            self.path = path
            headers = []
            self.head = head
            self.cookie = cookie
            self.cookieOrigin = cookieOrigin
            self.fieldNames = fieldNames
        }

        /// The names of the lines `head(method:path:host:headers:)` writes for `headers`, in
        /// lower case and in order: `host`, `user-agent` when survey-bot adds its own, then
        /// each header's but `cookie`.
        static func fieldNames(_ headers: [HTTPHeader]) -> [[UInt8]] {
            var names: [[UInt8]] = [Array("host".utf8)]
            if !headers.contains(where: { $0.name.lowercased() == "user-agent" }) { names.append(Array("user-agent".utf8)) }
            for header in headers where header.name.lowercased() != "cookie" { names.append(Array(header.name.lowercased().utf8)) }
            return names
        }

        /// The head's bytes, as `init(method:path:target:headers:)` describes them, unchecked,
        /// and the value of its `Cookie` headers, which go in the request's one `Cookie` line.
        static func head(method: String, path: [UInt8], host: String, headers: [HTTPHeader]) -> (head: [UInt8], cookie: [UInt8]?) {
            var head: [UInt8] = []
            head.reserveCapacity(64 + path.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 })
            head.append(contentsOf: method.utf8)
            head.append(0x20)
            head.append(contentsOf: path)
            head.append(contentsOf: " HTTP/1.1\r\nHost: \(host)\r\n".utf8)
            if !headers.contains(where: { $0.name.lowercased() == "user-agent" }) {
                head.append(contentsOf: "User-Agent: survey-bot/\(ToolVersion.text)\r\n".utf8)
            }
            var cookies: [String] = []
            for header in headers {
                if header.name.lowercased() == "cookie" {
                    cookies.append(header.value)
                    continue
                }
                head.append(contentsOf: "\(header.name): \(header.value)\r\n".utf8)
            }
            return (head, cookies.isEmpty ? nil : Array(cookies.joined(separator: "; ").utf8))
        }
    }

    package let template: Template
    /// The body, or nil for none (no Content-Length is sent for a GET without a body).
    package var body: Optional<[UInt8]>
    /// The cookies of the respondent's jar for this request (`name=value; …`), sent in the
    /// `Cookie` line after the template's own; nil for none.
    package var cookies: Optional<[UInt8]>
    /// Its own timeout in nanoseconds, connect and TLS handshake included (a step's `timeout`);
    /// 0: the client's (`HTTPClientConfiguration.timeout`).
    package var timeout: UInt64
    /// Whose request it is, for the transport: the run's, or a respondent's that holds its own
    /// connections. One reference for `runCutoff` and `affinity`, which an affinity carries both of:
    /// a request, which a waiting respondent holds in its frames, is no larger for it.
    package var scope: Optional<Scope>

    /// What `scope` may be.
    package enum Scope {
        /// A request of the run's respondents, sent on the loop's shared connections; the run's
        /// cutoff.
        case run(RunCutoff)
        /// A request of a respondent that holds its own connections, which carries the run's
        /// cutoff too.
        case respondent(ConnectionAffinity)
    }

    /// The run's cutoff, if the request belongs to a run: the attempt also ends as a `timeout`
    /// at it (the end of the run's duration, or its early end, plus the grace).
    var runCutoff: RunCutoff? {
        switch scope {
        case .run(let cutoff): cutoff
        case .respondent(let affinity): affinity.cutoff
        case nil: nil
        }
    }

    /// When an attempt of it that started at `started` ends as a `timeout` (readings of the
    /// loop's clock): its own timeout after its start (`clientTimeout` when it has none), or the
    /// run's cutoff if that comes first. The one place an attempt's expiry is worked out; a
    /// cutoff lowered afterwards is read again while the attempt waits.
    @inline(__always)
    package func expiry(startedAt started: UInt64, clientTimeout: UInt64) -> UInt64 {
        min(started &+ (timeout == 0 ? clientTimeout : timeout), runCutoff?.value ?? .max)
    }

    /// When the connect of an attempt expiring at `expiry`, begun at `begun`, ends as a
    /// `timeout`: `connectTimeout` after it began when one is set, and by `expiry` in any case.
    @inline(__always)
    static func connectExpiry(begun: UInt64, connectTimeout: UInt64?, expiry: UInt64) -> UInt64 {
        guard let connectTimeout else { return expiry }
        let (end, overflow) = begun.addingReportingOverflow(connectTimeout)
        return overflow ? expiry : min(end, expiry)
    }

    /// Whether the response body is wanted; when not, it is read and dropped.
    package var collectBody: Bool
    /// Whether the response's header fields are wanted (`TransportResponse.headers`).
    package var collectHeaders: Bool
    /// Whether the response's `Set-Cookie` fields are wanted (the respondent keeps a jar).
    package var collectCookies: Bool

    /// The respondent's claim on connections of its own (`ConnectionSharing.perRespondent`):
    /// the attempt goes out on them, or on a new one that becomes theirs. Nil: the loop's
    /// shared connections.
    var affinity: ConnectionAffinity? {
        guard case .respondent(let affinity) = scope else { return nil }
        return affinity
    }

    /// A request of `template` with `body`. The response body is dropped unless
    /// `collectBody`: only a caller that reads it should pay for keeping it.
    public init(_ template: Template, body: [UInt8]? = nil, collectBody: Bool = false) {
        self.init(template, body: body, collectBody: collectBody, collectHeaders: false, collectCookies: false, scope: nil)
    }

    /// A request with what it collects and whose it is said at once: made whole in one value,
    /// rather than made and then changed field by field (each change of a request held in a
    /// variable may copy it).
    package init(
        _ template: Template, body: [UInt8]?, collectBody: Bool, collectHeaders: Bool, collectCookies: Bool, scope: Scope?
    ) {
        // Every field set here, in the order they are stored, none with a value of its own to
        // start from (hence `Optional<…>` rather than `…?`, which a `var` starts as nil): a
        // request started with some of them set was built on the stack, copied out and
        // destroyed, a retain and a release of each of its references, every submit.
        self.template = template
        self.body = body
        cookies = nil
        timeout = 0
        self.scope = scope
        self.collectBody = collectBody
        self.collectHeaders = collectHeaders
        self.collectCookies = collectCookies
    }
}

/// What a server answered.
public struct TransportResponse: Sendable, Equatable {
    package var status: Int
    /// The body when it was asked for; else, for a status of 400 or more, its first
    /// `failureBodyLimit` bytes (the server's reason, for reports); else empty.
    package var body: [UInt8]
    /// The fields few responses carry, in one box made only for a response that has them: every
    /// outcome rides through the frames of every waiting respondent, so it stays three words.
    // `Optional<…>`, not `…?`, in the types an attempt makes: see `HTTPRequest.init`.
    private var extras: Optional<Extras>

    /// `Retry-After`, `Set-Cookie` and the collected header fields, when a response has any.
    private final class Extras: Sendable, Equatable {
        let retryAfter: String?
        let setCookies: [[UInt8]]
        let headers: [HTTPHeader]

        init(retryAfter: String?, setCookies: [[UInt8]], headers: [HTTPHeader]) {
            self.retryAfter = retryAfter
            self.setCookies = setCookies
            self.headers = headers
        }

        static func == (a: Extras, b: Extras) -> Bool {
            a.retryAfter == b.retryAfter && a.setCookies == b.setCookies && a.headers == b.headers
        }
    }

    /// The `Retry-After` header, as sent.
    package var retryAfter: String? { extras?.retryAfter }
    /// The `Set-Cookie` field values, when the request asked for them (`collectCookies`); empty
    /// otherwise, and when there are none.
    package var setCookies: [[UInt8]] { extras?.setCookies ?? [] }
    /// Every header field, in order, when the request asked for them (`collectHeaders`).
    package var headers: [HTTPHeader] { extras?.headers ?? [] }
    /// Bytes of body received, kept or not.
    package var bodyBytes: Int

    /// The most bytes kept of the body of a response whose status is 400 or more when its
    /// request did not ask for the body: enough for the server's reason, and kept only for a
    /// failure, so that a success costs nothing more.
    package static let failureBodyLimit = 4096

    /// Whether a response of `status` keeps the first bytes of its body even when its request
    /// did not ask for the body.
    @inline(__always)
    package static func keepsFailureBody(_ status: Int) -> Bool { status >= 400 }

    init(
        status: Int, body: [UInt8] = [], retryAfter: String? = nil, setCookies: [[UInt8]] = [], headers: [HTTPHeader] = [],
        bodyBytes: Int? = nil
    ) {
        self.status = status
        self.body = body
        extras =
            retryAfter == nil && setCookies.isEmpty && headers.isEmpty
            ? nil : Extras(retryAfter: retryAfter, setCookies: setCookies, headers: headers)
        self.bodyBytes = bodyBytes ?? body.count
    }
}

/// Why an attempt has no response.
public struct TransportFailure: Error, Sendable, Equatable {
    /// What went wrong, as reports and retry conditions name it.
    public var kind: ErrorKind
    /// Whether any of the request reached the wire: a request never sent is always safe to retry.
    package var requestSent: Bool
    /// What a person needs to know beyond the kind, such as why a certificate was refused
    /// ("certificate has expired"); nil when the kind says it all. (`Optional<…>`: see `HTTPRequest.init`.)
    package var detail: Optional<String>

    init(_ kind: ErrorKind, requestSent: Bool, detail: String? = nil) {
        self.kind = kind
        self.requestSent = requestSent
        self.detail = detail
    }
}

/// The connection an attempt went over: kept alive from an earlier attempt, or opened for this
/// one — then how long its connect and TLS handshake took, and what TLS agreed.
package struct ConnectionInfo: Sendable, Hashable {
    // Kept small: a copy rides in every attempt's outcome, through frames that ten thousand
    // waiting respondents hold at once. Times are nanoseconds, 0 for none.
    private var connectNanoseconds: UInt64
    private var handshakeNanoseconds: UInt64
    /// The protocol version and cipher suite of a new https connection: "TLSv1.3 TLS_AES_256_GCM_SHA384".
    /// (`Optional<…>`: see `HTTPRequest.init`.)
    package var tls: Optional<String>
    /// Whether the connection was kept alive from an earlier attempt.
    package var reused: Bool
    /// Whether a new https connection resumed an earlier session (an abbreviated handshake).
    package var tlsResumed: Bool
    /// The protocol the attempt went over.
    package var wire: WireProtocol
    /// Whether this new connection carries a request sent again because the kept-alive one it
    /// first went out on was found closed by the server (`ConnectionPool.reconnect`).
    package var reconnected: Bool

    /// A connection kept alive from an earlier attempt.
    static let reused = ConnectionInfo(reused: true)

    init(
        reused: Bool, connectTime: Duration? = nil, tlsHandshakeTime: Duration? = nil, tls: String? = nil, tlsResumed: Bool = false,
        reconnected: Bool = false, wire: WireProtocol = .http1
    ) {
        self.reused = reused
        self.wire = wire
        self.reconnected = reconnected
        connectNanoseconds = connectTime.map { max(1, $0.clampedNanoseconds) } ?? 0
        handshakeNanoseconds = tlsHandshakeTime.map { max(1, $0.clampedNanoseconds) } ?? 0
        self.tls = tls
        self.tlsResumed = tlsResumed
    }

    /// From the connect's start to the TCP connection's, for a new connection (an attempt that
    /// waited for a TLS set-up to end began earlier: its service time says so, this does not).
    package var connectTime: Duration? {
        connectNanoseconds == 0 ? nil : .nanoseconds(Int64(clamping: connectNanoseconds))
    }

    /// From the TCP connection to the end of the TLS handshake, for a new https connection.
    package var tlsHandshakeTime: Duration? {
        get { handshakeNanoseconds == 0 ? nil : .nanoseconds(Int64(clamping: handshakeNanoseconds)) }
        set { handshakeNanoseconds = newValue.map { max(1, $0.clampedNanoseconds) } ?? 0 }
    }
}

/// The protocol an attempt went over, by its ALPN name.
public enum WireProtocol: String, Sendable, Hashable, CaseIterable, Comparable {
    case http1 = "http/1.1"
    /// HTTP/2 over TLS.
    case h2
    /// HTTP/2 over cleartext TCP, with prior knowledge.
    case h2c

    /// By name, so that reports list the protocols in a fixed order.
    public static func < (lhs: WireProtocol, rhs: WireProtocol) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What came of one attempt, as the transport saw it: the response received, or why there is
/// none, with its service time and connection. (How the attempt is counted, a status or an
/// error kind, is its `AttemptOutcome`.)
public struct TransportResult: Sendable, Equatable {
    /// The response received, or why there is none.
    public var received: Result<TransportResponse, TransportFailure>
    /// From the attempt's start (the connect, or the first byte sent on a kept-alive
    /// connection) to the last byte of the response, or to the failure.
    package var serviceTime: Duration
    /// The connection the attempt went over; nil when it never had one (a name that did not
    /// resolve, no descriptor left) or the transport does not say. (`Optional<…>`: see `HTTPRequest.init`.)
    package var connection: Optional<ConnectionInfo>

    /// The response's status; nil for a failure. Read where it lies, without a copy of the
    /// response (a binding of `received`'s payload retains its body and its extras).
    package var status: Int? {
        guard case .success(let response) = received else { return nil }
        return response.status
    }

    /// The response's `Set-Cookie` values, read where they lie; empty for a failure.
    package var setCookies: [[UInt8]] {
        guard case .success(let response) = received else { return [] }
        return response.setCookies
    }

    /// A result.
    init(_ received: Result<TransportResponse, TransportFailure>, serviceTime: Duration, connection: ConnectionInfo? = nil) {
        self.received = received
        self.serviceTime = serviceTime
        self.connection = connection
    }

    /// A response that took `serviceTime`.
    static func response(_ response: TransportResponse, serviceTime: Duration, connection: ConnectionInfo? = nil)
        -> TransportResult
    {
        TransportResult(.success(response), serviceTime: serviceTime, connection: connection)
    }

    /// A failure of `kind` after `serviceTime`.
    package static func failure(
        _ kind: ErrorKind, requestSent: Bool, serviceTime: Duration, detail: String? = nil, connection: ConnectionInfo? = nil
    ) -> TransportResult {
        TransportResult(
            .failure(TransportFailure(kind, requestSent: requestSent, detail: detail)), serviceTime: serviceTime, connection: connection)
    }
}
