import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// A pool's HTTP/2 connections: the one with room for another stream, or a new one; a respondent's own.
extension ConnectionPool {
    /// Sends `request` over HTTP/2: on the connection that last had room for it, or a new one
    /// (`fresh`: a new one in any case).
    func startHTTP2(
        _ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, started: UInt64, reconnect: Bool,
        fresh: Bool = false
    ) {
        if let device = request.device { return startOwnHTTP2(device, request, continuation, started: started, reconnect: reconnect) }
        if !fresh {
            while let candidate = h2Ready.last {
                guard candidate.hasCapacity else {
                    noLongerReady(candidate)
                    continue
                }
                candidate.begin(request, continuation, started: started, reconnect: reconnect)
                if !candidate.hasCapacity { noLongerReady(candidate) }
                return
            }
        }
        guard mayOpen(request, continuation, started: started, reconnect: reconnect) else { return }
        let route = routes.route(for: nil)
        guard let fd = openSocket(for: continuation, to: route) else { return }
        let connection = HTTP2Connection(fd: fd, pool: self, route: route, capacity: sharing == .shared ? Int.max : 1)
        if tls != nil { countSettingUp() }
        connection.begin(request, continuation, started: started, reconnect: reconnect)
        if connection.hasCapacity { ready(connection) }
    }

    /// Sends a respondent's request on a new HTTP/2 connection that becomes its own: one stream
    /// at a time, never offered to others. Its callers tried the one it holds first
    /// (`startOnOwn`), or must not (a GOAWAY's `reconnect`).
    func startOwnHTTP2(
        _ device: Device, _ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>, started: UInt64,
        reconnect: Bool
    ) {
        guard mayOpen(request, continuation, started: started, reconnect: reconnect) else { return }
        let route = routes.route(for: device)
        guard let fd = openSocket(for: continuation, to: route) else { return }
        let connection = HTTP2Connection(fd: fd, pool: self, route: route, capacity: 1, owned: true)
        if tls != nil { countSettingUp() }
        own(connection, for: device)
        ownedHTTP2[ObjectIdentifier(connection)] = connection
        connection.begin(request, continuation, started: started, reconnect: reconnect)
    }

    /// Closes the connections of `device`, whose respondent has left. One still carrying an
    /// attempt (none should) closes when the run's client does.
    func release(_ device: Device) {
        device.released = true
        if let own = device.http1, ownedIdle.removeSlotted(own) { own.close() }
        if let own = device.http2, !own.isBusy { own.close() }
        device.http1 = nil
        device.http2 = nil
    }
}
