import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// One loop's share of a client: its idle connections and the ones waiting for a response.
/// Touched only on its loop's thread.
final class ConnectionPool: @unchecked Sendable {
    unowned let loop: EventLoop
    let address: SocketAddress?
    /// The https target's TLS context, shared by every loop; nil for http.
    let tls: TLSClientContext?
    /// The target's host, for SNI and the certificate check.
    let host: String
    /// The TLS session of this loop's last https connection, offered for resumption by the next.
    var resumption: TLSResumption?
    let timeout: UInt64
    let connectTimeout: UInt64
    let maxBodyBytes: Int
    let maxHeadBytes: Int
    /// Where new connections get their sockets.
    let openSocket: Sockets.Opener
    var idle: [ClientConnection] = []
    var busy: [ClientConnection] = []
    private var sweepScheduled = false

    /// How often deadlines are checked: a timeout fires at most this late.
    private static let sweepInterval: UInt64 = 5_000_000

    init(
        loop: EventLoop, address: SocketAddress?, host: String, tls: TLSClientContext?, configuration: HTTPClientConfiguration,
        openSocket: @escaping Sockets.Opener = Sockets.openTCP
    ) {
        self.loop = loop
        self.openSocket = openSocket
        self.address = address
        self.host = host
        self.tls = tls
        timeout = configuration.timeout.clampedNanoseconds
        connectTimeout = min(configuration.connectTimeout?.clampedNanoseconds ?? timeout, timeout)
        maxBodyBytes = configuration.maxBodyBytes
        maxHeadBytes = configuration.maxHeadBytes
    }

    /// Sends `request` on the last idle connection that the peer has not closed, or on a new one.
    func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>) {
        var reusable: ClientConnection?
        while let candidate = idle.popLast() {
            if candidate.isStillOpen() {
                reusable = candidate
                break
            }
            candidate.close()
        }
        send(request, continuation, on: reusable, started: MonotonicClock.now(), reconnect: false)
    }

    /// Sends `request` again on a new connection: the kept-alive one it went out on turned out
    /// closed by the server before any byte of a response came back — the race of an idle
    /// connection closing as a request leaves, which the server never read as one to answer.
    /// Once per attempt, within the attempt's deadline (it keeps its start).
    func reconnect(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, started: UInt64) {
        send(request, continuation, on: nil, started: started, reconnect: true)
    }

    private func send(
        _ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, on reusable: ClientConnection?,
        started: UInt64, reconnect: Bool
    ) {
        guard let address else {
            continuation.resume(returning: .failure(.dns, requestSent: false, serviceTime: .zero))
            return
        }
        let connection: ClientConnection
        if let reusable {
            connection = reusable
        } else {
            let (fd, error) = openSocket(address.family)
            guard fd >= 0 else {
                // Out of descriptors or memory, as good as always: the request never left, and
                // the server had no part in it.
                let kind: ErrorKind = Sockets.isLocalResource(error, atConnect: false) ? .localResource : .connectionRefused
                continuation.resume(
                    returning: .failure(kind, requestSent: false, serviceTime: .zero, detail: Sockets.describe(error, call: "socket()")))
                return
            }
            Sockets.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
            connection = ClientConnection(fd: fd, pool: self)
        }
        busy.appendSlotted(connection)
        scheduleSweep()
        connection.begin(request, continuation, started: started, reconnect: reconnect)
    }

    /// Takes a connection off the busy list.
    func leaveBusy(_ connection: ClientConnection) {
        busy.removeSlotted(connection)
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
        resumption = nil
        busy.removeAll()
    }
}
