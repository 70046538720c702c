import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 client for `http://` and `https://` targets on the project's event loops:
/// non-blocking sockets, TLS from the system's OpenSSL stepped by the same loops, keep-alive
/// connections pooled per loop, requests written from prebuilt bytes, responses parsed as bytes.
///
/// A task whose executor preference is one of the group's loops sends and receives on that
/// loop's thread and resumes there: no thread hop per request. Other callers are served by the
/// loops round-robin.
///
/// The host name is resolved once, when the client is made; a name that does not resolve makes
/// every attempt fail with `dns`. Through a proxy (`HTTPClientConfiguration.proxy`, or a
/// respondent's own `Device.proxy`), connections go to the proxy — resolved once too — and every
/// new one is set up by a `ConnectionSetup`: a `CONNECT` tunnel for https and h2c, requests in
/// absolute form for plain http over HTTP/1.1. A connection that breaks is not retried behind the caller's
/// back, with one exception: a request whose kept-alive connection the server closed before
/// any byte of a response (a clean close, not a reset) goes out once more on a new connection,
/// counted as a reconnect (`ConnectionPool.reconnect`). Every other attempt the server may have
/// seen is one the caller sees.
public final class HTTPClient: Transport {
    let target: HTTPTarget
    /// The addresses the host resolved to; the first one is used.
    let resolution: Result<[SocketAddress], SocketAddress.ResolutionError>
    private let group: EventLoopGroup
    /// Each loop's connections, by the loop's index.
    let pools: [ConnectionPool]

    /// A client for `target` on the loops of `group`, with `configuration`'s limits on every
    /// attempt. Resolves the host now, blocking the caller while it does; opens no connection.
    /// For an https target the TLS context is made here, once, from `configuration.tls`.
    ///
    /// - Throws: `TLSSetupError` naming what and why when a trusted certificate, the client
    ///   certificate or its key cannot be used, or when OpenSSL's libssl is not installed.
    public convenience init(target: HTTPTarget, group: EventLoopGroup, configuration: HTTPClientConfiguration = .init())
        throws(TLSSetupError)
    {
        try self.init(target: target, group: group, configuration: configuration, openSocket: Sockets.openTCP)
    }

    /// A client whose connections get their sockets from `openSocket` and whose host is looked
    /// up by `resolve`: tests make the first fail as an exhausted process would, and count the
    /// second's calls.
    init(
        target: HTTPTarget, group: EventLoopGroup, configuration: HTTPClientConfiguration, openSocket: @escaping Sockets.Opener,
        resolve: (_ host: String, _ port: Int) -> Result<[SocketAddress], SocketAddress.ResolutionError> = SocketAddress.resolve
    ) throws(TLSSetupError) {
        self.target = target
        self.group = group
        resolution = resolve(target.host, target.port)
        let address = try? resolution.get().first
        let tls =
            target.scheme == .https ? try TLSClientContext(configuration.tls, offering: configuration.version.applicationProtocols) : nil
        // The run's proxy is resolved once, here, as the target is.
        let proxy = configuration.proxy.map { ($0, resolve($0.host, $0.port)) }
        pools = group.loops.map {
            ConnectionPool(
                loop: $0, host: target.host, tls: tls, configuration: configuration,
                routes: ConnectionRoutes(target: target, address: address, proxy: proxy, version: configuration.version),
                openSocket: openSocket)
        }
    }

    /// Starts one attempt, on an idle kept-alive connection of the caller's loop or a new one,
    /// and resumes `continuation` with what came of it on that loop. The service time starts
    /// when the attempt does, connect included.
    ///
    /// A respondent's own connections (`request.device`) live on the loop of its first request,
    /// and its later requests go out there.
    public func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>) {
        let current = group.current
        if let device = request.device {
            // Read here before the first request goes out on a loop; set on that loop after.
            let index = device.loop ?? current?.index ?? group.next().index
            if device.loop == nil { device.loop = index }
            if current?.index == index { return pools[index].start(request, continuation) }
            let pool = pools[index]
            return group.loops[index].execute { pool.start(request, continuation) }
        }
        if let current {
            pools[current.index].start(request, continuation)
            return
        }
        let loop = group.next()
        let pool = pools[loop.index]
        loop.execute { pool.start(request, continuation) }
    }

    /// Closes the connections of a respondent that left, on their loop.
    public func release(_ affinity: ConnectionAffinity) {
        guard let device = affinity.held as? Device, let index = device.loop else { return }
        let pool = pools[index]
        if group.current?.index == index { return pool.release(device) }
        group.loops[index].execute { pool.release(affinity.device) }
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
                loop.execute {
                    continuation.resume(returning: pool.idle.count + pool.busy.count + pool.openHTTP2Count + pool.ownedIdle.count)
                }
            }
        }
        return total
    }
}
