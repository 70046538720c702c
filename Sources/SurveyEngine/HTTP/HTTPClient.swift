import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 client for `http://` targets on the project's event loops: non-blocking
/// sockets, keep-alive connections pooled per loop, requests written from prebuilt bytes,
/// responses parsed as bytes.
///
/// A task whose executor preference is one of the group's loops sends and receives on that
/// loop's thread and resumes there: no thread hop per request. Other callers are served by the
/// loops round-robin.
///
/// The host name is resolved once, when the client is made; a name that does not resolve makes
/// every attempt fail with `dns`. A connection that breaks is never retried behind the
/// caller's back: every attempt the server may have seen is one the caller sees.
public final class HTTPClient: Transport {
    let target: HTTPTarget
    /// The addresses the host resolved to; the first one is used.
    let resolution: Result<[SocketAddress], SocketAddress.ResolutionError>
    private let group: EventLoopGroup
    private let pools: [ConnectionPool]

    /// A client for `target` on the loops of `group`, with `configuration`'s limits on every
    /// attempt. Resolves the host now, blocking the caller while it does; opens no connection.
    public init(target: HTTPTarget, group: EventLoopGroup, configuration: HTTPClientConfiguration = .init()) {
        self.target = target
        self.group = group
        resolution = SocketAddress.resolve(host: target.host, port: target.port)
        let address = try? resolution.get().first
        pools = group.loops.map { ConnectionPool(loop: $0, address: address, configuration: configuration) }
    }

    /// One attempt, on an idle kept-alive connection of the caller's loop or a new one. The
    /// service time starts when the attempt does, connect included.
    public func send(_ request: HTTPRequest) async -> TransportOutcome {
        if let loop = group.current {
            let pool = pools[loop.index]
            return await withUnsafeContinuation { pool.start(request, $0) }
        }
        let loop = group.next()
        let pool = pools[loop.index]
        return await withUnsafeContinuation { continuation in
            loop.execute { pool.start(request, continuation) }
        }
    }

    /// Closes every connection; attempts still waiting end as `connection_closed`. It does its
    /// work on the loops, so call it before the group shuts down; no `send` may follow.
    public func shutdown() async {
        for (loop, pool) in zip(group.loops, pools) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                loop.execute {
                    pool.closeAll()
                    continuation.resume()
                }
            }
        }
    }

    /// Connections open on each loop, idle or busy (for tests and the progress line).
    func openConnectionCount() async -> Int {
        var total = 0
        for (loop, pool) in zip(group.loops, pools) {
            total += await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                loop.execute { continuation.resume(returning: pool.idle.count + pool.busy.count) }
            }
        }
        return total
    }
}

/// One loop's share of a client: its idle connections and the ones waiting for a response.
/// Touched only on its loop's thread.
final class ConnectionPool: @unchecked Sendable {
    unowned let loop: EventLoop
    let address: SocketAddress?
    let timeout: UInt64
    let connectTimeout: UInt64
    let maxBodyBytes: Int
    let maxHeadBytes: Int
    var idle: [ClientConnection] = []
    var busy: [ClientConnection] = []
    private var sweepScheduled = false

    /// How often deadlines are checked: a timeout fires at most this late.
    private static let sweepInterval: UInt64 = 5_000_000

    init(loop: EventLoop, address: SocketAddress?, configuration: HTTPClientConfiguration) {
        self.loop = loop
        self.address = address
        timeout = configuration.timeout.clampedNanoseconds
        connectTimeout = min(configuration.connectTimeout?.clampedNanoseconds ?? timeout, timeout)
        maxBodyBytes = configuration.maxBodyBytes
        maxHeadBytes = configuration.maxHeadBytes
    }

    func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportOutcome, Never>) {
        let now = MonotonicClock.now()
        guard let address else {
            continuation.resume(returning: .failure(.dns, requestSent: false, serviceTime: .zero))
            return
        }
        var reusable: ClientConnection?
        while let candidate = idle.popLast() {
            if candidate.isStillOpen() {
                reusable = candidate
                break
            }
            candidate.close()
        }
        let connection: ClientConnection
        if let reusable {
            connection = reusable
        } else {
            let fd = Sockets.makeTCP(family: address.family)
            guard fd >= 0 else {
                // Out of descriptors or memory: the request never left; say so as a refusal.
                continuation.resume(returning: .failure(.connectionRefused, requestSent: false, serviceTime: .zero))
                return
            }
            Sockets.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
            connection = ClientConnection(fd: fd, pool: self)
        }
        connection.busySlot = busy.count
        busy.append(connection)
        scheduleSweep()
        connection.begin(request, continuation, started: now)
    }

    /// Takes a connection off the busy list (swap-remove).
    func leaveBusy(_ connection: ClientConnection) {
        let slot = connection.busySlot
        guard slot >= 0, slot < busy.count, busy[slot] === connection else { return }
        let last = busy.removeLast()
        if slot < busy.count {
            busy[slot] = last
            last.busySlot = slot
        }
        connection.busySlot = -1
    }

    func removeIdle(_ connection: ClientConnection) {
        if let index = idle.lastIndex(where: { $0 === connection }) {
            idle.remove(at: index)
        }
    }

    private func scheduleSweep() {
        guard !sweepScheduled else { return }
        sweepScheduled = true
        loop.schedule(at: MonotonicClock.now() &+ min(Self.sweepInterval, timeout)) { [self] in
            sweepScheduled = false
            let now = MonotonicClock.now()
            var index = busy.count - 1
            while index >= 0 {
                if index < busy.count { busy[index].checkDeadline(now: now) }
                index -= 1
            }
            if !busy.isEmpty { scheduleSweep() }
        }
    }

    func closeAll() {
        for connection in idle { connection.close() }
        idle.removeAll()
        for connection in busy { connection.fail(.connectionClosed) }
        busy.removeAll()
    }
}

/// One TCP connection of the client and the exchange it carries.
final class ClientConnection: EventHandler {
    private enum Phase { case connecting, busy, idle, closed }

    let fd: Int32
    unowned let pool: ConnectionPool
    var busySlot = -1
    private var token: UInt64 = 0
    private var registered = false
    private var phase = Phase.connecting
    private var parser: HTTPMessageParser
    private var output: [UInt8] = []
    private var written = 0
    private var watchingWritable = false
    private var peerClosed = false
    private var continuation: UnsafeContinuation<TransportOutcome, Never>?
    private var started: UInt64 = 0
    private var connectDeadline: UInt64 = 0
    private var deadline: UInt64 = 0

    private static let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    private static let writable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLOUT.rawValue

    init(fd: Int32, pool: ConnectionPool) {
        self.fd = fd
        self.pool = pool
        parser = HTTPMessageParser(role: .response, maxHeadBytes: pool.maxHeadBytes, maxBodyBytes: pool.maxBodyBytes)
    }

    func begin(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportOutcome, Never>, started: UInt64) {
        self.continuation = continuation
        self.started = started
        deadline = started &+ pool.timeout
        connectDeadline = started &+ pool.connectTimeout
        parser.reset()
        parser.collectBody = request.collectBody
        parser.isHeadRequest = request.template.method == "HEAD"
        encode(request)
        if phase == .idle {
            phase = .busy
            flush()
        } else {
            connect()
        }
    }

    private func encode(_ request: HTTPRequest) {
        output.removeAll(keepingCapacity: true)
        output.append(contentsOf: request.template.head)
        if let body = request.body {
            output.append(contentsOf: Self.contentLengthPrefix)
            appendDecimal(body.count)
            output.append(contentsOf: Self.crlfCrlf)
            output.append(contentsOf: body)
        } else {
            output.append(contentsOf: Self.crlf)
        }
        written = 0
    }

    /// Appends `value` in decimal, without making a string.
    private func appendDecimal(_ value: Int) {
        let first = output.count
        var rest = value
        repeat {
            output.append(UInt8(0x30 + rest % 10))
            rest /= 10
        } while rest > 0
        output[first...].reverse()
    }

    private static let contentLengthPrefix: [UInt8] = Array("Content-Length: ".utf8)
    private static let crlfCrlf: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
    private static let crlf: [UInt8] = [0x0D, 0x0A]

    private func connect() {
        guard let address = pool.address else { return fail(.dns) }
        let result = address.withSockAddr { Glibc.connect(fd, $0, $1) }
        if result == 0 {
            token = pool.loop.register(fd, events: Self.readable, handler: self)
            registered = true
            phase = .busy
            flush()
            return
        }
        let error = errno
        guard error == EINPROGRESS else { return fail(Self.kind(forConnectError: error)) }
        token = pool.loop.register(fd, events: Self.writable, handler: self)
        registered = true
        watchingWritable = true
        phase = .connecting
    }

    func handleEvents(_ events: UInt32) {
        switch phase {
        case .closed:
            return
        case .idle:
            // An idle connection has nothing to say: the server closed it, or broke the protocol.
            pool.removeIdle(self)
            close()
        case .connecting:
            let error = Sockets.pendingError(fd)
            if error != 0 { return fail(Self.kind(forConnectError: error)) }
            guard events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 else { return }
            phase = .busy
            flush()
        case .busy:
            if events & EPOLLRDHUP.rawValue != 0 { peerClosed = true }
            if events & EPOLLOUT.rawValue != 0 && written < output.count {
                flush()
                guard phase == .busy else { return }
            }
            if events & (EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0 {
                receive()
            }
        }
    }

    private func flush() {
        switch Sockets.write(fd, output, from: &written) {
        case .done:
            break
        case .wouldBlock:
            if !watchingWritable {
                pool.loop.modify(fd, token: token, events: Self.writable)
                watchingWritable = true
            }
            return
        case .failed(let error):
            return fail(error == ECONNRESET ? .connectionReset : .connectionClosed)
        }
        if watchingWritable {
            pool.loop.modify(fd, token: token, events: Self.readable)
            watchingWritable = false
        }
    }

    private func receive() {
        let buffer = pool.loop.readBuffer
        let count = recv(fd, buffer.baseAddress, buffer.count, 0)
        if count > 0 {
            switch parser.parse(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count)) {
            case .needMore:
                return
            case .complete(let consumed):
                // Bytes after the response, or a close already seen: not safe to reuse.
                complete(reusable: parser.keepAlive && consumed == count && !peerClosed)
            case .failed(let failure):
                fail(Self.kind(for: failure))
            }
        } else if count == 0 {
            switch parser.finishAtEndOfStream() {
            case .complete: complete(reusable: false)
            case .failed(let failure): fail(Self.kind(for: failure))
            case .needMore: fail(.connectionClosed)
            }
        } else {
            let error = errno
            if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return }
            fail(error == ECONNREFUSED ? .connectionRefused : .connectionReset)
        }
    }

    /// Whether an idle connection can carry another request: the peer has not closed it (a
    /// close may still be on its way, unseen by epoll) and has sent nothing unasked.
    func isStillOpen() -> Bool {
        guard phase == .idle, !peerClosed else { return false }
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }

    func checkDeadline(now: UInt64) {
        if now >= deadline || (phase == .connecting && now >= connectDeadline) {
            fail(.timeout)
        }
    }

    private func complete(reusable: Bool) {
        pool.leaveBusy(self)
        let response = TransportResponse(
            status: parser.status, body: parser.collectBody ? parser.body : [],
            retryAfter: parser.retryAfter.map { String(decoding: $0, as: UTF8.self) })
        let outcome = TransportOutcome.response(response, serviceTime: elapsed())
        let continuation = self.continuation
        self.continuation = nil
        if reusable {
            phase = .idle
            pool.idle.append(self)
        } else {
            close()
        }
        continuation?.resume(returning: outcome)
    }

    func fail(_ kind: ErrorKind) {
        pool.leaveBusy(self)
        let sent = phase != .connecting && written > 0
        let outcome = TransportOutcome.failure(kind, requestSent: sent, serviceTime: elapsed())
        let continuation = self.continuation
        self.continuation = nil
        close()
        continuation?.resume(returning: outcome)
    }

    private func elapsed() -> Duration {
        .nanoseconds(Int64(MonotonicClock.now() &- started))
    }

    func close() {
        guard phase != .closed else { return }
        if registered { pool.loop.deregister(fd, token: token) }
        phase = .closed
        Glibc.close(fd)
    }

    private static func kind(forConnectError error: Int32) -> ErrorKind {
        switch error {
        case ETIMEDOUT: .timeout
        case ECONNRESET: .connectionReset
        default: .connectionRefused  // refused, unreachable network or host, no route
        }
    }

    private static func kind(for failure: HTTPMessageParser.Failure) -> ErrorKind {
        switch failure {
        case .malformed, .headTooLarge: .malformedResponse
        case .bodyTooLarge: .bodyTooLarge
        case .closed: .connectionClosed
        }
    }
}
