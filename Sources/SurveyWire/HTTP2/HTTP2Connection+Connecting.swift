/// An HTTP/2 connection's set-up (`ConnectionSetup`), and the hand-over to HTTP/1.1 when it
/// agreed on that.
extension HTTP2Connection {
    /// Begins the set-up; the connect timeout bounds it whole, TLS included.
    func setUp() {
        connectExpiry = HTTPRequest.connectExpiry(begun: MonotonicClock.now(), connectTimeout: pool.connectTimeout, expiry: connectExpiry)
        let setup = ConnectionSetup(
            fd: fd, pool: pool, route: route, device: waiting.first?.request.device, owner: self, counted: pool.tls != nil)
        self.setup = setup
        setup.start()
    }

    func setUpDone(_ established: ConnectionSetup.Established) {
        setup = nil
        token = established.token
        registered = true
        watching = established.watching
        stream = established.stream
        pool.loop.rehandle(token, to: self)
        opening = established.info
        guard established.agreed == .http1 else { return open() }
        handOver(established)
    }

    func setUpFailed(_ kind: ErrorKind, detail: String?) {
        failAll(kind, detail: detail)
    }

    /// The set-up agreed on http/1.1 (the plan leaves the choice to the server, which picked
    /// it): a `ClientConnection` takes the socket and the first attempt, and the pool speaks
    /// HTTP/1.1 from then on.
    private func handOver(_ established: ConnectionSetup.Established) {
        pool.negotiated = .http1
        // Its attempts ran out of time during the set-up: nothing to hand over.
        guard !waiting.isEmpty else { return failAll(.connectionClosed, detail: nil) }
        var handed = waiting
        waiting = []
        exchanges.removeAll()
        pool.leaveBusy(self)
        pool.noLongerReady(self)
        registered = false
        phase = .closed
        stream = SocketStream(fd: fd, tls: nil)
        let first = handed.removeFirst()
        pool.adopt(fd: fd, established, first)
        // The others never left: they go out on HTTP/1.1 connections of their own, their start kept.
        for exchange in handed {
            pool.restart(exchange.request, exchange.continuation, started: exchange.started, reconnect: exchange.reconnect)
        }
    }

    /// The connection speaks HTTP/2: the preface and SETTINGS, then the waiting requests.
    func open() {
        phase = .open
        // The latest handshake says what the server speaks now.
        pool.negotiated = wire
        machine.start(into: &output)
        sendWaiting()
        flush()
    }
}
