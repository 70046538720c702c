import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// One accepted connection: reads requests, hands them to the handler, carries out its action.
final class ServerConnection: EventHandler {
    let fd: Int32
    unowned let state: ServerLoopState
    var slot = -1
    private var token: UInt64 = 0
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

    private static let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue

    init(fd: Int32, state: ServerLoopState) {
        self.fd = fd
        self.state = state
        parser = HTTPMessageParser(role: .request, maxHeadBytes: state.limits.maxHeadBytes, maxBodyBytes: state.limits.maxBodyBytes)
    }

    func open() {
        token = state.loop.register(fd, events: Self.readable, handler: self)
    }

    func handleEvents(_ events: UInt32) {
        guard !closed else { return }
        if events & EPOLLOUT.rawValue != 0 && written < output.count {
            flush()
            if closed { return }
        }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            receive()
        }
    }

    private func receive() {
        let buffer = state.loop.readBuffer
        let count = recv(fd, buffer.baseAddress, buffer.count, 0)
        if count > 0 {
            if draining {
                drain(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
                return
            }
            let bytes = UnsafeRawBufferPointer(start: buffer.baseAddress, count: count)
            if answering || !pending.isEmpty {
                pending.append(contentsOf: bytes)
                if pending.count > state.limits.maxHeadBytes + state.limits.maxBodyBytes { close(reset: true) }
                return
            }
            process(bytes)
        } else if count == 0 {
            close(reset: false)
        } else {
            let error = errno
            if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return }
            close(reset: false)
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
                unanswered(
                    HTTPServerRequest(
                        method: String(decoding: parser.method, as: UTF8.self), path: String(decoding: parser.target, as: UTF8.self),
                        body: parser.body, loopIndex: state.loop.index))
                parser.reset()
            case .failed:
                return
            }
        }
    }

    /// Parses requests out of `bytes` and answers them in order; stops at one that waits.
    private func process(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count && !answering && !closed && !closeAfterWrite {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            switch parser.parse(rest) {
            case .needMore:
                return
            case .complete(let consumed):
                offset += consumed
                let request = HTTPServerRequest(
                    method: String(decoding: parser.method, as: UTF8.self), path: String(decoding: parser.target, as: UTF8.self),
                    body: parser.body, loopIndex: state.loop.index)
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
        guard !answering, !closed, !closeAfterWrite, !pending.isEmpty else { return }
        var carried: [UInt8] = []
        swap(&carried, &pending)
        carried.withUnsafeBytes { process($0) }
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
        switch Sockets.write(fd, output, from: &written) {
        case .done:
            break
        case .wouldBlock:
            if !watchingWritable {
                state.loop.modify(fd, token: token, events: Self.readable | EPOLLOUT.rawValue)
                watchingWritable = true
            }
            return
        case .failed:
            return close(reset: false)
        }
        if watchingWritable {
            state.loop.modify(fd, token: token, events: Self.readable)
            watchingWritable = false
        }
        if closeAfterWrite && !answering { closeGracefully() }
    }

    /// Half-closes after the last response and waits for the client's close, so that unread
    /// bytes in the socket do not turn the close into a reset that could eat the response.
    private func closeGracefully() {
        guard !draining, !closed else { return }
        draining = true
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

    func close(reset: Bool, notify: Bool = true) {
        guard !closed else { return }
        closed = true
        state.loop.deregister(fd, token: token)
        if reset { Sockets.closeWithReset(fd) } else { Glibc.close(fd) }
        if notify { state.remove(self) }
    }
}
