import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// One accepted connection — TCP, and TLS over it when the server has a certificate: reads
/// requests, hands them to the handler, carries out its action. Loop thread only.
final class ServerConnection: EventHandler, Slotted {
    let fd: Int32
    unowned let state: ServerLoopState
    /// Its place in its loop's list of connections.
    var slot = -1
    private var token: UInt64 = 0
    private var registered = false
    private var stream: SocketStream
    /// The TLS handshake is not done yet: nothing is read as HTTP.
    private var handshaking: Bool
    private var parser: HTTPMessageParser
    /// Bytes read while a response was pending (pipelined requests).
    private var pending: [UInt8] = []
    private var output: [UInt8] = []
    private var written = 0
    private var watchingWritable = false
    /// A response is being prepared (delayed, trickling, or hanging): read requests wait.
    private var answering = false
    private var closeAfterWrite = false
    private var draining = false
    private(set) var closed = false
    /// The first bytes of a cleartext connection while they may still be HTTP/2's preface
    /// (a server that speaks HTTP/2); nil once it is known which protocol they are.
    private var first: [UInt8]?
    /// Not read while `Limits.maxUnsentBytes` of responses wait to be sent: a client that
    /// pipelines requests and reads no response fills its own socket, not the server's memory.
    private var paused = false
    /// When a byte last went either way (monotonic ns): a connection past
    /// `Limits.idleTimeout` since then is closed.
    private var lastProgress = MonotonicClock.now()
    /// When the first byte of the request being read arrived; nil between requests.
    private var requestStarted: UInt64?

    private static let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue

    /// A connection over `fd`, through `tls` when given (its handshake still to come).
    init(fd: Int32, state: ServerLoopState, tls: TLSConnection? = nil) {
        self.fd = fd
        self.state = state
        stream = SocketStream(fd: fd, tls: tls)
        handshaking = tls != nil
        parser = HTTPMessageParser(role: .request, maxHeadBytes: state.limits.maxHeadBytes, maxBodyBytes: state.limits.maxBodyBytes)
        parser.collectCredentials = state.credentials
        parser.collectHost = state.keepsHost
        if state.http2 != nil && tls == nil { first = [] }
    }

    /// Starts watching the connection; when epoll refuses it (the process is out of kernel
    /// memory or watches), the connection is closed, and the server goes on.
    func open() {
        guard let token = state.loop.register(fd, events: Self.readable, handler: self) else {
            return close(reset: true)
        }
        self.token = token
        registered = true
    }

    func handleEvents(_ events: UInt32) {
        guard !closed else { return }
        if handshaking {
            shakeHands()
            guard !handshaking, !closed else { return }
            if state.http2 != nil, stream.tls?.applicationProtocol == "h2" { return handOver([]) }
            // The first request may have come with the handshake's last flight.
            return receive()
        }
        // TLS may need to read before it can write, so a pending write is tried on any event.
        if written < output.count && (events & EPOLLOUT.rawValue != 0 || stream.tls != nil) {
            flush()
            if closed { return }
        }
        if paused && events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            // Not read while paused, so the hang-up would be reported again and again.
            return close(reset: false)
        }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            receive()
        }
    }

    private func shakeHands() {
        guard let tls = stream.tls else { return }
        switch tls.handshake() {
        case .done:
            handshaking = false
            watch(writable: false)
        case .wantRead:
            watch(writable: false)
        case .wantWrite:
            watch(writable: true)
        case .failed:
            state.counters.tlsFailures.add(1, ordering: .relaxed)
            close(reset: false)
        }
    }

    private func watch(writable: Bool) {
        guard writable != watchingWritable else { return }
        let reading = paused ? 0 : Self.readable
        state.loop.modify(fd, token: token, events: writable ? reading | EPOLLOUT.rawValue : reading)
        watchingWritable = writable
    }

    /// Responses waiting to be sent, in bytes.
    private var unsent: Int { output.count - written }

    /// Which timeout the connection is past at `now`, if any: reading one request for longer
    /// than `Limits.headerTimeout`, or idle (no byte either way) for `Limits.idleTimeout`. A
    /// response the server itself delays or withholds (a fault) is not the client's idling.
    func timeout(now: UInt64) -> Timeout? {
        guard !closed, !answering, !draining else { return nil }
        if let requestStarted, now &- requestStarted > state.limits.headerTimeout.clampedNanoseconds { return .slowRequest }
        guard now &- lastProgress > state.limits.idleTimeout.clampedNanoseconds else { return nil }
        return unsent > 0 ? .unread : .idle
    }

    /// Why a connection is closed for time.
    enum Timeout {
        /// No byte either way: closed cleanly, as a keep-alive connection a client may reuse
        /// expects (it sends again on a new one).
        case idle
        /// A request arriving too slowly: reset.
        case slowRequest
        /// Answers the client has not read for as long: reset, so that the kernel does not go
        /// on trying to send them.
        case unread
    }

    /// Stops reading while too much waits to be sent: the socket's buffer, then the client's
    /// own, fill instead of the server's memory. Reading goes on once everything is sent.
    private func pauseIfBacklogged() {
        guard !paused, !closed, unsent > state.limits.maxUnsentBytes else { return }
        paused = true
        state.loop.modify(fd, token: token, events: EPOLLOUT.rawValue)
        watchingWritable = true
    }

    /// Reads again once the responses waiting are sent, starting with the requests read before.
    private func resumeIfDrained() {
        guard paused, !closed, unsent == 0 else { return }
        paused = false
        state.loop.modify(fd, token: token, events: Self.readable)
        watchingWritable = false
        resumeReading()
    }

    private func receive() {
        let buffer = state.loop.readBuffer
        while !closed && !paused {
            switch stream.read(into: buffer) {
            case .bytes(let count):
                lastProgress = MonotonicClock.now()
                let bytes = UnsafeRawBufferPointer(start: buffer.baseAddress, count: count)
                if var first {
                    // Cleartext with HTTP/2 on: the preface hands the connection over.
                    first.append(contentsOf: bytes)
                    switch HTTP2ServerConnection.startsWithPreface(first) {
                    case nil: self.first = first
                    case true?: handOver(first)
                    case false?:
                        self.first = nil
                        first.withUnsafeBytes { process($0) }
                        pauseIfBacklogged()
                    }
                    return
                }
                if draining {
                    drain(bytes)
                } else if answering || !pending.isEmpty {
                    pending.append(contentsOf: bytes)
                    if pending.count > state.limits.maxHeadBytes + state.limits.maxBodyBytes { close(reset: true) }
                } else {
                    process(bytes)
                    pauseIfBacklogged()
                }
                // Through TLS, more may wait inside the TLS connection with no event to say so.
                if stream.tls == nil { return }
            case .wait(let wait):
                if wait == .writable { watch(writable: true) }
                return
            case .closed, .failed:
                return close(reset: false)
            }
        }
    }

    /// Reads what arrives after the server decided to close: whole requests are reported as
    /// unanswered, so that a count of requests received misses none.
    private func drain(_ bytes: UnsafeRawBufferPointer) {
        guard let unanswered = state.unanswered else { return }
        var offset = 0
        while offset < bytes.count {
            switch parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            case .needMore:
                return
            case .complete(let consumed):
                offset += consumed
                unanswered(readRequest())
                parser.reset()
            case .failed:
                return
            }
        }
    }

    /// The request the parser has read whole.
    private func readRequest() -> HTTPServerRequest {
        var request = HTTPServerRequest(
            method: String(decoding: parser.method, as: UTF8.self), path: String(decoding: parser.target, as: UTF8.self),
            body: parser.body, loopIndex: state.loop.index)
        request.authorization = parser.authorization.map { String(decoding: $0, as: UTF8.self) }
        request.cookie = parser.cookie.map { String(decoding: $0, as: UTF8.self) }
        request.headers = parser.headers
        if let host = parser.host { request.host = String(decoding: host, as: UTF8.self) }
        return request
    }

    /// Parses requests out of `bytes` and answers them in order; stops at one that waits.
    private func process(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count && !answering && !closed && !closeAfterWrite && unsent <= state.limits.maxUnsentBytes {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            switch parser.parse(rest) {
            case .needMore:
                if requestStarted == nil { requestStarted = MonotonicClock.now() }
                return
            case .complete(let consumed):
                requestStarted = nil
                offset += consumed
                let request = readRequest()
                let keepAlive = parser.keepAlive
                parser.reset()
                perform(state.handler(request), keepAlive: keepAlive)
            case .failed(let failure):
                reject(failure)
                return
            }
        }
        if offset < bytes.count && !closed && !closeAfterWrite {
            pending.append(contentsOf: bytes[offset...])
        }
    }

    private func reject(_ failure: HTTPMessageParser.Failure) {
        state.counters.rejected.add(1, ordering: .relaxed)
        let status =
            switch failure {
            case .headTooLarge: 431
            case .bodyTooLarge: 413
            default: 400
            }
        send(EncodedResponse(HTTPServerResponse(status: status, close: true)).bytes, close: true)
    }

    private func perform(_ action: HTTPServerAction, keepAlive: Bool) {
        switch action {
        case .respond(let response):
            send(response.bytes, close: response.close || !keepAlive)
        case .after(let delay, let next):
            answering = true
            state.loop.schedule(at: MonotonicClock.now() &+ delay.clampedNanoseconds) { [self] in
                guard !closed else { return }
                answering = false
                perform(next, keepAlive: keepAlive)
                resumeReading()
            }
        case .trickle(let response, let interval):
            answering = true
            trickle(response.bytes[...], interval: interval.clampedNanoseconds, close: response.close || !keepAlive)
        case .raw(let bytes):
            send(bytes, close: true)
        case .respondAndClose(let response):
            send(response.bytes, close: true)
        case .reset:
            close(reset: true)
        case .hang:
            answering = true  // until the client gives up and closes
        case .close:
            close(reset: false)
        }
    }

    private func trickle(_ rest: ArraySlice<UInt8>, interval: UInt64, close: Bool) {
        guard let first = rest.first else {
            answering = false
            if close { closeGracefully() } else { resumeReading() }
            return
        }
        send([first], close: false)
        state.loop.schedule(at: MonotonicClock.now() &+ interval) { [self] in
            guard !closed else { return }
            trickle(rest.dropFirst(), interval: interval, close: close)
        }
    }

    /// Goes on with requests that arrived while a response was pending.
    private func resumeReading() {
        guard !answering, !closed, !closeAfterWrite, !paused, !pending.isEmpty else { return }
        var carried: [UInt8] = []
        swap(&carried, &pending)
        carried.withUnsafeBytes { process($0) }
        pauseIfBacklogged()
    }

    private func send(_ bytes: [UInt8], close: Bool) {
        closeAfterWrite = closeAfterWrite || close
        if written == output.count {
            output.removeAll(keepingCapacity: true)
            written = 0
        }
        output.append(contentsOf: bytes)
        flush()
    }

    private func flush() {
        let before = written
        defer { if written != before { lastProgress = MonotonicClock.now() } }
        switch stream.write(output, from: &written) {
        case .done:
            if paused { resumeIfDrained() } else { watch(writable: false) }
            if closed { return }
        case .wait(let wait):
            return watch(writable: wait == .writable)
        case .failed:
            return close(reset: false)
        }
        if closeAfterWrite && !answering { closeGracefully() }
    }

    /// Half-closes after the last response and waits for the client's close, so that unread
    /// bytes in the socket do not turn the close into a reset that could eat the response.
    private func closeGracefully() {
        guard !draining, !closed else { return }
        draining = true
        stream.tls?.shutdown()
        shutdown(fd, Int32(SHUT_WR))
        parser.reset()
        if !pending.isEmpty {
            let carried = pending
            pending = []
            carried.withUnsafeBytes { drain($0) }
        }
        state.loop.schedule(at: MonotonicClock.now() &+ 2_000_000_000) { [self] in
            close(reset: false)
        }
    }

    /// Gives the socket to an `HTTP2ServerConnection` with the bytes read so far: this one is
    /// done with it.
    private func handOver(_ received: [UInt8]) {
        closed = true
        if registered { state.loop.deregister(fd, token: token) }
        registered = false
        state.adoptHTTP2(from: self, stream: stream, received: received)
    }

    func close(reset: Bool, notify: Bool = true) {
        guard !closed else { return }
        closed = true
        stream = SocketStream(fd: fd, tls: nil)
        if registered { state.loop.deregister(fd, token: token) }
        if reset { Sockets.closeWithReset(fd) } else { Glibc.close(fd) }
        if notify { state.remove(self) }
    }
}
