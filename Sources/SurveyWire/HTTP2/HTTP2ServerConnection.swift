import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/2 connection of the server — after ALPN chose `h2`, or a cleartext connection that
/// opened with the preface — taken over from the `ServerConnection` that accepted it. Its bytes
/// go through an `HTTP2ServerMachine`; each stream's request goes to the same handler as
/// HTTP/1.1's, and each action is carried out on that stream alone: a reset resets the stream,
/// a close sends GOAWAY, a delay or a trickle holds only its stream. Loop thread only.
final class HTTP2ServerConnection: EventHandler, Slotted {
    let fd: Int32
    unowned let state: ServerLoopState
    /// Its place in its loop's list of HTTP/2 connections.
    var slot = -1
    private var token: UInt64 = 0
    private var registered = false
    private var stream: SocketStream
    private var machine: HTTP2ServerMachine
    private var output: [UInt8] = []
    private var written = 0
    private var watchingWritable = false
    /// GOAWAY went out (or the client's came): the connection closes once its streams are done.
    private var closing = false
    /// Half-closed after the last frame: what still arrives is read only to be counted.
    private var draining = false
    /// A WINDOW_UPDATE is due on a timer (a slow window).
    private var windowTimer = false
    private let windowDelay: UInt64
    /// The highest stream whose request went to the handler (the machine may have read later
    /// ones in the same bytes, still to be handed over).
    private var lastHandled: UInt32 = 0
    private(set) var closed = false
    /// When a byte last went either way (monotonic ns): a connection with no stream open past
    /// the server's `Limits.idleTimeout` since then is closed (`isIdle`), as HTTP/1.1's are.
    private var lastProgress = MonotonicClock.now()
    /// When the sweep first saw each stream still receiving its request (`hasSlowRequest`).
    private var receivingSince: [UInt32: UInt64] = [:]

    /// The most bytes waiting to be written before the client counts as not reading: one that
    /// floods PINGs and never reads their acknowledgments would grow them without end.
    static let maxUnwritten = 4 << 20
    /// The most body bytes written ahead of the socket: past it, response bodies wait in their
    /// streams (shared, not copied) until the writes catch up.
    static let highWater = 256 << 10
    private static let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue

    init(fd: Int32, state: ServerLoopState, stream: SocketStream, options: HTTP2ServerOptions) {
        self.fd = fd
        self.state = state
        self.stream = stream
        var settings = HTTP2ServerMachine.Settings()
        settings.maxConcurrentStreams = options.maxConcurrentStreams
        settings.initialWindowSize = options.windowSize
        settings.returnsWindows = options.windowDelay <= .zero
        settings.maxHeaderListSize = state.limits.maxHeadBytes
        settings.maxBodyBytes = state.limits.maxBodyBytes
        settings.credentials = state.credentials
        settings.keepsHost = state.keepsHost
        settings.loopIndex = state.loop.index
        windowDelay = options.windowDelay.clampedNanoseconds
        machine = HTTP2ServerMachine(settings: settings)
    }

    /// Whether `bytes`, a connection's first, are HTTP/2's preface (`true`), something else
    /// (`false`), or too few to say (nil).
    static func startsWithPreface(_ bytes: [UInt8]) -> Bool? {
        if bytes.count < HTTP2Frame.preface.count { return HTTP2Frame.preface.starts(with: bytes) ? nil : false }
        return bytes.starts(with: HTTP2Frame.preface)
    }

    /// Starts watching the socket, sends the server's SETTINGS, and reads `received`, the bytes
    /// that came before the hand-over, and whatever TLS already holds.
    func open(received: [UInt8]) {
        guard let token = state.loop.register(fd, events: Self.readable, handler: self) else {
            return close(reset: true)
        }
        self.token = token
        registered = true
        machine.start(into: &output)
        if !received.isEmpty { take(received) }
        guard !closed else { return }
        flush()
        receive()
    }

    func handleEvents(_ events: UInt32) {
        guard !closed else { return }
        // TLS may need to read before it can write, so a pending write is tried on any event.
        if written < output.count && (events & EPOLLOUT.rawValue != 0 || stream.tls != nil) {
            flush()
            if closed { return }
        }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            receive()
        }
    }

    private func receive() {
        let buffer = state.loop.readBuffer
        while !closed {
            switch stream.read(into: buffer) {
            case .bytes(let count):
                lastProgress = MonotonicClock.now()
                take(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
                guard !closed else { return }
                flush()
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

    /// Feeds the machine what was read and carries out what it brought.
    private func take(_ bytes: some Collection<UInt8>) {
        let events: [HTTP2ServerMachine.Event]
        var reply: [UInt8] = []
        allowWrites()
        do throws(HTTP2Failure) {
            events = try machine.receive(bytes, into: &reply)
        } catch {
            // A connection error: GOAWAY with its code, then the connection ends.
            state.counters.rejected.add(1, ordering: .relaxed)
            if !draining {
                output.append(contentsOf: reply)
                machine.goAway(for: error).write(into: &output)
                var at = written
                _ = stream.write(output, from: &at)
            }
            return close(reset: false)
        }
        if draining {
            // Only counted: nothing more can be written.
            for case .unanswered(_, let request) in events { state.unanswered?(request) }
            return
        }
        append(reply)
        for event in events {
            guard !closed else { return }
            handle(event)
        }
        if !machine.settings.returnsWindows && machine.hasUnreturnedWindow && !windowTimer {
            windowTimer = true
            state.loop.schedule(at: MonotonicClock.now() &+ windowDelay) { [self] in
                windowTimer = false
                guard !closed, !draining else { return }
                var update: [UInt8] = []
                machine.returnWindows(into: &update)
                append(update)
                flush()
            }
        }
        closeIfDone()
    }

    private func handle(_ event: HTTP2ServerMachine.Event) {
        switch event {
        case .request(let id, let request):
            // Read with the bytes that brought a GOAWAY's cause: above its last stream, not processed.
            if let last = machine.goAwayLastStream, id > last {
                state.unanswered?(request)
                return
            }
            lastHandled = max(lastHandled, id)
            perform(state.handler(request), on: id)
        case .unanswered(_, let request):
            state.unanswered?(request)
        case .rejected:
            state.counters.rejected.add(1, ordering: .relaxed)
        case .cancelled:
            break  // whatever was pending for it finds it gone
        case .goAway:
            closing = true
        }
    }

    /// Carries out the handler's action on one stream.
    private func perform(_ action: HTTPServerAction, on id: UInt32) {
        var frames: [UInt8] = []
        switch action {
        case .respond(let response):
            respond(id, response.message, into: &frames)
            if response.close { goAway(nil, into: &frames) }
        case .after(let delay, let next):
            state.loop.schedule(at: MonotonicClock.now() &+ delay.clampedNanoseconds) { [self] in
                guard !closed, !draining, machine.awaitsResponse(id) else { return }
                allowWrites()
                perform(next, on: id)
                flush()
                closeIfDone()
            }
        case .trickle(let response, let interval):
            let headBytes = response.bytes.count - response.message.body.count
            trickle(id, response.message, interval: interval.clampedNanoseconds, after: UInt64(max(1, headBytes)))
        case .raw:
            machine.sendMalformed(id, into: &frames)
        case .respondAndClose(let response):
            respond(id, response.message, into: &frames)
            goAway(nil, into: &frames)
        case .reset:
            machine.reset(id, error: .internalError, into: &frames)
        case .hang:
            break  // the stream stays open and silent until the client gives up on it
        case .close:
            // GOAWAY that leaves this stream unprocessed: the last stream kept is the one before
            // it, or, when a later one already went to the handler, that one, and this stream is
            // refused on its own (REFUSED_STREAM: not processed either).
            if lastHandled > id {
                machine.reset(id, error: .refusedStream, into: &frames)
                goAway(lastHandled, into: &frames)
            } else {
                goAway(id > 2 ? id - 2 : 0, into: &frames)
            }
        }
        append(frames)
    }

    /// Answers a stream with HEADERS and DATA: `server` and `content-length` first, then the
    /// response's own fields, names lowercased, without HTTP/1.1's connection fields.
    private func respond(_ id: UInt32, _ response: HTTPServerResponse, into frames: inout [UInt8]) {
        machine.respond(id, status: response.status, fields: Self.fields(of: response), body: response.body, into: &frames)
    }

    static func fields(of response: HTTPServerResponse) -> [HPACK.Field] {
        var fields = [HPACK.Field("server", "survey-bot"), HPACK.Field("content-length", String(response.body.count))]
        for header in response.headers {
            let name = header.name.lowercased()
            switch name {
            case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "content-length": continue
            default: fields.append(HPACK.Field(name, header.value))
            }
        }
        return fields
    }

    /// A slow answer: HEADERS once as many intervals passed as HTTP/1.1's head has bytes, then
    /// the body one byte per interval — the pace of HTTP/1.1's trickle, on this stream alone.
    private func trickle(_ id: UInt32, _ response: HTTPServerResponse, interval: UInt64, after ticks: UInt64) {
        state.loop.schedule(at: MonotonicClock.now() &+ interval &* ticks) { [self] in
            guard !closed, !draining, machine.isOpen(id) else { return }
            allowWrites()
            var frames: [UInt8] = []
            machine.sendHeaders(
                id, status: response.status, fields: Self.fields(of: response), endStream: response.body.isEmpty, into: &frames)
            append(frames)
            flush()
            trickleBody(id, response.body[...], interval: interval)
        }
    }

    private func trickleBody(_ id: UInt32, _ rest: ArraySlice<UInt8>, interval: UInt64) {
        guard let byte = rest.first else { return closeIfDone() }
        state.loop.schedule(at: MonotonicClock.now() &+ interval) { [self] in
            guard !closed, !draining, machine.isOpen(id) else { return }
            allowWrites()
            var frames: [UInt8] = []
            machine.sendData(id, [byte], endStream: rest.count == 1, into: &frames)
            append(frames)
            flush()
            trickleBody(id, rest.dropFirst(), interval: interval)
        }
    }

    /// Sends GOAWAY (keeping the streams up to `lastStream`, or those processed); the requests
    /// above it that were still arriving are counted as unanswered.
    private func goAway(_ lastStream: UInt32?, into frames: inout [UInt8]) {
        closing = true
        for request in machine.goAway(lastStream: lastStream, into: &frames) { state.unanswered?(request) }
    }

    private func append(_ frames: [UInt8]) {
        guard !frames.isEmpty else { return }
        if written == output.count {
            output.removeAll(keepingCapacity: true)
            written = 0
        }
        output.append(contentsOf: frames)
    }

    private func watch(writable: Bool) {
        guard writable != watchingWritable, registered else { return }
        state.loop.modify(fd, token: token, events: writable ? Self.readable | EPOLLOUT.rawValue : Self.readable)
        watchingWritable = writable
    }

    /// Lets the machine write body bytes up to the high-water mark above what waits.
    private func allowWrites() {
        machine.writeAllowance = max(0, Self.highWater - (output.count - written))
    }

    private func flush() {
        while !closed, !draining, written < output.count {
            let before = written
            defer { if written > before { lastProgress = MonotonicClock.now() } }
            switch stream.write(output, from: &written) {
            case .done:
                watch(writable: false)
                // The writes caught up: bodies held back for them go on.
                guard machine.pendingBytes > 0 else { break }
                allowWrites()
                var frames: [UInt8] = []
                machine.resume(into: &frames)
                append(frames)
            case .wait(let wait):
                // A client that asks and never reads cannot make the server hold its answers forever.
                if output.count - written > Self.maxUnwritten { return close(reset: true) }
                return watch(writable: wait == .writable)
            case .failed:
                return close(reset: false)
            }
        }
        closeIfDone()
    }

    /// After GOAWAY, once every stream is done and written: half-closes and waits for the
    /// client's close, so that unread bytes do not turn the close into a reset that could eat
    /// the last frames.
    private func closeIfDone() {
        guard closing, !draining, !closed, machine.openStreams == 0, written == output.count else { return }
        draining = true
        stream.tls?.shutdown()
        shutdown(fd, Int32(SHUT_WR))
        state.loop.schedule(at: MonotonicClock.now() &+ 2_000_000_000) { [self] in
            close(reset: false)
        }
    }

    /// Ends an idle connection as RFC 9113 asks (§6.8): GOAWAY without error, keeping every
    /// stream processed so far, then the close once it is written and the client has closed its
    /// side (`closeIfDone`). A request the client sent as it went is left unprocessed, and the
    /// client may send it again on a new connection; closed without a word, that request would
    /// be lost in the close.
    func closeIdle() {
        var frames: [UInt8] = []
        goAway(nil, into: &frames)
        append(frames)
        flush()
        // A client that reads nothing more cannot keep it open by leaving the GOAWAY unwritten.
        state.loop.schedule(at: MonotonicClock.now() &+ 2_000_000_000) { [self] in
            if !closed { close(reset: true) }
        }
    }

    /// Whether a request has been arriving for longer than `timeout` nanoseconds: its headers
    /// waiting for CONTINUATION, or its body for the rest, since a sweep first saw it so — the
    /// HTTP/1.1 server's header timeout, per stream. A client holding streams half-open would
    /// otherwise hold their buffers for ever. Called by the sweep, every `sweepInterval`.
    func hasSlowRequest(now: UInt64, timeout: UInt64) -> Bool {
        guard !closed else { return false }
        let receiving = machine.receivingStreams
        if receiving.isEmpty {
            if !receivingSince.isEmpty { receivingSince.removeAll() }
            return false
        }
        var slow = false
        var seen: [UInt32: UInt64] = [:]
        for id in receiving {
            let since = receivingSince[id] ?? now
            seen[id] = since
            if now &- since > timeout { slow = true }
        }
        receivingSince = seen
        return slow
    }

    /// Whether it has carried nothing either way for `timeout` nanoseconds with no stream open:
    /// a held-open connection that would keep a descriptor from the clients that use theirs.
    func isIdle(now: UInt64, timeout: UInt64) -> Bool {
        !closed && !closing && !draining && machine.openStreams == 0 && written == output.count && now &- lastProgress > timeout
    }

    func close(reset: Bool, notify: Bool = true) {
        guard !closed else { return }
        closed = true
        stream = SocketStream(fd: fd, tls: nil)
        if registered { state.loop.deregister(fd, token: token) }
        if reset { Sockets.closeWithReset(fd) } else { Glibc.close(fd) }
        if notify { state.removeHTTP2(self) }
    }
}

extension ServerLoopState {
    /// Takes over a connection that turned out to speak HTTP/2 from its `ServerConnection`,
    /// which gave up its socket: `received` is what it had read of it.
    func adoptHTTP2(from connection: ServerConnection, stream: SocketStream, received: [UInt8]) {
        guard let http2 else { return }
        connections.removeSlotted(connection)
        let adopted = HTTP2ServerConnection(fd: connection.fd, state: self, stream: stream, options: http2)
        http2Connections.appendSlotted(adopted)
        adopted.open(received: received)
    }

    func removeHTTP2(_ connection: HTTP2ServerConnection) {
        counters.open.subtract(1, ordering: .relaxed)
        http2Connections.removeSlotted(connection)
    }

    /// Closes every HTTP/2 connection: the server stops.
    func stopHTTP2() {
        for connection in http2Connections { connection.close(reset: false, notify: false) }
        counters.open.subtract(http2Connections.count, ordering: .relaxed)
        http2Connections.removeAll()
    }
}
