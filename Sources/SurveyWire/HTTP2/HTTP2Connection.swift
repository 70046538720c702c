import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/2 connection of the client carrying the attempts of its pool's loop as streams: the
/// bytes go through an `HTTP2ClientMachine`, the socket is this class's, on the same event loop
/// as HTTP/1.1's `ClientConnection`, and set up the same way (`ConnectionSetup`: TCP, a proxy's
/// tunnel, TLS, ALPN).
///
/// Over TLS its set-up offers h2 (and http/1.1 when the plan leaves the choice to the server);
/// when it agrees on http/1.1, the connection hands its socket and the first waiting attempt to
/// a `ClientConnection` and the others back to the pool, which speaks HTTP/1.1 from then on.
///
/// Touched only on its pool's loop thread, one access at a time: its state's exclusivity goes
/// unchecked at run time (`@exclusivity(unchecked)`), as the loop's own does. It owns its
/// descriptor from `socket()` to `close()` (or to the hand-over), and is in its pool's busy
/// list while it has attempts.
final class HTTP2Connection: ConnectionSetupOwner, LoopFlush, Slotted {
    enum Phase { case settingUp, open, closed }

    /// One attempt on this connection: waiting for a stream, or sent on one.
    struct Exchange {
        var request: HTTPRequest
        var continuation: UnsafeContinuation<TransportResult, Never>
        var started: UInt64
        var expiry: UInt64
        /// A request sent again after a GOAWAY left it unprocessed (`ConnectionPool.reconnect`).
        var reconnect: Bool
    }

    let fd: Int32
    unowned let pool: ConnectionPool
    /// Its place in the pool's list of connections with attempts.
    @exclusivity(unchecked) var slot = -1
    /// Whether it is in the pool's list of connections that can take another attempt.
    @exclusivity(unchecked) var listedReady = false
    /// The most attempts it carries at once: one, or the server's limit of streams.
    let capacity: Int
    /// Whether it is one respondent's own (`Device`): never listed for others' attempts.
    let owned: Bool
    @exclusivity(unchecked) var token: UInt64 = 0
    @exclusivity(unchecked) var registered = false
    @exclusivity(unchecked) var phase = Phase.settingUp
    /// The way it goes: straight, or through a proxy's tunnel.
    let route: ConnectionRoute
    /// Its set-up while under way; nil before it begins and after it ends.
    @exclusivity(unchecked) var setup: ConnectionSetup?
    @exclusivity(unchecked) var stream: SocketStream
    @exclusivity(unchecked) var machine: HTTP2ClientMachine
    /// The header blocks of the templates it sent last, for the next requests of the same ones.
    @exclusivity(unchecked) var encodedHeads = EncodedHeads()
    @exclusivity(unchecked) var output: [UInt8] = []
    @exclusivity(unchecked) private var written = 0
    @exclusivity(unchecked) var watching: SocketStream.Wait = .readable
    /// Attempts waiting for the connection to open, or for a stream under the server's limit.
    @exclusivity(unchecked) var waiting: [Exchange] = []
    /// Attempts sent, by stream.
    @exclusivity(unchecked) var exchanges = StreamTable<Exchange>()
    /// The list a read's events are gathered in, kept between reads (`receive`).
    @exclusivity(unchecked) private var events: [HTTP2ClientMachine.Event] = []
    /// What the first attempt sent on it reports: the connection new, its connect and handshake.
    @exclusivity(unchecked) var opening: ConnectionInfo?
    let wire: WireProtocol
    @exclusivity(unchecked) var connectExpiry: UInt64 = .max
    @exclusivity(unchecked) private var resumptionKept = false
    /// Whether any byte came from the server since the connection opened.
    @exclusivity(unchecked) private var heard = false
    /// Whether a write waits for the end of the loop's turn (`scheduleFlush`).
    @exclusivity(unchecked) private var flushScheduled = false

    /// The most bytes waiting to be written before the server counts as not reading: a server
    /// that floods PINGs and never reads their acknowledgments would grow them without end.
    private static let maxUnwritten = 4 << 20
    static let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    static let writable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLOUT.rawValue

    init(fd: Int32, pool: ConnectionPool, route: ConnectionRoute, capacity: Int, owned: Bool = false) {
        self.fd = fd
        self.pool = pool
        self.route = route
        self.capacity = capacity
        self.owned = owned
        wire = pool.tls == nil ? .h2c : .h2
        stream = SocketStream(fd: fd, tls: nil)
        var settings = HTTP2ClientMachine.Settings()
        settings.maxBodyBytes = pool.maxBodyBytes
        settings.maxHeaderListSize = pool.maxHeadBytes
        machine = HTTP2ClientMachine(settings: settings)
    }

    /// Whether another attempt may join: open or opening, not going away, under its capacity and
    /// the server's limit of streams.
    var hasCapacity: Bool {
        phase != .closed && !machine.goingAway && machine.hasStreamIDs
            && exchanges.count + waiting.count < min(capacity, machine.streamLimit)
    }

    /// Whether it carries attempts, sent or waiting.
    var isBusy: Bool { !exchanges.isEmpty || !waiting.isEmpty }

    var isClosed: Bool { phase == .closed }

    /// Whether a GOAWAY (either side's) means it takes no more streams: it closes itself once
    /// it has carried its last.
    var isGoingAway: Bool { machine.goingAway }

    /// Takes an attempt: sent now when the connection is open and a stream is free, else when one is.
    /// Inlined into the pool's `perform`, so that the request the pool owns moves into its
    /// exchange rather than being copied there (as `ClientConnection.begin`).
    @inline(__always)
    func begin(
        _ request: consuming HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, started: UInt64, reconnect: Bool
    ) {
        let expiry = request.expiry(startedAt: started, clientTimeout: pool.timeout)
        let wasBusy = isBusy
        waiting.append(Exchange(request: request, continuation: continuation, started: started, expiry: expiry, reconnect: reconnect))
        if !wasBusy { pool.enterBusy(self) }
        switch phase {
        case .settingUp where setup == nil:
            connectExpiry = expiry
            setUp()
        case .open:
            sendWaiting()
            scheduleFlush()
        default:
            break
        }
    }

    // MARK: Streams

    /// Sends waiting requests while streams are free. Each exchange moves from `waiting` to
    /// `exchanges`, never copied: a copy retains its request's template, body, cookies and scope.
    func sendWaiting() {
        let scheme = wire == .h2 ? Self.https : Self.http
        while !waiting.isEmpty, exchanges.count < min(capacity, machine.streamLimit), machine.canOpenStream {
            // Most often the one waiting: taken from the end, not shifted out of the front
            // through the array's generic `replaceSubrange`.
            let exchange = waiting.count == 1 ? waiting.removeLast() : waiting.removeFirst()
            let id = machine.send(
                encodingHeaders: { encoder, block in
                    Self.encode(exchange.request, scheme: scheme, encoder: &encoder, heads: &encodedHeads, into: &block)
                },
                body: exchange.request.body ?? [], keepBody: exchange.request.collectBody,
                keepHeaders: exchange.request.collectHeaders, keepCookies: exchange.request.collectCookies, into: &output)
            exchanges.insertNew(exchange, for: id)
        }
    }

    private static let https = Array("https".utf8)
    private static let http = Array("http".utf8)

    // MARK: Events

    func handleEvents(_ events: UInt32) {
        switch phase {
        case .closed, .settingUp:
            return
        case .open:
            if written < output.count && (events & EPOLLOUT.rawValue != 0 || stream.tls != nil) {
                flush()
                guard phase == .open else { return }
            }
            if events & (EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0 {
                receive()
            }
        }
    }

    func watch(_ wait: SocketStream.Wait) {
        guard wait != watching, registered else { return }
        pool.loop.modify(fd, token: token, events: wait == .writable ? Self.writable : Self.readable)
        watching = wait
    }

    /// Writes at the end of the loop's turn, once, whatever the requests and answers queued
    /// meanwhile: the respondents its responses resumed send their next requests in that turn.
    private func scheduleFlush() {
        guard !flushScheduled, written < output.count else { return }
        flushScheduled = true
        pool.loop.flushBeforeWaiting(self)
    }

    func flushNow() {
        flushScheduled = false
        flush()
    }

    func flush() {
        guard phase == .open, written < output.count else { return }
        switch stream.write(output, from: &written) {
        case .done:
            // What a turn of the loop writes is kept for the next; a large body's buffer is not.
            output.removeAll(keepingCapacity: output.capacity <= 16 << 10)
            written = 0
            watch(.readable)
        case .wait(let wait):
            guard output.count - written <= Self.maxUnwritten else {
                return failAll(.protocolError, detail: "the server did not read \(output.count - written) bytes it was sent")
            }
            watch(wait)
        case .failed(let failure):
            fail(failure)
        }
    }

    private func receive() {
        let buffer = pool.loop.readBuffer
        while phase == .open {
            switch stream.read(into: buffer) {
            case .bytes(let count):
                if !heard {
                    heard = true
                    // An HTTP/1.x server answers the preface with a status line: say so, rather
                    // than a frame size the status line's bytes would make.
                    if UnsafeRawBufferPointer(start: buffer.baseAddress, count: count).starts(with: Self.http1Answer) {
                        return failAll(
                            .protocolError, detail: "the server answered in HTTP/1.x: it does not speak HTTP/2 over cleartext (h2c)")
                    }
                }
                // Taken for the read and put back after: an event handled may reach this connection again.
                var events = self.events
                self.events = []
                do throws(HTTP2Failure) {
                    try machine.receive(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), into: &output, events: &events)
                } catch {
                    machine.goAway(for: error).write(into: &output)
                    var ignored = written
                    _ = stream.write(output, from: &ignored)
                    return failAll(.protocolError, detail: error.description)
                }
                // Moved out of the list, not copied: a copy would retain a response's body and fields.
                if events.count > 1 { events.reverse() }
                while let event = events.popLast() { handle(event) }
                self.events = events
                guard phase == .open else { return }
                sendWaiting()
                scheduleFlush()
                if stream.tls == nil && count < buffer.count { return }
            case .wait(let wait):
                // A write waiting on a readable socket (TLS) keeps its wish.
                if written >= output.count { watch(wait) }
                return
            case .closed:
                // Closed without a GOAWAY: whatever it carries fails (a server going away in
                // good order says which streams it left, and those go out again).
                return failAll(.connectionClosed, detail: nil)
            case .failed(let failure):
                return fail(failure)
            }
        }
    }

    private func handle(_ event: consuming HTTP2ClientMachine.Event) {
        switch consume event {
        case .response(let id, let response):
            guard let exchange = exchanges.removeValue(forKey: id) else { return }
            complete(exchange, response)
        case .reset(let id, let error):
            guard let exchange = exchanges.removeValue(forKey: id) else { return }
            // REFUSED_STREAM: the server did not process the request (§8.7), safe to send again.
            end(
                exchange,
                .failure(
                    .streamReset, requestSent: error != .refusedStream, serviceTime: elapsed(exchange),
                    detail: "the server reset the stream: \(error)", connection: info(for: exchange)))
        case .tooLarge(let id):
            guard let exchange = exchanges.removeValue(forKey: id) else { return }
            end(exchange, .failure(.responseTooLarge, requestSent: true, serviceTime: elapsed(exchange), connection: info(for: exchange)))
        case .goAway(_, let error, let unprocessed):
            pool.noLongerReady(self)
            // Streams the server did not process go out again on a new connection, once; the
            // requests still waiting never left and start over there too.
            var again: [Exchange] = []
            for id in unprocessed {
                guard let exchange = exchanges.removeValue(forKey: id) else { continue }
                if exchange.reconnect {
                    end(
                        exchange,
                        .failure(
                            .connectionClosed, requestSent: false, serviceTime: elapsed(exchange),
                            detail: "the server went away (GOAWAY \(error)) before processing the request, twice",
                            connection: info(for: exchange)))
                } else {
                    again.append(exchange)
                }
            }
            let queued = waiting
            waiting = []
            if !isBusy { pool.leaveBusy(self) }
            if !again.isEmpty { pool.reconnect(again.map { ($0.request, $0.continuation, $0.started) }) }
            for exchange in queued {
                pool.restart(exchange.request, exchange.continuation, started: exchange.started, reconnect: exchange.reconnect)
            }
            if exchanges.isEmpty { close() }
        }
    }

    /// The connection as the attempt saw it: new for the first attempt sent on it, reused after.
    private func info(for exchange: Exchange) -> ConnectionInfo {
        // Most often reused: nothing of `opening` to copy out and clear.
        guard var info = opening else { return ConnectionInfo(reused: true, reconnected: exchange.reconnect, wire: wire) }
        opening = nil
        info.reconnected = exchange.reconnect
        return info
    }

    private func complete(_ exchange: consuming Exchange, _ response: consuming HTTP2ClientMachine.Response) {
        // Ended when the loop woke with its last byte (`EventLoop.wokeAt`), as over HTTP/1.1.
        let woke = pool.loop.wokeAt.pointee
        let serviceTime = woke >= exchange.started ? Duration.nanoseconds(Int64(woke &- exchange.started)) : elapsed(exchange)
        if let tls = stream.tls, !resumptionKept, let resumed = tls.resumption() {
            pool.keep(resumed, for: exchange.request.device)
            resumptionKept = true
        }
        // The request's flags read where they lie: a copy of the request would retain its parts.
        let collectHeaders = exchange.request.collectHeaders
        let collectCookies = exchange.request.collectCookies
        var retryAfter: String?
        var setCookies: [[UInt8]] = []
        var headers: [HTTPHeader] = []
        if !response.headers.isEmpty {
            // Read once, not at every field: each read of a static goes through its `swift_once`.
            let retryAfterName = Self.retryAfterName
            let setCookieName = Self.setCookieName
            if collectHeaders { headers.reserveCapacity(response.headers.count) }
            for field in response.headers {
                if HPACK.sameBytes(retryAfterName, field.name) { retryAfter = String(decoding: field.value, as: UTF8.self) }
                if collectCookies, HPACK.sameBytes(setCookieName, field.name) { setCookies.append(field.value) }
                if collectHeaders {
                    headers.append(
                        HTTPHeader(name: String(decoding: field.name, as: UTF8.self), value: String(decoding: field.value, as: UTF8.self)))
                }
            }
        }
        let connection = info(for: exchange)
        var body: [UInt8] = []  // moved out of the response, not copied
        swap(&body, &response.body)
        let received = TransportResponse(
            status: response.status, body: body, retryAfter: retryAfter, setCookies: setCookies,
            headers: headers, bodyBytes: response.bodyBytes)
        end(exchange, .response(received, serviceTime: serviceTime, connection: connection))
    }

    /// Resumes an attempt's caller; the connection leaves the busy list when it was the last,
    /// and is ready again for another.
    private func end(_ exchange: consuming Exchange, _ result: consuming TransportResult) {
        if !machine.hasStreamIDs, !waiting.isEmpty {
            // Requests that will never have a stream here start over on another connection.
            let queued = waiting
            waiting = []
            for exchange in queued {
                pool.restart(exchange.request, exchange.continuation, started: exchange.started, reconnect: exchange.reconnect)
            }
        }
        if !isBusy {
            pool.leaveBusy(self)
            // Gone away, or out of stream ids, with its last stream answered: nothing more will come on it.
            if machine.goingAway || !machine.hasStreamIDs { close() }
        }
        if hasCapacity { pool.ready(self) }
        exchange.continuation.resume(returning: consume result)
        if hasCapacity { pool.startPending() }
    }

    private func elapsed(_ exchange: Exchange) -> Duration { .nanoseconds(Int64(MonotonicClock.now() &- exchange.started)) }

    func checkDeadlines(now: UInt64) {
        if phase == .settingUp, now >= connectExpiry { return failAll(.timeout, detail: setup?.timeoutDetail) }
        let expired = exchanges.keys(where: { now >= min($0.expiry, $0.request.runCutoff?.value ?? .max) })
        for id in expired.sorted() {
            guard let exchange = exchanges.removeValue(forKey: id) else { continue }
            machine.cancel(id, into: &output)
            end(exchange, .failure(.timeout, requestSent: true, serviceTime: elapsed(exchange), connection: info(for: exchange)))
        }
        var index = 0
        while index < waiting.count {
            let exchange = waiting[index]
            if now >= min(exchange.expiry, exchange.request.runCutoff?.value ?? .max) {
                waiting.remove(at: index)
                end(exchange, .failure(.timeout, requestSent: false, serviceTime: elapsed(exchange), connection: nil))
            } else {
                index += 1
            }
        }
        if !expired.isEmpty { flush() }
    }

    // MARK: Ending

    private func fail(_ failure: SocketStream.Failure) {
        switch failure {
        case .system(let error): failAll(error == ECONNRESET ? .connectionReset : .connectionClosed, detail: nil)
        case .tls(let failure): failAll(.tlsHandshake, detail: failure.reason)
        }
    }

    /// Ends every attempt it carries as `kind`, and closes.
    func failAll(_ kind: ErrorKind, detail: String?) {
        let sentBefore = phase == .open
        // In its set-up, what the set-up learned so far: nothing before the TCP connect. Under
        // `http: auto` over TLS no protocol is agreed before ALPN: the attempts count as
        // HTTP/1.1's, as when the handshake fails, not as h2's, which ALPN never chose.
        if phase == .settingUp {
            opening = setup?.info
            if pool.version == .auto, pool.tls != nil { opening?.wire = .http1 }
        }
        let connection = opening
        let carried = exchanges.sorted { $0.key < $1.key }.map(\.value)
        let queued = waiting
        exchanges.removeAll()
        waiting = []
        pool.leaveBusy(self)
        pool.noLongerReady(self)
        close(cleanly: false)
        for exchange in carried {
            exchange.continuation.resume(
                returning: .failure(
                    kind, requestSent: sentBefore, serviceTime: elapsed(exchange), detail: detail, connection: info(for: exchange)))
        }
        // Attempts that never had a stream: the first reports the connection's connect and
        // handshake when it got that far, as HTTP/1.1's attempt on a connection of its own does.
        for exchange in queued {
            let info = connection == nil || opening == nil ? nil : info(for: exchange)
            exchange.continuation.resume(
                returning: .failure(kind, requestSent: false, serviceTime: elapsed(exchange), detail: detail, connection: info))
        }
    }

    /// Closes the connection; a clean close says goodbye (GOAWAY, and close_notify over TLS).
    func close(cleanly: Bool = true) {
        guard phase != .closed else { return }
        if cleanly, phase == .open {
            HTTP2Frame.goAway(lastStream: 0, error: .noError, debug: []).write(into: &output)
            var ignored = written
            _ = stream.write(output, from: &ignored)
            stream.tls?.shutdown()
        }
        setup?.cancel()
        setup = nil
        if registered { pool.loop.deregister(fd, token: token) }
        registered = false
        phase = .closed
        stream = SocketStream(fd: fd, tls: nil)
        Glibc.close(fd)
        if owned { pool.ownedClosed(self) }
    }
}
