import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/2 connection's set-up: connect, TLS and ALPN, and the hand-over to HTTP/1.1 when the server picks it.
extension HTTP2Connection {
    func connect() {
        connectBegan = MonotonicClock.now()
        connectExpiry = HTTPRequest.connectExpiry(begun: connectBegan, connectTimeout: pool.connectTimeout, expiry: connectExpiry)
        switch pool.beginConnect(fd) {
        case .connected:
            guard watch(Self.readable) else { return }
            connected()
        case .inProgress:
            guard watch(Self.writable) else { return }
            watching = .writable
        case .failed(let kind, let detail):
            failAll(kind, detail: detail)
        }
    }

    func watch(_ events: UInt32) -> Bool {
        guard let token = pool.loop.register(fd, events: events, handler: self) else {
            let error = errno
            failAll(.localResource, detail: Sockets.describe(error, call: "epoll_ctl()"))
            return false
        }
        self.token = token
        registered = true
        return true
    }

    func connected() {
        connectedAt = MonotonicClock.now()
        let connectTime = Duration.nanoseconds(Int64(connectedAt &- connectBegan))
        opening = ConnectionInfo(reused: false, connectTime: connectTime, wire: wire)
        guard let context = pool.tls else { return open() }
        let tls: TLSConnection
        do throws(TLSFailure) {
            tls = try TLSConnection(client: context, fd: fd, host: pool.host, resuming: pool.resumption(for: waiting.first?.request.device))
        } catch {
            return failAll(.tlsHandshake, detail: error.reason)
        }
        stream = SocketStream(fd: fd, tls: tls)
        phase = .handshaking
        shakeHands(tls)
    }

    func shakeHands(_ tls: TLSConnection) {
        switch tls.handshake() {
        case .done:
            opening?.tlsHandshakeTime = .nanoseconds(Int64(MonotonicClock.now() &- connectedAt))
            opening?.tls = "\(tls.protocolVersion) \(tls.cipher ?? "")"
            opening?.tlsResumed = tls.resumed
            let agreed = tls.applicationProtocol
            setUpEnded()
            guard agreed == "h2" else { return declined(agreed) }
            open()
        case .wantRead:
            watch(.readable)
        case .wantWrite:
            watch(.writable)
        case .failed(let failure):
            // A server without h2 that answers an offer of h2 alone with an alert: the plan's
            // version, not TLS, is what failed.
            if pool.version == .http2, failure.reason.contains("no application protocol") {
                return failAll(
                    .protocolError, detail: "the server does not speak HTTP/2 over TLS: offered h2 by ALPN, it refused (\(failure.reason))")
            }
            // Under `auto` no protocol was agreed: HTTP/2 had no part, and the attempts count as
            // HTTP/1.1's, as when the server picks it.
            if pool.version == .auto { opening?.wire = .http1 }
            failAll(failure.kind == .certificate ? .tlsCertificate : .tlsHandshake, detail: failure.reason)
        }
    }

    /// TLS agreed on another protocol than h2: HTTP/1.1 takes over when the plan allows it;
    /// when it requires HTTP/2, every attempt fails.
    func declined(_ agreed: String?) {
        guard pool.version == .auto else {
            let chosen = agreed.map { "chose \($0)" } ?? "chose no protocol"
            return failAll(.protocolError, detail: "the server does not speak HTTP/2 over TLS: offered h2 by ALPN, it \(chosen)")
        }
        pool.negotiated = .http1
        // Its attempts ran out of time during the handshake: nothing to hand over.
        guard !waiting.isEmpty else { return failAll(.connectionClosed, detail: nil) }
        var handed = waiting
        waiting = []
        exchanges = [:]
        pool.leaveBusy(self)
        pool.noLongerReady(self)
        if registered {
            pool.loop.deregister(fd, token: token)
            registered = false
        }
        phase = .closed
        let first = handed.removeFirst()
        var info = opening ?? ConnectionInfo(reused: false)
        info.reconnected = first.reconnect
        info.wire = .http1
        pool.adopt(fd: fd, stream: stream, info: info, first)
        stream = SocketStream(fd: fd, tls: nil)
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
