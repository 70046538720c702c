import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// One loop's share of a client: its idle connections and the ones waiting for a response, of
/// HTTP/1.1 (`ClientConnection`) and of HTTP/2 (`HTTP2Connection`). Touched only on its loop's
/// thread.
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
    let connectTimeout: UInt64
    let maxBodyBytes: Int
    let maxHeadBytes: Int
    /// Where new connections get their sockets.
    let openSocket: Sockets.Opener
    /// Which way new connections go: straight to the target, or through the run's proxy or a
    /// respondent's own (`ConnectionSetup`).
    let routes: ConnectionRoutes
    var idle: [ClientConnection] = []
    var busy: [ClientConnection] = []
    /// Respondents' own HTTP/1.1 connections (`Device`) idle between their requests: out of
    /// `idle`, which any request may take, and closed when their respondent leaves. Slotted, as
    /// `busy`, which a connection has left when it is here.
    var ownedIdle: [ClientConnection] = []
    /// Respondents' own HTTP/2 connections, busy or not, until they close.
    var ownedHTTP2: [ObjectIdentifier: HTTP2Connection] = [:]
    /// Which HTTP version the client speaks, and how its respondents hold connections.
    let version: HTTPVersion
    let sharing: ConnectionSharing
    /// The protocol new connections speak; nil until the first TLS handshake says.
    var negotiated: WireProtocol?
    /// HTTP/2 connections carrying attempts, sent or waiting for a stream.
    var h2Busy: [HTTP2Connection] = []
    /// HTTP/2 connections that can take another attempt, the last one first.
    var h2Ready: [HTTP2Connection] = []
    private var sweepScheduled = false
    /// TLS connections of this loop in their connect or handshake, and the attempts waiting for
    /// one of them to finish before they may open another (`maxSettingUp`), oldest first.
    private(set) var settingUp = 0
    private var pending: [Pending] = []
    private var pendingHead = 0
    private var startingPending = false

    /// An attempt waiting to open a connection.
    private struct Pending {
        var request: HTTPRequest
        var continuation: UnsafeContinuation<TransportResult, Never>
        var started: UInt64
        var reconnect: Bool
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
        connectTimeout = min(configuration.connectTimeout?.clampedNanoseconds ?? timeout, timeout)
        maxBodyBytes = configuration.maxBodyBytes
        maxHeadBytes = configuration.maxHeadBytes
        version = configuration.version
        sharing = configuration.sharing
        switch (tls == nil, configuration.version) {
        case (true, .http2): negotiated = .h2c
        case (true, _), (false, .http1): negotiated = .http1
        case (false, _): negotiated = nil
        }
    }

    /// Sends `request` on the last idle connection that the peer has not closed, or on a new one;
    /// a respondent's request on the connection it holds, whichever protocol that one speaks.
    func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>) {
        let started = MonotonicClock.now()
        if let device = request.device, startOnOwn(device, request, continuation, started: started, reconnect: false) { return }
        guard negotiated == .http1 else { return startHTTP2(request, continuation, started: started, reconnect: false) }
        send(request, continuation, on: request.device == nil ? takeIdle() : nil, started: started, reconnect: false)
    }

    /// Sends a respondent's request on the connection it holds, when that one can take it: its
    /// HTTP/1.1 connection open and idle, or its HTTP/2 connection with room — whatever the loop
    /// negotiates now (a server behind a balancer may answer ALPN one way, then the other).
    /// False when it holds none that can.
    private func startOnOwn(
        _ device: Device, _ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, started: UInt64,
        reconnect: Bool
    ) -> Bool {
        if let own = device.http1 {
            ownedIdle.removeSlotted(own)
            if own.isStillOpen() {
                send(request, continuation, on: own, started: started, reconnect: reconnect)
                return true
            }
            own.close()
            device.http1 = nil
        }
        guard let own = device.http2, own.hasCapacity else { return false }
        own.begin(request, continuation, started: started, reconnect: reconnect)
        return true
    }

    /// Whether the respondent of `device` holds a connection that can take its next request
    /// (`startOnOwn` would send it).
    private func canReuse(_ device: Device) -> Bool {
        device.http1?.isStillOpen() == true || device.http2?.hasCapacity == true
    }

    /// Makes `connection` the HTTP/1.1 connection of `device`, closing the one it held if that
    /// one is open and idle (it could be reached no more).
    func own(_ connection: ClientConnection, for device: Device) {
        if let old = device.http1, old !== connection, ownedIdle.removeSlotted(old) { old.close() }
        device.http1 = connection
    }

    /// Makes `connection` the HTTP/2 connection of `device`, closing the one it held if that one
    /// is open and carries nothing; one going away closes itself once it has carried its last.
    func own(_ connection: HTTP2Connection, for device: Device) {
        if let old = device.http2, old !== connection, !old.isBusy, !old.isClosed, !old.isGoingAway { old.close() }
        device.http2 = connection
    }

    /// Sends `request` again on a new connection: the kept-alive one it went out on turned out
    /// closed by the server before any byte of a response came back — the race of an idle
    /// connection closing as a request leaves, which the server never read as one to answer.
    /// Once per attempt, within the attempt's expiry (it keeps its start).
    func reconnect(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, started: UInt64) {
        send(request, continuation, on: nil, started: started, reconnect: true)
    }

    private func send(
        _ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, on reusable: ClientConnection?,
        started: UInt64, reconnect: Bool
    ) {
        let connection: ClientConnection
        if let reusable {
            connection = reusable
        } else if negotiatesByALPN {
            // Over TLS with h2 on offer, a new connection negotiates as an HTTP/2 one, which hands
            // itself back to HTTP/1.1 when the server picks it.
            return startHTTP2(request, continuation, started: started, reconnect: reconnect, fresh: true)
        } else {
            guard mayOpen(request, continuation, started: started, reconnect: reconnect) else { return }
            let route = routes.route(for: request.device)
            guard let fd = openSocket(for: continuation, to: route) else { return }
            connection = ClientConnection(fd: fd, pool: self, route: route)
            if tls != nil { countSettingUp() }
            if let device = request.device { own(connection, for: device) }
        }
        busy.appendSlotted(connection)
        scheduleSweep()
        connection.begin(request, continuation, started: started, reconnect: reconnect)
    }

    /// Whether new connections negotiate by ALPN with h2 on offer.
    private var negotiatesByALPN: Bool { tls != nil && version != .http1 }

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

    /// Whether a new connection may be opened now; when not, the attempt waits its turn
    /// (`maxSettingUp`) and false is returned.
    func mayOpen(
        _ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, started: UInt64, reconnect: Bool
    ) -> Bool {
        guard tls != nil, settingUp >= Self.maxSettingUp else { return true }
        pending.append(Pending(request: request, continuation: continuation, started: started, reconnect: reconnect))
        scheduleSweep()
        return false
    }

    /// The most TLS connections this loop had in set-up at once (for tests).
    private(set) var settingUpPeak = 0

    func countSettingUp() {
        settingUp += 1
        settingUpPeak = max(settingUpPeak, settingUp)
    }

    /// A TLS connection of this loop finished its set-up, well or not: an attempt waiting may
    /// open one.
    func setUpEnded() {
        settingUp -= 1
        startPending()
    }

    /// Starts the attempts waiting to open a connection while one may be opened, or a kept-alive
    /// connection can take them.
    func startPending() {
        // A connection failing at once inside this loop ends its set-up here again: the loop
        // already running goes on, rather than a call deeper for every attempt waiting.
        guard pendingHead < pending.count, !startingPending else { return }
        startingPending = true
        defer { startingPending = false }
        // The attempts waiting now, each once: one that has to wait again goes to the back, for
        // a later pass, never round again in this one.
        let end = pending.count
        while pendingHead < end {
            let next = pending[pendingHead]
            let reusable = next.request.device.map(canReuse) ?? (negotiated == .http1 ? !idle.isEmpty : h2Ready.contains { $0.hasCapacity })
            guard reusable || settingUp < Self.maxSettingUp else { break }
            pendingHead += 1
            if let device = next.request.device,
                startOnOwn(device, next.request, next.continuation, started: next.started, reconnect: next.reconnect)
            {
                continue
            }
            if negotiated == .http1, next.request.device == nil, let connection = takeIdle() {
                send(next.request, next.continuation, on: connection, started: next.started, reconnect: next.reconnect)
            } else {
                restart(next.request, next.continuation, started: next.started, reconnect: next.reconnect)
            }
        }
        if pendingHead == pending.count {
            pending.removeAll(keepingCapacity: pending.capacity <= 1024)
            pendingHead = 0
        }
    }

    /// The last idle HTTP/1.1 connection the peer has not closed, taken off the idle list.
    private func takeIdle() -> ClientConnection? {
        while let candidate = idle.popLast() {
            if candidate.isStillOpen() { return candidate }
            candidate.close()
        }
        return nil
    }

    /// Ends the waiting attempts past their expiry as a `timeout` that never left.
    private func expirePending(now: UInt64) {
        guard pendingHead < pending.count else { return }
        var kept: [Pending] = []
        for index in pendingHead..<pending.count {
            let item = pending[index]
            let expiry = item.request.expiry(startedAt: item.started, timeout: timeout)
            if now >= expiry {
                let waited = Duration.nanoseconds(Int64(now &- item.started))
                item.continuation.resume(returning: .failure(.timeout, requestSent: false, serviceTime: waited))
            } else {
                kept.append(item)
            }
        }
        pending = kept
        pendingHead = 0
    }

    /// Starts again an attempt that never left (its connection went away or turned to
    /// HTTP/1.1 before sending it), keeping its start.
    func restart(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, started: UInt64, reconnect: Bool) {
        if let device = request.device, startOnOwn(device, request, continuation, started: started, reconnect: reconnect) { return }
        if negotiated == .http1 {
            send(request, continuation, on: nil, started: started, reconnect: reconnect)
        } else {
            startHTTP2(request, continuation, started: started, reconnect: reconnect)
        }
    }

    /// Sends again, together on a new connection, requests a GOAWAY left unprocessed: counted
    /// as reconnects, like HTTP/1.1's request sent again after an idle close.
    func reconnect(_ requests: [(HTTPRequest, UnsafeContinuation<TransportResult, Never>, UInt64)]) {
        guard let (request, continuation, started) = requests.first else { return }
        startHTTP2(request, continuation, started: started, reconnect: true, fresh: true)
        for (request, continuation, started) in requests.dropFirst() {
            startHTTP2(request, continuation, started: started, reconnect: true)
        }
    }

    /// Takes over the socket of an HTTP/2 connection whose set-up agreed on http/1.1, with its
    /// first attempt.
    func adopt(fd: Int32, _ established: ConnectionSetup.Established, _ exchange: HTTP2Connection.Exchange) {
        let connection = ClientConnection(fd: fd, pool: self, established: established)
        if let device = exchange.request.device {
            // The HTTP/2 connection that handed its socket over is closed as far as it goes.
            if let old = device.http2, old.isClosed {
                ownedHTTP2.removeValue(forKey: ObjectIdentifier(old))
                device.http2 = nil
            }
            own(connection, for: device)
        }
        busy.appendSlotted(connection)
        scheduleSweep()
        connection.begin(exchange.request, exchange.continuation, started: exchange.started, reconnect: exchange.reconnect)
    }

    /// HTTP/2 connections open, busy or ready.
    var openHTTP2Count: Int {
        let ready = h2Ready.filter { !$0.isClosed && !$0.isBusy }.count
        return h2Busy.count + ready + ownedHTTP2.values.filter { !$0.isClosed && !$0.isBusy }.count
    }

    func enterBusy(_ connection: HTTP2Connection) {
        h2Busy.appendSlotted(connection)
        scheduleSweep()
    }

    func leaveBusy(_ connection: HTTP2Connection) {
        h2Busy.removeSlotted(connection)
    }

    /// Lists a connection that can take another attempt (once).
    func ready(_ connection: HTTP2Connection) {
        guard !connection.listedReady, !connection.owned else { return }
        connection.listedReady = true
        h2Ready.append(connection)
    }

    func noLongerReady(_ connection: HTTP2Connection) {
        guard connection.listedReady else { return }
        connection.listedReady = false
        if let index = h2Ready.lastIndex(where: { $0 === connection }) { h2Ready.remove(at: index) }
    }

    /// Takes a connection off the busy list.
    func leaveBusy(_ connection: ClientConnection) {
        busy.removeSlotted(connection)
    }

    func removeIdle(_ connection: ClientConnection) {
        if ownedIdle.removeSlotted(connection) { return }
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
            index = h2Busy.count - 1
            while index >= 0 {
                if index < h2Busy.count { h2Busy[index].checkDeadlines(now: now) }
                index -= 1
            }
            expirePending(now: now)
            if !busy.isEmpty || !h2Busy.isEmpty || pendingHead < pending.count { scheduleSweep() }
        }
    }

    func closeAll() {
        for connection in idle { connection.close() }
        idle.removeAll()
        for connection in busy { connection.fail(.connectionClosed) }
        resumption = nil
        busy.removeAll()
        for connection in h2Busy { connection.failAll(.connectionClosed, detail: nil) }
        for connection in h2Ready { connection.close() }
        h2Busy.removeAll()
        h2Ready.removeAll()
        for connection in ownedIdle { connection.close() }
        ownedIdle.removeAll()
        for connection in ownedHTTP2.values { connection.close() }
        ownedHTTP2.removeAll()
        let waiting = pending[pendingHead...]
        pending = []
        pendingHead = 0
        for item in waiting { item.continuation.resume(returning: .failure(.connectionClosed, requestSent: false, serviceTime: .zero)) }
    }
}
