import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// One loop's share of a client: the I/O of its connections, HTTP/1.1 (`ClientConnection`) and
/// HTTP/2 (`HTTP2Connection`). What to do — which connection an attempt goes out on, whether to
/// open one or wait, which lists hold which connection — is its `ConnectionPoolMachine`'s, which
/// does no I/O; the pool feeds it events and carries out what it decides: it opens sockets,
/// begins attempts, closes connections, resumes the attempts that fail, sweeps expiries on the
/// loop's timers. Touched only on its loop's thread.
///
/// Which version a new connection speaks is `negotiated`: known from the start for plain http
/// (HTTP/1.1, or h2c when the plan requires HTTP/2) and when TLS must offer http/1.1 alone;
/// otherwise learned from the first handshake, whose connection is an `HTTP2Connection` that
/// hands itself to HTTP/1.1 when the server picks it.
final class ConnectionPool: @unchecked Sendable {
    unowned let loop: EventLoop
    /// The https target's TLS context, shared by every loop; nil for http.
    let tls: TLSClientContext?
    /// The target's host, for SNI and the certificate check.
    let host: String
    /// The TLS session of this loop's last https connection, offered for resumption by the next.
    var resumption: TLSResumption?

    /// The TLS session a new connection offers for resumption: a respondent's own last one when
    /// it holds its own connections (a phone resumes only its own sessions; a new one has none),
    /// else the loop's.
    func resumption(for device: Device?) -> TLSResumption? {
        guard let device else { return resumption }
        return device.resumption
    }

    /// Keeps `session`, a connection's once its first response came, for the next connection
    /// of the same respondent (`device`) or of the loop.
    func keep(_ session: TLSResumption, for device: Device?) {
        if let device { device.resumption = session } else { resumption = session }
    }
    let timeout: UInt64
    /// The connect alone, in nanoseconds, when the configuration sets it; else an attempt's own timeout.
    let connectTimeout: UInt64?
    let maxBodyBytes: Int
    let maxHeadBytes: Int
    /// The response heads this loop's HTTP/1.1 connections replay (`HeadReplay`).
    let headReplay = HeadReplay()
    /// Where new connections get their sockets.
    let openSocket: Sockets.Opener
    /// Which way new connections go: straight to the target, or through the run's proxy or a
    /// respondent's own (`ConnectionSetup`).
    let routes: ConnectionRoutes
    /// Which HTTP version the client speaks, and how its respondents hold connections.
    let version: HTTPVersion
    let sharing: ConnectionSharing
    /// The pool's lists and decisions. Touched on the loop's thread alone, one access at a
    /// time: its exclusivity goes unchecked at run time, as the loop's own state does.
    @exclusivity(unchecked) private(set) var machine: Machine
    private var sweepScheduled = false

    typealias Machine = ConnectionPoolMachine<Pending>

    /// An attempt as the pool's machine holds it while it waits to open a connection.
    struct Pending: PoolAttempt {
        var request: HTTPRequest
        var continuation: UnsafeContinuation<TransportResult, Never>
        var started: UInt64
        var reconnect: Bool

        var device: Device? { request.device }

        func expiry(timeout: UInt64) -> UInt64 {
            request.expiry(startedAt: started, clientTimeout: timeout)
        }
    }

    /// The most TLS connections one loop sets up at once. A handshake holds OpenSSL's buffers
    /// and state (about 40 KB) until it ends: ten thousand respondents starting at once would
    /// hold 400 MB of them, though two cores finish only a few thousand handshakes a second
    /// whatever the number begun. Beyond it an attempt waits for a handshake to end (or for a
    /// kept-alive connection), and the wait is part of its time.
    static let maxSettingUp = 128

    /// How often expiries are checked: a timeout fires at most this late.
    private static let sweepInterval: UInt64 = 5_000_000

    init(
        loop: EventLoop, host: String, tls: TLSClientContext?, configuration: HTTPClientConfiguration,
        routes: ConnectionRoutes, openSocket: @escaping Sockets.Opener = Sockets.openTCP
    ) {
        self.loop = loop
        self.openSocket = openSocket
        self.routes = routes
        self.host = host
        self.tls = tls
        timeout = configuration.timeout.clampedNanoseconds
        connectTimeout = configuration.connectTimeout?.clampedNanoseconds
        maxBodyBytes = configuration.maxBodyBytes
        maxHeadBytes = configuration.maxHeadBytes
        version = configuration.version
        sharing = configuration.sharing
        machine = Machine(tls: tls != nil, version: configuration.version, sharing: configuration.sharing, maxSettingUp: Self.maxSettingUp)
    }

    /// The protocol new connections speak; nil until the first TLS handshake says. Set when a
    /// handshake learns it (ALPN).
    var negotiated: WireProtocol? {
        get { machine.negotiated }
        set { machine.learned(newValue) }
    }
    /// Shared idle HTTP/1.1 connections.
    var idle: [ClientConnection] { machine.idle }
    /// HTTP/1.1 connections carrying an attempt.
    var busy: [ClientConnection] { machine.busy }
    /// Respondents' own HTTP/1.1 connections idle between their requests.
    var ownedIdle: [ClientConnection] { machine.ownedIdle }
    /// TLS connections of this loop in their connect or handshake.
    var settingUp: Int { machine.settingUp }
    /// The most TLS connections this loop had in set-up at once (for tests).
    var settingUpPeak: Int { machine.settingUpPeak }
    /// HTTP/2 connections open, busy or ready.
    var openHTTP2Count: Int { machine.openHTTP2Count }

    // MARK: Attempts

    /// Sends `request` on the last idle connection that the peer has not closed, or on a new one;
    /// a respondent's request on the connection it holds, whichever protocol that one speaks.
    func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>) {
        let started = MonotonicClock.now()
        // Nearly every attempt over HTTP/1.1: straight onto an idle shared connection, the
        // request copied once, into it, rather than into a `Pending` and out again.
        if request.affinity == nil, let connection = machine.startOnIdle() {
            scheduleSweep()
            return connection.begin(request, continuation, started: started, reconnect: false)
        }
        let attempt = Pending(request: request, continuation: continuation, started: started, reconnect: false)
        perform(machine.start(attempt), consume attempt)
    }

    /// Sends `request` again on a new connection: the kept-alive one it went out on turned out
    /// closed by the server before any byte of a response came back — the race of an idle
    /// connection closing as a request leaves, which the server never read as one to answer.
    /// Once per attempt, within the attempt's expiry (it keeps its start).
    func reconnect(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, started: UInt64) {
        let attempt = Pending(request: request, continuation: continuation, started: started, reconnect: true)
        perform(machine.reconnect(attempt), attempt)
    }

    /// Starts again an attempt that never left (its connection went away or turned to
    /// HTTP/1.1 before sending it), keeping its start.
    func restart(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, started: UInt64, reconnect: Bool) {
        let attempt = Pending(request: request, continuation: continuation, started: started, reconnect: reconnect)
        perform(machine.restart(attempt), attempt)
    }

    /// Sends again, together on a new connection, requests a GOAWAY left unprocessed: counted
    /// as reconnects, like HTTP/1.1's request sent again after an idle close.
    func reconnect(_ requests: [(HTTPRequest, UnsafeContinuation<TransportResult, Never>, UInt64)]) {
        for (index, (request, continuation, started)) in requests.enumerated() {
            let attempt = Pending(request: request, continuation: continuation, started: started, reconnect: true)
            perform(machine.startHTTP2(attempt, fresh: index == 0), attempt)
        }
    }

    /// Starts the attempts waiting to open a connection while one may be opened, or a kept-alive
    /// connection can take them: each once per pass (`ConnectionPoolMachine.nextPending`).
    func startPending() {
        guard machine.beginPendingPass() else { return }
        while let (attempt, decision) = machine.nextPending() { perform(decision, attempt) }
        machine.endPendingPass()
    }

    /// Carries out what the machine decided for `attempt`: first the close of a respondent's
    /// own connection it let go, then the send, the new connection, or the wait. The attempt is
    /// the pool's from here: its request moves on into the connection that carries it, rather
    /// than being copied there (each copy retains its template, body, cookies and scope).
    private func perform(_ decision: Machine.Decision, _ attempt: consuming Pending) {
        decision.closing?.close()
        perform(decision.start, attempt)
    }

    private func perform(_ start: Machine.Start, _ attempt: consuming Pending) {
        // The attempt is taken apart as it is consumed (`consume`), its request moved out of it
        // into the connection: read as a field of the attempt, it was copied and the attempt
        // destroyed.
        switch start {
        case .http1(let connection):
            scheduleSweep()
            let (continuation, started, reconnect) = (attempt.continuation, attempt.started, attempt.reconnect)
            connection.begin((consume attempt).request, continuation, started: started, reconnect: reconnect)
        case .http2(let connection):
            let (continuation, started, reconnect) = (attempt.continuation, attempt.started, attempt.reconnect)
            connection.begin((consume attempt).request, continuation, started: started, reconnect: reconnect)
            machine.tookStream(connection)
        case .open(let kind):
            open(kind, for: attempt)
        case .wait:
            scheduleSweep()
        }
    }

    /// Opens the connection the machine asked for, tells it, and sends `attempt` on it; when no
    /// socket could be had, the attempt has failed.
    private func open(_ kind: Machine.NewConnection, for attempt: Pending) {
        // A shared HTTP/2 connection goes the run's way; the others, their respondent's.
        let shared = if case .http2 = kind { true } else { false }
        let route = routes.route(for: shared ? nil : attempt.device)
        guard let fd = openSocket(for: attempt.continuation, to: route) else { return }
        switch kind {
        case .http1:
            let connection = ClientConnection(fd: fd, pool: self, route: route)
            machine.opened(connection, for: attempt.device)?.close()
            scheduleSweep()
            connection.begin(attempt.request, attempt.continuation, started: attempt.started, reconnect: attempt.reconnect)
        case .http2(let capacity):
            let connection = HTTP2Connection(fd: fd, pool: self, route: route, capacity: capacity)
            _ = machine.opened(connection, for: nil)
            connection.begin(attempt.request, attempt.continuation, started: attempt.started, reconnect: attempt.reconnect)
            if connection.hasCapacity { machine.ready(connection) }
        case .ownHTTP2:
            let connection = HTTP2Connection(fd: fd, pool: self, route: route, capacity: 1, owned: true)
            machine.opened(connection, for: attempt.device)?.close()
            connection.begin(attempt.request, attempt.continuation, started: attempt.started, reconnect: attempt.reconnect)
        }
    }

    /// A new socket for a connection along `route`; nil when none could be had, the attempt
    /// then failed.
    func openSocket(for continuation: UnsafeContinuation<TransportResult, Never>, to route: ConnectionRoute) -> Int32? {
        guard let address = route.address else {
            continuation.resume(returning: .failure(.dns, requestSent: false, serviceTime: .zero, detail: route.unresolved))
            return nil
        }
        let (fd, error) = openSocket(address.family)
        guard fd >= 0 else {
            // Out of descriptors or memory, as good as always: the request never left, and the
            // server had no part in it.
            let kind: ErrorKind = Sockets.isLocalResource(error, atConnect: false) ? .localResource : .connectionRefused
            continuation.resume(
                returning: .failure(kind, requestSent: false, serviceTime: .zero, detail: Sockets.describe(error, call: "socket()")))
            return nil
        }
        Sockets.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        return fd
    }

    /// A TLS connection of this loop finished its set-up, well or not: an attempt waiting may
    /// open one.
    func setUpEnded() {
        machine.setUpEnded()
        startPending()
    }

    // MARK: Connections' events

    /// Takes over the socket of an HTTP/2 connection whose set-up agreed on http/1.1, with its
    /// first attempt.
    func adopt(fd: Int32, _ established: ConnectionSetup.Established, _ exchange: HTTP2Connection.Exchange) {
        let connection = ClientConnection(fd: fd, pool: self, established: established)
        machine.adopted(connection, for: exchange.request.device)?.close()
        scheduleSweep()
        connection.begin(exchange.request, exchange.continuation, started: exchange.started, reconnect: exchange.reconnect)
    }

    /// An HTTP/1.1 connection ended its attempt and can carry another: false when it is to
    /// close instead (its respondent has left).
    func keepIdle(_ connection: ClientConnection, for device: Device?) -> Bool {
        machine.keepIdle(connection, for: device)
    }

    /// Takes a connection off the busy list.
    func leaveBusy(_ connection: ClientConnection) {
        machine.leaveBusy(connection)
    }

    func removeIdle(_ connection: ClientConnection) {
        machine.removeIdle(connection)
    }

    func enterBusy(_ connection: HTTP2Connection) {
        machine.enterBusy(connection)
        scheduleSweep()
    }

    func leaveBusy(_ connection: HTTP2Connection) {
        machine.leaveBusy(connection)
    }

    /// Lists a connection that can take another attempt (once).
    func ready(_ connection: HTTP2Connection) {
        machine.ready(connection)
    }

    func noLongerReady(_ connection: HTTP2Connection) {
        machine.noLongerReady(connection)
    }

    /// A respondent's own HTTP/2 connection closed.
    func ownedClosed(_ connection: HTTP2Connection) {
        machine.ownedClosed(connection)
    }

    /// Closes the connections of `device`, whose respondent has left. One still carrying an
    /// attempt (none should) closes when the run's client does.
    func release(_ device: Device) {
        let (http1, http2) = machine.release(device)
        http1?.close()
        http2?.close()
    }

    // MARK: Expiries

    private func scheduleSweep() {
        guard !sweepScheduled else { return }
        sweepScheduled = true
        loop.schedule(at: MonotonicClock.now() &+ min(Self.sweepInterval, timeout)) { [self] in
            sweepScheduled = false
            sweep(now: MonotonicClock.now())
            if machine.needsSweep { scheduleSweep() }
        }
    }

    /// Ends the attempts past their expiry: on connections (each checks its own), and waiting
    /// as a `timeout` that never left. A connection failing leaves its list meanwhile.
    private func sweep(now: UInt64) {
        var index = machine.busy.count - 1
        while index >= 0 {
            if index < machine.busy.count {
                let connection = machine.busy[index]
                connection.checkDeadline(now: now)
            }
            index -= 1
        }
        index = machine.h2Busy.count - 1
        while index >= 0 {
            if index < machine.h2Busy.count {
                let connection = machine.h2Busy[index]
                connection.checkDeadlines(now: now)
            }
            index -= 1
        }
        for item in machine.expirePending(now: now, timeout: timeout) {
            let waited = Duration.nanoseconds(Int64(now &- item.started))
            item.continuation.resume(returning: .failure(.timeout, requestSent: false, serviceTime: waited))
        }
    }

    func closeAll() {
        for connection in machine.removeAllIdle() { connection.close() }
        for connection in machine.busy { connection.fail(.connectionClosed) }
        resumption = nil
        machine.removeAllBusy()
        for connection in machine.h2Busy { connection.failAll(.connectionClosed, detail: nil) }
        for connection in machine.h2Ready { connection.close() }
        machine.removeAllHTTP2()
        let owned = machine.removeAllOwned()
        for connection in owned.http1 { connection.close() }
        for connection in owned.http2 { connection.close() }
        for item in machine.removeAllPending() {
            item.continuation.resume(returning: .failure(.connectionClosed, requestSent: false, serviceTime: .zero))
        }
    }
}

extension ClientConnection: PoolHTTP1Connection {}
extension HTTP2Connection: PoolHTTP2Connection {}
extension Device: PoolDevice {}
