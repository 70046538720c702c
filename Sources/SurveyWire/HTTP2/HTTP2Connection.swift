// Why one file of this length: one connection's life on the loop — connect, TLS and ALPN (and
// the hand-over to HTTP/1.1 when the server picks it), streams in and out, timeouts, GOAWAY and
// reconnects — as one class whose state only its loop touches. Its set-up repeats
// ClientConnection's (ARCHITECTURE.md, "Known debts").

import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/2 connection of the client — TCP, and TLS over it for h2 — carrying the attempts of
/// its pool's loop as streams: the bytes go through an `HTTP2ClientMachine`, the socket is this
/// class's, on the same event loop as HTTP/1.1's `ClientConnection`.
///
/// Over TLS it also negotiates: it offers h2 (and http/1.1 when the plan leaves the choice to
/// the server) by ALPN, and when the server picks http/1.1 it hands its socket and the first
/// waiting attempt to a `ClientConnection` and the others back to the pool, which speaks
/// HTTP/1.1 from then on.
///
/// Touched only on its pool's loop thread. It owns its descriptor from `socket()` to `close()`
/// (or to the hand-over), and is in its pool's busy list while it has attempts.
final class HTTP2Connection: EventHandler, LoopFlush, Slotted {
    private enum Phase { case connecting, handshaking, open, closed }

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
    var slot = -1
    /// Whether it is in the pool's list of connections that can take another attempt.
    var listedReady = false
    /// The most attempts it carries at once: one, or the server's limit of streams.
    let capacity: Int
    /// Whether it is one respondent's own (`Device`): never listed for others' attempts.
    let owned: Bool
    private var token: UInt64 = 0
    private var registered = false
    private var phase = Phase.connecting
    private var stream: SocketStream
    private var machine: HTTP2ClientMachine
    private var output: [UInt8] = []
    private var written = 0
    private var watching: SocketStream.Wait = .readable
    /// Attempts waiting for the connection to open, or for a stream under the server's limit.
    private var waiting: [Exchange] = []
    /// Attempts sent, by stream.
    private var exchanges: [UInt32: Exchange] = [:]
    /// What the first attempt sent on it reports: the connection new, its connect and handshake.
    private var opening: ConnectionInfo?
    private let wire: WireProtocol
    private var connectedAt: UInt64 = 0
    private var connectExpiry: UInt64 = .max
    private var resumptionKept = false
    /// Whether any byte came from the server since the connection opened.
    private var heard = false
    /// Whether a write waits for the end of the loop's turn (`scheduleFlush`).
    private var flushScheduled = false
    /// Whether the pool counts it among the TLS connections being set up (`maxSettingUp`).
    private var settingUp: Bool

    /// The most bytes waiting to be written before the server counts as not reading: a server
    /// that floods PINGs and never reads their acknowledgments would grow them without end.
    private static let maxUnwritten = 4 << 20
    private static let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    private static let writable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLOUT.rawValue

    init(fd: Int32, pool: ConnectionPool, capacity: Int, owned: Bool = false) {
        self.fd = fd
        self.pool = pool
        self.capacity = capacity
        self.owned = owned
        wire = pool.tls == nil ? .h2c : .h2
        stream = SocketStream(fd: fd, tls: nil)
        var settings = HTTP2ClientMachine.Settings()
        settings.maxBodyBytes = pool.maxBodyBytes
        settings.maxHeaderListSize = pool.maxHeadBytes
        machine = HTTP2ClientMachine(settings: settings)
        settingUp = pool.tls != nil
    }

    /// Its set-up ended, well or not: the pool may let another begin.
    private func setUpEnded() {
        guard settingUp else { return }
        settingUp = false
        pool.setUpEnded()
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
    func begin(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, started: UInt64, reconnect: Bool) {
        let expiry = request.expiry(startedAt: started, timeout: pool.timeout)
        let wasBusy = isBusy
        waiting.append(Exchange(request: request, continuation: continuation, started: started, expiry: expiry, reconnect: reconnect))
        if !wasBusy { pool.enterBusy(self) }
        switch phase {
        case .connecting where !registered:
            connectExpiry = expiry
            connect()
        case .open:
            sendWaiting()
            scheduleFlush()
        default:
            break
        }
    }

    // MARK: Connecting

    /// When the connect began: an attempt that waited for a connection's set-up to end
    /// (`ConnectionPool.maxSettingUp`) began before it.
    private var connectBegan: UInt64 = 0

    private func connect() {
        connectBegan = MonotonicClock.now()
        connectExpiry = min(connectBegan &+ pool.connectTimeout, connectExpiry)
        switch pool.beginConnect(fd) {
        case .connected:
            guard watch(Self.readable) else { return }
            connected()
        case .inProgress:
            guard watch(Self.writable) else { return }
            watching = .writable
        case .failed(let kind, let detail):
            failAll(kind, detail: detail)
        }
    }

    private func watch(_ events: UInt32) -> Bool {
        guard let token = pool.loop.register(fd, events: events, handler: self) else {
            let error = errno
            failAll(.localResource, detail: Sockets.describe(error, call: "epoll_ctl()"))
            return false
        }
        self.token = token
        registered = true
        return true
    }

    private func connected() {
        connectedAt = MonotonicClock.now()
        let connectTime = Duration.nanoseconds(Int64(connectedAt &- connectBegan))
        opening = ConnectionInfo(reused: false, connectTime: connectTime, wire: wire)
        guard let context = pool.tls else { return open() }
        let tls: TLSConnection
        do throws(TLSFailure) {
            tls = try TLSConnection(client: context, fd: fd, host: pool.host, resuming: pool.resumption(for: waiting.first?.request.device))
        } catch {
            return failAll(.tlsHandshake, detail: error.reason)
        }
        stream = SocketStream(fd: fd, tls: tls)
        phase = .handshaking
        shakeHands(tls)
    }

    private func shakeHands(_ tls: TLSConnection) {
        switch tls.handshake() {
        case .done:
            opening?.tlsHandshakeTime = .nanoseconds(Int64(MonotonicClock.now() &- connectedAt))
            opening?.tls = "\(tls.protocolVersion) \(tls.cipher ?? "")"
            opening?.tlsResumed = tls.resumed
            let agreed = tls.applicationProtocol
            setUpEnded()
            guard agreed == "h2" else { return declined(agreed) }
            open()
        case .wantRead:
            watch(.readable)
        case .wantWrite:
            watch(.writable)
        case .failed(let failure):
            // A server without h2 that answers an offer of h2 alone with an alert: the plan's
            // version, not TLS, is what failed.
            if pool.version == .http2, failure.reason.contains("no application protocol") {
                return failAll(
                    .protocolError, detail: "the server does not speak HTTP/2 over TLS: offered h2 by ALPN, it refused (\(failure.reason))")
            }
            // Under `auto` no protocol was agreed: HTTP/2 had no part, and the attempts count as
            // HTTP/1.1's, as when the server picks it.
            if pool.version == .auto { opening?.wire = .http1 }
            failAll(failure.kind == .certificate ? .tlsCertificate : .tlsHandshake, detail: failure.reason)
        }
    }

    /// TLS agreed on another protocol than h2: HTTP/1.1 takes over when the plan allows it;
    /// when it requires HTTP/2, every attempt fails.
    private func declined(_ agreed: String?) {
        guard pool.version == .auto else {
            let chosen = agreed.map { "chose \($0)" } ?? "chose no protocol"
            return failAll(.protocolError, detail: "the server does not speak HTTP/2 over TLS: offered h2 by ALPN, it \(chosen)")
        }
        pool.negotiated = .http1
        // Its attempts ran out of time during the handshake: nothing to hand over.
        guard !waiting.isEmpty else { return failAll(.connectionClosed, detail: nil) }
        var handed = waiting
        waiting = []
        exchanges = [:]
        pool.leaveBusy(self)
        pool.noLongerReady(self)
        if registered {
            pool.loop.deregister(fd, token: token)
            registered = false
        }
        phase = .closed
        let first = handed.removeFirst()
        var info = opening ?? ConnectionInfo(reused: false)
        info.reconnected = first.reconnect
        info.wire = .http1
        pool.adopt(fd: fd, stream: stream, info: info, first)
        stream = SocketStream(fd: fd, tls: nil)
        // The others never left: they go out on HTTP/1.1 connections of their own, their start kept.
        for exchange in handed {
            pool.restart(exchange.request, exchange.continuation, started: exchange.started, reconnect: exchange.reconnect)
        }
    }

    /// The connection speaks HTTP/2: the preface and SETTINGS, then the waiting requests.
    private func open() {
        phase = .open
        // The latest handshake says what the server speaks now.
        pool.negotiated = wire
        machine.start(into: &output)
        sendWaiting()
        flush()
    }

    // MARK: Streams

    /// Sends waiting requests while streams are free.
    private func sendWaiting() {
        var sentCount = 0
        let scheme = wire == .h2 ? Self.https : Self.http
        while sentCount < waiting.count, exchanges.count < min(capacity, machine.streamLimit), machine.canOpenStream {
            let exchange = waiting[sentCount]
            sentCount += 1
            let request = exchange.request
            let id = machine.send(
                encodingHeaders: { encoder, block in Self.encode(request, scheme: scheme, encoder: &encoder, into: &block) },
                body: request.body ?? [], keepBody: request.collectBody,
                keepHeaders: request.collectHeaders || request.collectCookies, into: &output)
            exchanges[id] = exchange
        }
        if sentCount > 0 { waiting.removeFirst(sentCount) }
    }

    private static let https = Array("https".utf8)
    private static let http = Array("http".utf8)

    /// Encodes a request's header fields for HTTP/2 from the HTTP/1.1 head its template holds,
    /// straight from its bytes: the pseudo-header fields, then every header with its name in
    /// lower case (RFC 9113 §8.2), `Host` made `:authority`; the cookies in one `cookie` field,
    /// and the body's `content-length`. The path, the cookies and the length change from request
    /// to request and stay out of the dynamic table.
    static func encode(_ request: HTTPRequest, scheme: [UInt8], encoder: inout HPACKEncoder, into block: inout [UInt8]) {
        let template = request.template
        let head = template.head
        switch template.method {
        case "GET": encoder.encode(name: methodName, value: getMethod, indexing: .incremental, into: &block)
        case "POST": encoder.encode(name: methodName, value: postMethod, indexing: .incremental, into: &block)
        default: encoder.encode(name: methodName, value: Array(template.method.utf8), indexing: .incremental, into: &block)
        }
        encoder.encode(name: schemeName, value: scheme, indexing: .incremental, into: &block)
        // Past the request line, each line is `Name: value` and ends in CRLF (`HTTPRequest.Template`);
        // `Host` comes first.
        var index = (head.firstIndex(of: 0x0A) ?? head.count - 1) + 1
        var name: [UInt8] = []
        var pathWritten = false
        while index < head.count {
            guard let colon = head[index...].firstIndex(of: 0x3A), let end = head[colon...].firstIndex(of: 0x0D) else { break }
            var valueStart = colon + 1
            while valueStart < end, head[valueStart] == 0x20 { valueStart += 1 }
            name.removeAll(keepingCapacity: true)
            for byte in head[index..<colon] { name.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
            if name == hostName {
                encoder.encode(name: authorityName, value: head[valueStart..<end], indexing: .incremental, into: &block)
                encoder.encode(name: pathName, value: template.path.utf8, indexing: .without, into: &block)
                pathWritten = true
            } else {
                encoder.encode(name: name, value: head[valueStart..<end], indexing: .incremental, into: &block)
            }
            index = end + 2
        }
        if !pathWritten { encoder.encode(name: pathName, value: template.path.utf8, indexing: .without, into: &block) }
        if template.cookie != nil || request.cookies != nil {
            var cookie = template.cookie ?? []
            if let cookies = request.cookies {
                if !cookie.isEmpty { cookie += [0x3B, 0x20] }
                cookie += cookies
            }
            encoder.encode(name: cookieName, value: cookie, indexing: .without, into: &block)
        }
        if let body = request.body {
            var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
            )
            withUnsafeMutableBytes(of: &digits) { buffer in
                var rest = body.count
                var start = buffer.count
                repeat {
                    start -= 1
                    buffer[start] = UInt8(0x30 + rest % 10)
                    rest /= 10
                } while rest > 0
                encoder.encode(
                    name: contentLengthName, value: UnsafeRawBufferPointer(rebasing: buffer[start...]), indexing: .without, into: &block)
            }
        }
    }

    private static let methodName = Array(":method".utf8)
    private static let getMethod = Array("GET".utf8)
    private static let postMethod = Array("POST".utf8)
    private static let schemeName = Array(":scheme".utf8)
    private static let authorityName = Array(":authority".utf8)
    private static let pathName = Array(":path".utf8)
    private static let hostName = Array("host".utf8)
    private static let cookieName = Array("cookie".utf8)
    private static let contentLengthName = Array("content-length".utf8)
    private static let http1Answer = Array("HTTP/1.".utf8)
    private static let retryAfterName = Array("retry-after".utf8)
    private static let setCookieName = Array("set-cookie".utf8)

    // MARK: Events

    func handleEvents(_ events: UInt32) {
        switch phase {
        case .closed:
            return
        case .connecting:
            let error = Sockets.pendingError(fd)
            if error != 0, case .failed(let kind, let detail) = ConnectionPool.connectFailure(error) {
                return failAll(kind, detail: detail)
            }
            guard events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 else { return }
            phase = .handshaking
            connected()
        case .handshaking:
            if let tls = stream.tls { shakeHands(tls) }
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

    private func watch(_ wait: SocketStream.Wait) {
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

    private func flush() {
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
                let events: [HTTP2ClientMachine.Event]
                do throws(HTTP2Failure) {
                    events = try machine.receive(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), into: &output)
                } catch {
                    machine.goAway(for: error).write(into: &output)
                    var ignored = written
                    _ = stream.write(output, from: &ignored)
                    return failAll(.protocolError, detail: error.description)
                }
                for event in events { handle(event) }
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

    private func handle(_ event: HTTP2ClientMachine.Event) {
        switch event {
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
        var info = opening ?? ConnectionInfo(reused: true, wire: wire)
        opening = nil
        info.reconnected = exchange.reconnect
        return info
    }

    private func complete(_ exchange: Exchange, _ response: HTTP2ClientMachine.Response) {
        let serviceTime = elapsed(exchange)
        if let tls = stream.tls, !resumptionKept, let resumed = tls.resumption() {
            pool.keep(resumed, for: exchange.request.device)
            resumptionKept = true
        }
        let request = exchange.request
        var retryAfter: String?
        var setCookies: [[UInt8]] = []
        var headers: [HTTPHeader] = []
        for field in response.headers {
            if field.name == Self.retryAfterName { retryAfter = String(decoding: field.value, as: UTF8.self) }
            if request.collectCookies, field.name == Self.setCookieName { setCookies.append(field.value) }
            if request.collectHeaders {
                headers.append(
                    HTTPHeader(name: String(decoding: field.name, as: UTF8.self), value: String(decoding: field.value, as: UTF8.self)))
            }
        }
        let received = TransportResponse(
            status: response.status, body: request.collectBody ? response.body : [], retryAfter: retryAfter, setCookies: setCookies,
            headers: headers, bodyBytes: response.bodyBytes)
        end(exchange, .response(received, serviceTime: serviceTime, connection: info(for: exchange)))
    }

    /// Resumes an attempt's caller; the connection leaves the busy list when it was the last,
    /// and is ready again for another.
    private func end(_ exchange: Exchange, _ result: TransportResult) {
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
        exchange.continuation.resume(returning: result)
        if hasCapacity { pool.startPending() }
    }

    private func elapsed(_ exchange: Exchange) -> Duration {
        .nanoseconds(Int64(MonotonicClock.now() &- exchange.started))
    }

    func checkDeadlines(now: UInt64) {
        if phase == .connecting || phase == .handshaking {
            if now >= connectExpiry { return failAll(.timeout, detail: nil) }
        }
        var expired: [UInt32] = []
        for (id, exchange) in exchanges {
            let expiry = min(exchange.expiry, exchange.request.lateCutoff?.value ?? .max)
            if now >= expiry { expired.append(id) }
        }
        for id in expired.sorted() {
            guard let exchange = exchanges.removeValue(forKey: id) else { continue }
            machine.cancel(id, into: &output)
            end(exchange, .failure(.timeout, requestSent: true, serviceTime: elapsed(exchange), connection: info(for: exchange)))
        }
        var index = 0
        while index < waiting.count {
            let exchange = waiting[index]
            if now >= min(exchange.expiry, exchange.request.lateCutoff?.value ?? .max) {
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
        let connection: ConnectionInfo? = phase == .connecting ? nil : opening
        let carried = exchanges.sorted { $0.key < $1.key }.map(\.value)
        let queued = waiting
        exchanges = [:]
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
        if registered { pool.loop.deregister(fd, token: token) }
        registered = false
        phase = .closed
        stream = SocketStream(fd: fd, tls: nil)
        Glibc.close(fd)
        setUpEnded()
        if owned { pool.ownedHTTP2.removeValue(forKey: ObjectIdentifier(self)) }
    }
}
