import CEpoll
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 server on the event loops: one listening socket watched by every loop
/// (`EPOLLEXCLUSIVE`, so a new connection wakes one loop), keep-alive, pipelining, request
/// limits, and the deliberate misbehaviour a test server needs (delays, trickled bodies,
/// resets, silence).
///
/// The handler runs on the loop that read the request and must not block.
public final class HTTPServer: Sendable {
    /// Decides what to do with one request. Called on the loop that read it, so it returns at
    /// once and never blocks: a slow answer is an action (`.after`), not a wait.
    public typealias Handler = @Sendable (HTTPServerRequest) -> HTTPServerAction
    /// Told of each request that arrived on a connection the server had already decided to
    /// close (after `Connection: close`, or a deliberate close): read, never answered.
    public typealias UnansweredHandler = @Sendable (HTTPServerRequest) -> Void

    /// Request limits: a longer head is answered 431, a longer body 413, and the connection closed.
    public struct Limits: Sendable, Hashable {
        var maxHeadBytes = 8 * 1024
        var maxBodyBytes = 64 * 1024

        /// Limits of 8 KiB for the request line and headers and 64 KiB for the body, unless given.
        public init(maxHeadBytes: Int = 8 * 1024, maxBodyBytes: Int = 64 * 1024) {
            self.maxHeadBytes = maxHeadBytes
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// Why the server could not start.
    public struct StartError: Error, Sendable, CustomStringConvertible {
        /// What failed, in the system's words: `cannot listen on 127.0.0.1:80: Permission denied`.
        public var description: String
    }

    /// The address the server listens on (with the port the system picked, for port 0).
    public let address: SocketAddress
    private let listenFD: Int32
    private let group: EventLoopGroup
    private let states: [ServerLoopState]
    private let counters: ServerCounters

    /// Binds `host:port` and starts accepting on every loop of `group`; port 0 lets the system
    /// pick one. Throws when the host does not resolve or the address cannot be bound.
    public init(
        host: String, port: Int, group: EventLoopGroup, limits: Limits = .init(), unanswered: UnansweredHandler? = nil,
        handler: @escaping Handler
    ) throws(StartError) {
        let resolved: SocketAddress
        switch SocketAddress.resolve(host: host, port: port) {
        case .success(let addresses): resolved = addresses[0]
        case .failure(let error): throw StartError(description: error.description)
        }
        let fd = Sockets.makeTCP(family: resolved.family)
        guard fd >= 0 else { throw StartError(description: "cannot open a socket: \(String(cString: strerror(errno)))") }
        Sockets.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
        let bound = resolved.withSockAddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw StartError(description: "cannot listen on \(resolved): \(reason)")
        }
        guard listen(fd, 4096) == 0, let local = SocketAddress.local(of: fd) else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw StartError(description: "cannot listen on \(resolved): \(reason)")
        }
        listenFD = fd
        address = local
        self.group = group
        let counters = ServerCounters()
        self.counters = counters
        states = group.loops.map {
            ServerLoopState(loop: $0, listenFD: fd, limits: limits, handler: handler, unanswered: unanswered, counters: counters)
        }
        for state in states {
            state.loop.execute { state.startAccepting() }
        }
    }

    /// The port the server listens on: the one the system picked when started on port 0.
    public var port: Int { address.port }

    /// Connections accepted since the start.
    public var connectionsAccepted: Int { counters.accepted.load(ordering: .relaxed) }

    /// Connections open now.
    public var connectionsOpen: Int { counters.open.load(ordering: .relaxed) }

    /// Requests refused for breaking the protocol or the limits (answered 400, 413 or 431).
    public var requestsRejected: Int { counters.rejected.load(ordering: .relaxed) }

    /// Stops accepting, closes every connection, and closes the listening socket. It does its
    /// work on the loops, so call it once, before the group shuts down.
    public func shutdown() async {
        for state in states {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                state.loop.execute {
                    state.stop()
                    continuation.resume()
                }
            }
        }
        close(listenFD)
    }
}

final class ServerCounters: Sendable {
    let accepted = Atomic<Int>(0)
    let open = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
}

/// One loop's part of the server: its registration of the listening socket and its connections.
final class ServerLoopState: EventHandler, @unchecked Sendable {
    unowned let loop: EventLoop
    let listenFD: Int32
    let limits: HTTPServer.Limits
    let handler: HTTPServer.Handler
    let unanswered: HTTPServer.UnansweredHandler?
    let counters: ServerCounters
    var connections: [ServerConnection] = []
    private var token: UInt64 = 0
    private var accepting = false

    init(
        loop: EventLoop, listenFD: Int32, limits: HTTPServer.Limits, handler: @escaping HTTPServer.Handler,
        unanswered: HTTPServer.UnansweredHandler?, counters: ServerCounters
    ) {
        self.loop = loop
        self.listenFD = listenFD
        self.limits = limits
        self.handler = handler
        self.unanswered = unanswered
        self.counters = counters
    }

    func startAccepting() {
        token = loop.register(listenFD, events: EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue, handler: self)
        accepting = true
    }

    func handleEvents(_ events: UInt32) {
        for _ in 0..<64 {
            let fd = cepoll_accept_nonblocking(listenFD)
            guard fd >= 0 else { return }
            Sockets.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
            counters.accepted.add(1, ordering: .relaxed)
            counters.open.add(1, ordering: .relaxed)
            let connection = ServerConnection(fd: fd, state: self)
            connection.slot = connections.count
            connections.append(connection)
            connection.open()
        }
    }

    func remove(_ connection: ServerConnection) {
        counters.open.subtract(1, ordering: .relaxed)
        let slot = connection.slot
        guard slot >= 0, slot < connections.count, connections[slot] === connection else { return }
        let last = connections.removeLast()
        if slot < connections.count {
            connections[slot] = last
            last.slot = slot
        }
        connection.slot = -1
    }

    func stop() {
        if accepting {
            loop.deregister(listenFD, token: token)
            accepting = false
        }
        for connection in connections { connection.close(reset: false, notify: false) }
        counters.open.subtract(connections.count, ordering: .relaxed)
        connections.removeAll()
    }
}

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
