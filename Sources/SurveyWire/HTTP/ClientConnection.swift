import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/1.1 connection of the client and the exchange it carries, once its
/// `ConnectionSetup` (TCP, a proxy's tunnel, TLS) made it; through a proxy without a tunnel
/// (plain http), its requests go in absolute form.
///
/// Touched only on its pool's loop thread, one access at a time: its state's exclusivity goes
/// unchecked at run time (`@exclusivity(unchecked)`), as the loop's own does. It owns its
/// descriptor from `socket()` to `close()`, is registered on that one loop, and is always in
/// exactly one of its pool's lists (busy or idle) or closed.
final class ClientConnection: ConnectionSetupOwner, Slotted {
    private enum Phase { case settingUp, busy, idle, closed }

    let fd: Int32
    unowned let pool: ConnectionPool
    /// Its loop's buffer for reads (`EventLoop.readBuffer`), read each response: held here, not
    /// reached through the pool and the loop, each reference of which is retained on the way.
    private let readBuffer: UnsafeMutableRawBufferPointer
    /// Its loop's reading of the clock when it woke with the events being handled
    /// (`EventLoop.wokeAt`): when a response whose last byte they brought ended.
    private let wokeAt: UnsafeMutablePointer<UInt64>
    /// The way it goes: straight, through a proxy's tunnel, or to a proxy in absolute form.
    private let route: ConnectionRoute
    /// Its set-up while under way.
    @exclusivity(unchecked) private var setup: ConnectionSetup?
    /// Its place in the pool's busy list.
    @exclusivity(unchecked) var slot = -1
    @exclusivity(unchecked) private var token: UInt64 = 0
    @exclusivity(unchecked) private var registered = false
    @exclusivity(unchecked) private var phase = Phase.settingUp
    @exclusivity(unchecked) private var stream: SocketStream
    @exclusivity(unchecked) private var parser: HTTPMessageParser
    @exclusivity(unchecked) private var output: [UInt8] = []
    @exclusivity(unchecked) private var written = 0
    @exclusivity(unchecked) private var watching: SocketStream.Wait = .readable
    @exclusivity(unchecked) private var peerClosed = false
    @exclusivity(unchecked) private var continuation: UnsafeContinuation<TransportResult, Never>?
    /// The request in flight, kept to send it again if the server turns out to have closed this
    /// kept-alive connection before reading it (`ConnectionPool.reconnect`).
    @exclusivity(unchecked) private var request: HTTPRequest?
    @exclusivity(unchecked) private var started: UInt64 = 0
    @exclusivity(unchecked) private var connectExpiry: UInt64 = 0
    @exclusivity(unchecked) private var expiry: UInt64 = 0
    /// The current attempt's connection, as the report sees it.
    @exclusivity(unchecked) private var info = ConnectionInfo.reused
    /// Whether the TLS session has been kept for resumption since the handshake.
    @exclusivity(unchecked) private var resumptionKept = false
    /// This exchange is a request sent again on a new connection (`ConnectionPool.reconnect`).
    @exclusivity(unchecked) private var reconnect = false
    /// The connection as an `HTTP2Connection` handed it over, set up and agreed on http/1.1:
    /// what its first attempt reports.
    @exclusivity(unchecked) private var handedOver: ConnectionInfo?

    /// The most request buffer an idle connection keeps.
    private static let keptOutputCapacity = 16 * 1024
    private static let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    private static let writable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLOUT.rawValue

    /// A new connection of `fd` along `route`, set up by its first exchange.
    init(fd: Int32, pool: ConnectionPool, route: ConnectionRoute) {
        self.fd = fd
        self.pool = pool
        readBuffer = pool.loop.readBuffer
        wokeAt = pool.loop.wokeAt
        self.route = route
        stream = SocketStream(fd: fd, tls: nil)
        parser = HTTPMessageParser(role: .response, maxHeadBytes: pool.maxHeadBytes, maxBodyBytes: pool.maxBodyBytes)
        parser.replay = pool.headReplay
    }

    /// A connection an `HTTP2Connection`'s set-up made, which agreed on http/1.1: the socket,
    /// its registration (now this connection's) and what its first attempt reports.
    convenience init(fd: Int32, pool: ConnectionPool, established: ConnectionSetup.Established) {
        self.init(fd: fd, pool: pool, route: established.route)
        take(established)
        handedOver = established.info
    }

    /// Takes the socket's stream and registration from its set-up.
    private func take(_ established: ConnectionSetup.Established) {
        setup = nil
        stream = established.stream
        token = established.token
        registered = true
        watching = established.watching
        pool.loop.rehandle(token, to: self)
    }

    /// Starts an exchange; `reconnect` says it is a request sent again after its kept-alive
    /// connection was found closed, which its connection figures then count. Inlined into the
    /// pool's `perform`, so that the request the pool owns moves into `request`: called, the
    /// optimizer borrows the argument instead, and the request is copied in here and
    /// destroyed in the pool.
    @inline(__always)
    func begin(
        _ request: consuming HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, started: UInt64, reconnect: Bool
    ) {
        // The pool once: each read of an unowned reference checks it is alive, and retains it.
        let pool = self.pool
        self.continuation = continuation
        self.started = started
        self.reconnect = reconnect
        expiry = request.expiry(startedAt: started, clientTimeout: pool.timeout)
        connectExpiry = HTTPRequest.connectExpiry(begun: started, connectTimeout: pool.connectTimeout, expiry: expiry)
        parser.reset()
        parser.collectBody = request.collectBody
        parser.collectHeaders = request.collectHeaders
        parser.collectCookies = request.collectCookies
        parser.isHeadRequest = request.template.isHead
        encode(request)
        // Kept, moved in rather than copied, once read.
        self.request = consume request
        if phase == .idle {
            info = .reused
            phase = .busy
            flush()
        } else if var handed = handedOver {
            handedOver = nil
            handed.reconnected = reconnect
            info = handed
            phase = .busy
            flush()
        } else {
            setUp()
        }
    }

    private func encode(_ request: HTTPRequest) {
        output.removeAll(keepingCapacity: true)
        let head = request.template.head
        if let absolute = route.absoluteTarget {
            // Through a proxy without a tunnel: `GET http://host:port/path HTTP/1.1`, the
            // `Host` line kept, and the proxy's credentials when it has some.
            let pathStart = request.template.method.utf8.count + 1
            output.append(contentsOf: head[..<pathStart])
            output.append(contentsOf: absolute)
            output.append(contentsOf: head[pathStart...])
            if let line = route.proxyAuthorizationLine { output.append(contentsOf: line) }
        } else {
            output.append(contentsOf: head)
        }
        if request.template.cookie != nil || request.cookies != nil {
            output.append(contentsOf: Self.cookiePrefix)
            if let fixed = request.template.cookie {
                output.append(contentsOf: fixed)
                if request.cookies != nil { output.append(contentsOf: Self.cookieSeparator) }
            }
            if let cookies = request.cookies { output.append(contentsOf: cookies) }
            output.append(contentsOf: Self.crlf)
        }
        if let body = request.body {
            Self.withContentLengthEnd(body.count) { output.append(contentsOf: $0) }
            output.append(contentsOf: body)
        } else {
            output.append(contentsOf: Self.crlf)
        }
        written = 0
    }

    private static let cookiePrefix: [UInt8] = Array("Cookie: ".utf8)
    private static let cookieSeparator: [UInt8] = [0x3B, 0x20]
    private static let crlf: [UInt8] = [0x0D, 0x0A]

    /// Calls `body` with `Content-Length: N` and the empty line that ends the head, written on
    /// the stack: one append for the three parts, each an append of its own before.
    @inline(__always)
    static func withContentLengthEnd<Result>(_ count: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        // Forty places: the name and its colon and space (16), Int.max's nineteen digits and
        // one more, CR LF CR LF (4).
        var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &bytes) { buffer in
            buffer.storeBytes(of: UInt32(0x0A0D_0A0D).littleEndian, toByteOffset: 36, as: UInt32.self)
            let start = DecimalDigits.write(count, endingAt: 36, in: buffer) - 16
            // `Content-` and `Length: `, each as the word its eight bytes make in memory.
            buffer.storeBytes(of: UInt64(0x2D74_6E65_746E_6F43).littleEndian, toByteOffset: start, as: UInt64.self)
            buffer.storeBytes(of: UInt64(0x203A_6874_676E_654C).littleEndian, toByteOffset: start + 8, as: UInt64.self)
            return body(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    // MARK: Setting up

    /// Begins the set-up (`ConnectionSetup`); the connect timeout bounds it until the
    /// connection to the target (or the proxy's tunnel to it) is up.
    private func setUp() {
        phase = .settingUp
        connectExpiry = HTTPRequest.connectExpiry(begun: MonotonicClock.now(), connectTimeout: pool.connectTimeout, expiry: expiry)
        let setup = ConnectionSetup(fd: fd, pool: pool, route: route, device: request?.device, owner: self, counted: pool.tls != nil)
        self.setup = setup
        setup.start()
    }

    func setUpDone(_ established: ConnectionSetup.Established) {
        take(established)
        info = established.info
        info.reconnected = reconnect
        phase = .busy
        flush()
    }

    func setUpFailed(_ kind: ErrorKind, detail: String?) {
        fail(kind, detail: detail)
    }

    // MARK: Events

    func handleEvents(_ events: UInt32) {
        switch phase {
        case .closed:
            return
        case .settingUp:
            return
        case .idle:
            // An idle connection has nothing to say: the server closed it or broke the protocol —
            // unless TLS 1.3 session tickets arrived, which the connection takes in silence.
            if stream.tls != nil, case .wait = stream.read(into: readBuffer) { return }
            pool.removeIdle(self)
            close()
        case .busy:
            if events & EPOLLRDHUP.rawValue != 0 { peerClosed = true }
            // TLS may need to read before it can write, so a pending write is tried on any event.
            if written < output.count && (events & EPOLLOUT.rawValue != 0 || stream.tls != nil) {
                flush()
                guard phase == .busy else { return }
            }
            if events & (EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0 {
                receive()
            }
        }
    }

    private func watch(_ wait: SocketStream.Wait) {
        guard wait != watching, registered else { return }
        pool.loop.modify(fd, token: token, events: wait == .writable ? Self.writable : Self.readable)
        watching = wait
    }

    private func flush() {
        switch stream.write(output, from: &written) {
        case .done: watch(.readable)
        case .wait(let wait): watch(wait)
        case .failed(let failure): fail(failure)
        }
    }

    private func receive() {
        let buffer = readBuffer
        while phase == .busy {
            switch stream.read(into: buffer) {
            case .bytes(let count):
                switch parser.parse(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count)) {
                case .needMore:
                    // Through TLS, more may wait inside the TLS connection with no event to say so.
                    if stream.tls == nil { return }
                case .complete(let consumed):
                    // Bytes after the response, or a close already seen: not safe to reuse.
                    return complete(reusable: parser.keepAlive && consumed == count && !peerClosed)
                case .failed(let failure):
                    return fail(Self.kind(for: failure), detail: parser.describe(failure))
                }
            case .wait(let wait):
                return watch(wait)
            case .closed:
                switch parser.finishAtEndOfStream() {
                case .complete: return complete(reusable: false)
                case .failed(let failure): return fail(Self.kind(for: failure), detail: parser.describe(failure))
                case .needMore: return fail(.connectionClosed)
                }
            case .failed(let failure):
                return fail(failure)
            }
        }
    }

    /// Whether an idle connection can carry another request: the peer has not closed it as far
    /// as epoll has told. A close still on its way costs no failure: the request is sent again on
    /// a new connection (`ConnectionPool.reconnect`), so no syscall is spent here on every request.
    func isStillOpen() -> Bool {
        phase == .idle && !peerClosed
    }

    func checkDeadline(now: UInt64) {
        // A run ended early after the attempt began moves its expiry to the grace after the end.
        if let cutoff = request?.runCutoff?.value, cutoff < expiry { expiry = cutoff }
        if now >= expiry || (setup?.isConnecting == true && now >= connectExpiry) {
            fail(.timeout, detail: setup?.timeoutDetail)
        }
    }

    // MARK: Ending an attempt

    private func complete(reusable: Bool) {
        // The attempt ended with its last byte, which was there when the loop woke to read it:
        // not after the responses handled before it, nor after this one is boxed below. (A
        // response ended some other way than by the events of a wake-up is timed now.)
        let woke = wokeAt.pointee
        let serviceTime = woke >= started ? Duration.nanoseconds(Int64(woke &- started)) : elapsed()
        let pool = self.pool
        pool.leaveBusy(self)
        // The request is done with: moved out, not copied and then dropped.
        var request: HTTPRequest?
        swap(&request, &self.request)
        let device = request?.device
        // TLS 1.3 sends its tickets after the handshake: the first response has brought them, as
        // a rule; until a response has, each asks again.
        if let tls = stream.tls, !resumptionKept, let session = tls.resumption() {
            pool.keep(session, for: device)
            resumptionKept = true
        }
        let response = TransportResponse(
            status: parser.status, body: parser.collectBody || !parser.body.isEmpty ? parser.takeBody() : [],
            retryAfter: parser.retryAfter.map { String(decoding: $0, as: UTF8.self) }, setCookies: parser.takeSetCookies(),
            headers: parser.headers, bodyBytes: parser.bodyBytes)
        let outcome = TransportResult.response(response, serviceTime: serviceTime, connection: info)
        let continuation = self.continuation
        self.continuation = nil
        // A large request's buffer is not kept for the connection's life: the next one starts small.
        if output.capacity > Self.keptOutputCapacity { output = [] }
        // A respondent's own waits for that respondent's next request alone; one whose
        // respondent has left closes.
        if reusable, pool.keepIdle(self, for: device) { phase = .idle } else { close() }
        if let continuation { continuation.resume(returning: consume outcome) }
        // An attempt waiting for a connection's set-up to end may take this one now.
        if reusable { pool.startPending() }
    }

    private func fail(_ failure: SocketStream.Failure) {
        switch failure {
        case .system(let error): fail(error == ECONNRESET ? .connectionReset : .connectionClosed)
        case .tls(let failure): fail(.tlsHandshake, detail: failure.reason)
        }
    }

    func fail(_ kind: ErrorKind, detail: String? = nil) {
        pool.leaveBusy(self)
        // The server closed this kept-alive connection before any byte of a response: it closed
        // an idle connection as the request left, and did not take the request up. Go's net/http
        // sends it again the same way; a reset, or a close after part of a response, stays a failure.
        if kind == .connectionClosed, phase == .busy, info.reused, !reconnect, !parser.hasStarted, let request, let continuation {
            self.continuation = nil
            self.request = nil
            close(cleanly: false)
            return pool.reconnect(request, continuation, started: started)
        }
        let sent = phase == .busy && written > 0
        var connection: ConnectionInfo? = info
        if phase == .settingUp {
            // What the set-up learned so far: nothing before the TCP connect.
            connection = setup?.info
            connection?.reconnected = reconnect
        }
        let outcome = TransportResult.failure(kind, requestSent: sent, serviceTime: elapsed(), detail: detail, connection: connection)
        let continuation = self.continuation
        self.continuation = nil
        request = nil
        close(cleanly: false)
        continuation?.resume(returning: outcome)
    }

    private func elapsed() -> Duration {
        .nanoseconds(Int64(MonotonicClock.now() &- started))
    }

    /// Closes the connection; a clean close of an https connection says goodbye (close_notify).
    func close(cleanly: Bool = true) {
        guard phase != .closed else { return }
        if cleanly, phase == .idle || phase == .busy { stream.tls?.shutdown() }
        setup?.cancel()
        setup = nil
        if registered { pool.loop.deregister(fd, token: token) }
        registered = false
        phase = .closed
        stream = SocketStream(fd: fd, tls: nil)
        Glibc.close(fd)
    }

    private static func kind(for failure: HTTPMessageParser.Failure) -> ErrorKind {
        switch failure {
        case .malformed, .headTooLarge: .malformedResponse
        case .bodyTooLarge: .responseTooLarge
        case .closed: .connectionClosed
        }
    }
}
