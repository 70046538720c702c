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

    /// What one client may hold of the server. A longer head is answered 431, a longer body
    /// 413, and the connection closed; past `maxConnections` open at once, a new connection is
    /// closed as soon as it is accepted; a connection that sends no byte and reads none for
    /// `idleTimeout`, or takes longer than `headerTimeout` from a request's first byte to its
    /// last (head and body: a slow client holds a connection no longer), is closed — under
    /// HTTP/2 too, for any stream whose headers or body are still arriving past it, timed from
    /// when the sweep first saw it so. A connection whose responses are not read stops being read once
    /// `maxUnsentBytes` wait to be sent, until they are: pipelined requests from a client that
    /// never reads cost the server that much and no more.
    public struct Limits: Sendable, Hashable {
        var maxHeadBytes = 8 * 1024
        var maxBodyBytes = 64 * 1024
        var maxConnections = 16_384
        var maxUnsentBytes = 256 * 1024
        var idleTimeout = Duration.seconds(60)
        var headerTimeout = Duration.seconds(10)

        /// Limits of 8 KiB for the request line and headers, 64 KiB for the body, 16,384
        /// connections, 256 KiB of responses unsent per connection, 60 s idle and 10 s for a
        /// request's head, unless given.
        public init(
            maxHeadBytes: Int = 8 * 1024, maxBodyBytes: Int = 64 * 1024, maxConnections: Int = 16_384,
            maxUnsentBytes: Int = 256 * 1024, idleTimeout: Duration = .seconds(60), headerTimeout: Duration = .seconds(10)
        ) {
            self.maxHeadBytes = maxHeadBytes
            self.maxBodyBytes = maxBodyBytes
            self.maxConnections = maxConnections
            self.maxUnsentBytes = maxUnsentBytes
            self.idleTimeout = idleTimeout
            self.headerTimeout = headerTimeout
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
    /// pick one. With `tls`, every connection speaks TLS with that context's certificate
    /// (https). With `credentials`, each request's `Authorization` and `Cookie` reach the
    /// handler (`HTTPServerRequest.authorization`, `.cookie`); without, they are not kept.
    /// With `keepsHost`, each request's `Host` (`:authority`) reaches the handler
    /// (`HTTPServerRequest.host`), for a server that answers only for names it knows.
    /// With `http2`, it speaks HTTP/2 too (`HTTP2ServerConnection`): `h2` by ALPN over TLS, and
    /// cleartext h2 with prior knowledge on the same port.
    /// Throws when the host does not resolve or the address cannot be bound.
    public convenience init(
        host: String, port: Int, group: EventLoopGroup, tls: TLSServerContext? = nil, limits: Limits = .init(),
        credentials: Bool = false, keepsHost: Bool = false, http2: HTTP2ServerOptions? = nil, unanswered: UnansweredHandler? = nil,
        handler: @escaping Handler
    ) throws(StartError) {
        try self.init(
            host: host, port: port, group: group, tls: tls, limits: limits, credentials: credentials, keepsHost: keepsHost, http2: http2,
            unanswered: unanswered, accept: HTTPServer.acceptSocket, handler: handler)
    }

    /// Accepts a connection on a listening socket: its descriptor, or -1 and the errno.
    typealias Acceptor = @Sendable (_ listener: Int32) -> (fd: Int32, error: Int32)

    /// `accept4` with `SOCK_NONBLOCK | SOCK_CLOEXEC`, and its errno. A connection that would
    /// take one of the descriptors kept for the rest of the process (`Sockets.intoReserve`) is
    /// closed at once and reported as `EMFILE`.
    static let acceptSocket: Acceptor = { listener in
        let fd = cepoll_accept_nonblocking(listener)
        if fd < 0 { return (fd, errno) }
        if Sockets.intoReserve(fd) {
            close(fd)
            return (-1, EMFILE)
        }
        return (fd, 0)
    }

    /// A server whose connections are accepted by `accept`: tests make it fail as an exhausted
    /// process would.
    init(
        host: String, port: Int, group: EventLoopGroup, tls: TLSServerContext? = nil, limits: Limits = .init(),
        credentials: Bool = false, keepsHost: Bool = false, http2: HTTP2ServerOptions? = nil, unanswered: UnansweredHandler? = nil,
        accept: @escaping Acceptor, handler: @escaping Handler
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
        if http2 != nil { tls?.selectHTTP2() }
        self.group = group
        let counters = ServerCounters()
        self.counters = counters
        states = group.loops.map {
            ServerLoopState(
                loop: $0, listenFD: fd, tls: tls, limits: limits, credentials: credentials, keepsHost: keepsHost, http2: http2,
                handler: handler,
                unanswered: unanswered,
                counters: counters,
                accept: accept)
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

    /// Connections closed as soon as they were accepted, `Limits.maxConnections` being open.
    public var connectionsRefused: Int { counters.refused.load(ordering: .relaxed) }

    /// Connections closed for sending nothing and reading nothing for `Limits.idleTimeout`, or
    /// for a request slower than `Limits.headerTimeout`.
    public var connectionsTimedOut: Int { counters.timedOut.load(ordering: .relaxed) }

    /// Connections whose TLS handshake failed (https only).
    public var tlsHandshakesFailed: Int { counters.tlsFailures.load(ordering: .relaxed) }

    /// Times a connection waiting to be accepted found this process out of file descriptors or
    /// memory (`EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM` at `accept`). The loop that met it stops
    /// accepting for 50 ms instead of spinning on a socket that stays readable; the connection
    /// waits in the backlog meanwhile.
    public var acceptsWithoutResources: Int { counters.acceptsWithoutResources.load(ordering: .relaxed) }

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
    let tlsFailures = Atomic<Int>(0)
    let acceptsWithoutResources = Atomic<Int>(0)
    let refused = Atomic<Int>(0)
    let timedOut = Atomic<Int>(0)
}

/// One loop's part of the server: its registration of the listening socket and its connections.
final class ServerLoopState: EventHandler, @unchecked Sendable {
    unowned let loop: EventLoop
    let listenFD: Int32
    let tls: TLSServerContext?
    let limits: HTTPServer.Limits
    /// Whether requests keep their `Authorization` and `Cookie`.
    let credentials: Bool
    /// Whether requests keep their `Host`.
    let keepsHost: Bool
    /// How HTTP/2 is spoken, when it is.
    let http2: HTTP2ServerOptions?
    let handler: HTTPServer.Handler
    package let unanswered: HTTPServer.UnansweredHandler?
    let counters: ServerCounters
    let accept: HTTPServer.Acceptor
    var connections: [ServerConnection] = []
    var http2Connections: [HTTP2ServerConnection] = []
    private var token: UInt64 = 0
    private var accepting = false
    private var stopped = false
    private var sweeping = false

    /// How long a loop stops accepting after finding the process out of descriptors.
    static let acceptPause: UInt64 = 50_000_000

    init(
        loop: EventLoop, listenFD: Int32, tls: TLSServerContext?, limits: HTTPServer.Limits, credentials: Bool = false,
        keepsHost: Bool = false, http2: HTTP2ServerOptions? = nil, handler: @escaping HTTPServer.Handler,
        unanswered: HTTPServer.UnansweredHandler?, counters: ServerCounters, accept: @escaping HTTPServer.Acceptor
    ) {
        self.loop = loop
        self.accept = accept
        self.listenFD = listenFD
        self.tls = tls
        self.limits = limits
        self.credentials = credentials
        self.keepsHost = keepsHost
        self.http2 = http2
        self.handler = handler
        self.unanswered = unanswered
        self.counters = counters
    }

    func startAccepting() {
        guard !stopped, !accepting else { return }
        guard let token = loop.register(listenFD, events: EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue, handler: self) else {
            // epoll has no room for the listening socket now: try again after a pause.
            loop.schedule(at: MonotonicClock.now() &+ Self.acceptPause) { [self] in startAccepting() }
            return
        }
        self.token = token
        accepting = true
        if !sweeping {
            sweeping = true
            sweep()
        }
    }

    /// How often a loop looks for connections past their timeouts.
    static let sweepInterval: UInt64 = 250_000_000

    /// Closes the connections past `Limits.idleTimeout` or `Limits.headerTimeout`, and comes
    /// back in `sweepInterval` until the server stops.
    private func sweep() {
        guard !stopped else { return }
        let now = MonotonicClock.now()
        for connection in connections {
            guard let timeout = connection.timeout(now: now) else { continue }
            counters.timedOut.add(1, ordering: .relaxed)
            connection.close(reset: timeout != .idle)
        }
        let idle = limits.idleTimeout.clampedNanoseconds
        let slow = limits.headerTimeout.clampedNanoseconds
        for connection in http2Connections {
            if connection.hasSlowRequest(now: now, timeout: slow) {
                // A request slower than HTTP/1.1's would be: the connection goes, as one does there.
                counters.timedOut.add(1, ordering: .relaxed)
                connection.close(reset: true)
            } else if connection.isIdle(now: now, timeout: idle) {
                counters.timedOut.add(1, ordering: .relaxed)
                connection.closeIdle()
            }
        }
        loop.schedule(at: now &+ Self.sweepInterval) { [self] in sweep() }
    }

    func handleEvents(_ events: UInt32) {
        for _ in 0..<64 {
            let (fd, error) = accept(listenFD)
            guard fd >= 0 else {
                if Sockets.isLocalResource(error, atConnect: false) { pauseAccepting() }
                return
            }
            // At the cap, the connection is closed at once: it costs a descriptor for no longer
            // than this, and the connections open go on.
            guard counters.open.load(ordering: .relaxed) < limits.maxConnections else {
                Sockets.closeWithReset(fd)
                counters.refused.add(1, ordering: .relaxed)
                continue
            }
            Sockets.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
            var connectionTLS: TLSConnection?
            if let tls {
                guard let made = try? TLSConnection(server: tls, fd: fd) else {
                    close(fd)
                    counters.tlsFailures.add(1, ordering: .relaxed)
                    continue
                }
                connectionTLS = made
            }
            counters.accepted.add(1, ordering: .relaxed)
            counters.open.add(1, ordering: .relaxed)
            let connection = ServerConnection(fd: fd, state: self, tls: connectionTLS)
            connections.appendSlotted(connection)
            connection.open()
        }
    }

    /// Out of descriptors: the listening socket stays readable, and a level-triggered loop
    /// would wake for it again at once, forever. Stop watching it for a while instead.
    private func pauseAccepting() {
        counters.acceptsWithoutResources.add(1, ordering: .relaxed)
        guard accepting else { return }
        loop.deregister(listenFD, token: token)
        accepting = false
        loop.schedule(at: MonotonicClock.now() &+ Self.acceptPause) { [self] in startAccepting() }
    }

    func remove(_ connection: ServerConnection) {
        counters.open.subtract(1, ordering: .relaxed)
        connections.removeSlotted(connection)
    }

    func stop() {
        stopped = true
        if accepting {
            loop.deregister(listenFD, token: token)
            accepting = false
        }
        for connection in connections { connection.close(reset: false, notify: false) }
        counters.open.subtract(connections.count, ordering: .relaxed)
        connections.removeAll()
        stopHTTP2()
    }
}
