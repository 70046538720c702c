import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// The connection a set-up works for: an HTTP/1.1 `ClientConnection` or an `HTTP2Connection`,
/// which holds the attempts waiting for it and is told how the set-up ended.
protocol ConnectionSetupOwner: EventHandler {
    /// The set-up is done: the socket speaks `established.agreed`; its registration with the
    /// loop is the owner's, to take over (`EventLoop.rehandle`) and watch.
    func setUpDone(_ established: ConnectionSetup.Established)
    /// The set-up failed as `kind`; the owner closes (which ends the set-up's part).
    func setUpFailed(_ kind: ErrorKind, detail: String?)
}

/// One new connection's way from a socket to a connection of the protocol both ends agreed on,
/// whichever protocol that is — the one set-up of both `ClientConnection` and `HTTP2Connection`:
///
/// 1. TCP: a non-blocking connect to the route's address (`ConnectionRoute`: the target's, or
///    the proxy's).
/// 2. The proxy stage, when the route tunnels (https or h2c through a proxy): `CONNECT
///    host:port`, and the proxy's answer read up to its blank line and no further; a 2xx opens
///    the tunnel, anything else is `proxy_refused` (`ConnectionSetup+Tunnel.swift`).
/// 3. TLS, for https: the target's host name for SNI and the certificate check, end to end
///    through any tunnel, offering the session of the respondent's or the loop's last
///    connection for resumption.
/// 4. ALPN: h2, or http/1.1 when the plan leaves the choice to the server; `http: 2` and a
///    server that will not speak h2 is a `protocol_error`.
///
/// What it learns — connect time (through a proxy, up to the tunnel's opening), TLS time,
/// version and cipher, resumption, the wire protocol — is the `ConnectionInfo` the
/// connection's first attempt reports. The owner keeps its attempts, their expiries and the
/// connect timeout (`isConnecting`, `timeoutDetail`); the set-up keeps the socket's
/// registration with the loop until it hands it over, and the count of TLS set-ups
/// (`ConnectionPool.maxSettingUp`) until it ends. Loop thread only; the descriptor stays the
/// owner's, which closes it.
final class ConnectionSetup: EventHandler {
    /// Where a set-up is.
    enum Stage { case connecting, tunnelling, handshaking, ended }

    /// A connection set up: its stream, its registration and what its first attempt reports.
    struct Established {
        let stream: SocketStream
        /// The socket's registration with the loop, handed to the owner.
        let token: UInt64
        /// What the registration watches for now.
        let watching: SocketStream.Wait
        /// The connection new: connect and TLS times, TLS version and cipher, resumption, and
        /// the wire protocol agreed.
        let info: ConnectionInfo
        /// The protocol the connection speaks: `.http1`, `.h2` (ALPN) or `.h2c` (prior knowledge).
        let agreed: WireProtocol
        let route: ConnectionRoute
    }

    let fd: Int32
    unowned let pool: ConnectionPool
    unowned let owner: any ConnectionSetupOwner
    let route: ConnectionRoute
    /// The respondent whose connection it is, when it holds its own: whose TLS session is offered.
    private let device: Device?
    var stage = Stage.connecting
    private var token: UInt64 = 0
    private var registered = false
    private var watching = SocketStream.Wait.writable
    /// Whether the pool counts it among the TLS set-ups under way (`maxSettingUp`).
    private var counted: Bool
    private var began: UInt64 = 0
    private var stageBegan: UInt64 = 0
    /// The connection as its first attempt reports it, from the TCP connect on; nil before.
    private(set) var info: ConnectionInfo?
    private var tls: TLSConnection?
    /// The proxy's answer to `CONNECT` so far (`ConnectionSetup+Tunnel.swift`).
    var tunnelAnswer: [UInt8] = []
    var tunnelWritten = 0

    private static let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    private static let writable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLOUT.rawValue

    /// A set-up of `fd` along `route` for `owner`; `counted` when the pool counted it among
    /// the TLS set-ups under way.
    init(fd: Int32, pool: ConnectionPool, route: ConnectionRoute, device: Device?, owner: any ConnectionSetupOwner, counted: Bool) {
        self.fd = fd
        self.pool = pool
        self.route = route
        self.device = device
        self.owner = owner
        self.counted = counted
    }

    /// Whether it is still connecting, through the proxy's tunnel included: what the connect
    /// timeout bounds.
    var isConnecting: Bool { stage == .connecting || stage == .tunnelling }

    /// What a timeout in the set-up says when a proxy is on the way: which step it did not take.
    var timeoutDetail: String? {
        switch stage {
        case .connecting: route.unreachable("no connection within the connect timeout to")
        case .tunnelling: route.unreachable("no answer to CONNECT within the connect timeout from")
        case .handshaking, .ended: nil
        }
    }

    /// Begins the connect.
    func start() {
        began = MonotonicClock.now()
        guard let address = route.address else { return failed(.dns, detail: route.unresolved) }
        if address.withSockAddr({ Glibc.connect(fd, $0, $1) }) == 0 {
            guard register(Self.readable) else { return }
            watching = .readable
            return connected()
        }
        let error = errno
        guard error == EINPROGRESS else { return connectFailed(error) }
        guard register(Self.writable) else { return }
    }

    /// Registers the socket with the loop; when epoll refuses it, the set-up fails as this
    /// process's own shortage (`local_resource`), and false is returned.
    private func register(_ events: UInt32) -> Bool {
        guard let token = pool.loop.register(fd, events: events, handler: self) else {
            let error = errno
            failed(.localResource, detail: Sockets.describe(error, call: "epoll_ctl()"))
            return false
        }
        self.token = token
        registered = true
        return true
    }

    func watch(_ wait: SocketStream.Wait) {
        guard wait != watching, registered else { return }
        pool.loop.modify(fd, token: token, events: wait == .writable ? Self.writable : Self.readable)
        watching = wait
    }

    func handleEvents(_ events: UInt32) {
        switch stage {
        case .connecting:
            let error = Sockets.pendingError(fd)
            if error != 0 { return connectFailed(error) }
            guard events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 else { return }
            watch(.readable)
            connected()
        case .tunnelling:
            continueTunnel()
        case .handshaking:
            shakeHands()
        case .ended:
            return
        }
    }

    /// A connect that did not succeed: a local failure says which call and why; through a
    /// proxy, the detail names the proxy.
    private func connectFailed(_ error: Int32) {
        let kind = Self.kind(forConnectError: error)
        if kind == .localResource { return failed(kind, detail: Sockets.describe(error, call: "connect()")) }
        failed(kind, detail: route.proxy.map { "cannot connect to the proxy \($0.authority): \(String(cString: strerror(error)))" })
    }

    /// The TCP connection is up: to the proxy, which opens a tunnel first, or to the target.
    private func connected() {
        let now = MonotonicClock.now()
        info = ConnectionInfo(reused: false, connectTime: .nanoseconds(Int64(now &- began)), wire: expectedWire)
        if route.tunnelRequest != nil { return openTunnel() }
        secure()
    }

    /// The protocol the connection is set up for until ALPN says: h2 when it is offered.
    private var expectedWire: WireProtocol {
        switch (pool.tls != nil, pool.version) {
        case (true, .http1), (false, .http1), (false, .auto): .http1
        case (true, _): .h2
        case (false, .http2): .h2c
        }
    }

    /// The tunnel is open: the connect time runs to here, as far as the target is concerned.
    func tunnelOpened() {
        info = ConnectionInfo(reused: false, connectTime: .nanoseconds(Int64(MonotonicClock.now() &- began)), wire: expectedWire)
        secure()
    }

    /// For https, TLS with the target; for http, the connection is ready.
    private func secure() {
        guard let context = pool.tls else { return done(agreed: expectedWire) }
        stageBegan = MonotonicClock.now()
        do throws(TLSFailure) {
            tls = try TLSConnection(client: context, fd: fd, host: pool.host, resuming: pool.resumption(for: device))
        } catch {
            return failed(.tlsHandshake, detail: error.reason)
        }
        stage = .handshaking
        shakeHands()
    }

    private func shakeHands() {
        guard let tls else { return }
        switch tls.handshake() {
        case .done:
            info?.tlsHandshakeTime = .nanoseconds(Int64(MonotonicClock.now() &- stageBegan))
            info?.tls = "\(tls.protocolVersion) \(tls.cipher ?? "")"
            info?.tlsResumed = tls.resumed
            agree(on: tls.applicationProtocol)
        case .wantRead:
            watch(.readable)
        case .wantWrite:
            watch(.writable)
        case .failed(let failure):
            // A server without h2 that answers an offer of h2 alone with an alert: the plan's
            // version, not TLS, is what failed.
            if pool.version == .http2, failure.reason.contains("no application protocol") {
                return failed(
                    .protocolError, detail: "the server does not speak HTTP/2 over TLS: offered h2 by ALPN, it refused (\(failure.reason))")
            }
            // Under `auto` no protocol was agreed: HTTP/2 had no part, and the attempts count as
            // HTTP/1.1's, as when the server picks it.
            if pool.version == .auto { info?.wire = .http1 }
            failed(failure.kind == .certificate ? .tlsCertificate : .tlsHandshake, detail: failure.reason)
        }
    }

    /// ALPN's answer: h2, or http/1.1 when the plan allows it; under `http: 2` anything but h2
    /// fails the attempts.
    private func agree(on chosen: String?) {
        guard pool.version != .http1 else { return done(agreed: .http1) }
        if chosen == "h2" { return done(agreed: .h2) }
        guard pool.version == .auto else {
            let answer = chosen.map { "chose \($0)" } ?? "chose no protocol"
            return failed(.protocolError, detail: "the server does not speak HTTP/2 over TLS: offered h2 by ALPN, it \(answer)")
        }
        done(agreed: .http1)
    }

    /// Hands the connection, its registration and what it learned to the owner.
    private func done(agreed: WireProtocol) {
        stage = .ended
        var info = info ?? ConnectionInfo(reused: false)
        info.wire = agreed
        // The registration is the owner's from here: it takes it over (`EventLoop.rehandle`).
        registered = false
        endCount()
        owner.setUpDone(
            Established(
                stream: SocketStream(fd: fd, tls: tls), token: token, watching: watching, info: info, agreed: agreed, route: route))
    }

    /// The set-up failed: the owner ends its attempts and closes, which cancels the rest.
    func failed(_ kind: ErrorKind, detail: String?) {
        stage = .ended
        owner.setUpFailed(kind, detail: detail)
    }

    /// Stops it before its end (the connection closes): forgets the registration before the
    /// descriptor is closed, and ends its count.
    func cancel() {
        stage = .ended
        if registered { pool.loop.deregister(fd, token: token) }
        registered = false
        endCount()
    }

    private func endCount() {
        guard counted else { return }
        counted = false
        pool.setUpEnded()
    }

    static func kind(forConnectError error: Int32) -> ErrorKind {
        if Sockets.isLocalResource(error, atConnect: true) { return .localResource }
        switch error {
        case ETIMEDOUT: return .timeout
        case ECONNRESET: return .connectionReset
        default: return .connectionRefused  // refused, unreachable network or host, no route
        }
    }
}
