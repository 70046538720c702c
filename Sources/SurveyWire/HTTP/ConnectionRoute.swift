/// Which way a new connection goes: straight to the target, or through an HTTP proxy — in a
/// `CONNECT` tunnel, or (plain http over HTTP/1.1) with its requests in absolute form. Made once
/// per proxy, with the bytes each way needs prebuilt, and shared by reference: every connection
/// holds one, and ten thousand connections each holding a copy (an address, a proxy, three
/// buffers) cost 4 MB more at 10,000 respondents over http (`bench/memory.sh http burst`).
final class ConnectionRoute {
    /// Where the TCP connect goes: the proxy's address, or the target's; nil when its host
    /// name did not resolve.
    let address: SocketAddress?
    /// Why `address` is nil, when the proxy's name did not resolve: the attempt's detail.
    let unresolved: String?
    /// The proxy, nil for none.
    let proxy: HTTPProxy?
    /// `CONNECT host:port HTTP/1.1`, `Host` and `Proxy-Authorization` (with credentials), and the
    /// blank line, for https and h2c through a proxy; nil when the connection goes without a tunnel.
    let tunnelRequest: [UInt8]?
    /// `http://host[:port]`, which goes before each request's path in absolute form: plain
    /// http over HTTP/1.1 through a proxy. Nil otherwise.
    let absoluteTarget: [UInt8]?
    /// `Proxy-Authorization: …` and its CRLF, sent with each absolute-form request when the
    /// proxy has credentials.
    let proxyAuthorizationLine: [UInt8]?
    /// The target as `CONNECT` names it, `host:port`: what a proxy's refusal says it refused.
    let targetAuthority: String

    /// Straight to the target at `address`.
    init(direct address: SocketAddress?, targetAuthority: String) {
        self.address = address
        unresolved = nil
        proxy = nil
        tunnelRequest = nil
        absoluteTarget = nil
        proxyAuthorizationLine = nil
        self.targetAuthority = targetAuthority
    }

    /// Through `proxy`, reached at the first of `resolution`'s addresses: in a tunnel when
    /// `tunnels` (https, h2c), else with requests in absolute form for `target`.
    init(
        through proxy: HTTPProxy, resolution: Result<[SocketAddress], SocketAddress.ResolutionError>, target: HTTPTarget,
        tunnels: Bool
    ) {
        switch resolution {
        case .success(let addresses):
            address = addresses.first
            unresolved = addresses.isEmpty ? "the proxy \(proxy.authority) has no address" : nil
        case .failure(let error):
            address = nil
            unresolved = "the proxy's host name did not resolve: \(error.description)"
        }
        self.proxy = proxy
        let host = target.isIPv6Literal ? "[\(target.host)]" : target.host
        targetAuthority = "\(host):\(target.port)"
        let authorization = proxy.authorization.map { "Proxy-Authorization: \($0)\r\n" }
        if tunnels {
            tunnelRequest = Array("CONNECT \(targetAuthority) HTTP/1.1\r\nHost: \(targetAuthority)\r\n\(authorization ?? "")\r\n".utf8)
            absoluteTarget = nil
            proxyAuthorizationLine = nil
        } else {
            tunnelRequest = nil
            absoluteTarget = Array("http://\(target.hostHeader)".utf8)
            proxyAuthorizationLine = authorization.map { Array($0.utf8) }
        }
    }

    /// What a failure to reach the proxy adds to its kind, naming the proxy (never its
    /// credentials); nil without a proxy, where the kind says it all as before.
    func unreachable(_ what: String) -> String? {
        proxy.map { "\(what) the proxy \($0.authority)" }
    }
}

/// A pool's routes: the run's (`HTTPClientConfiguration.proxy`, or none) and, made on first use,
/// one per proxy of a respondent's own (`Device.proxy`). Loop thread only, like its pool.
final class ConnectionRoutes {
    /// Where the run's connections go.
    let run: ConnectionRoute
    private let target: HTTPTarget
    private let tunnels: Bool
    private var byProxy: [HTTPProxy: ConnectionRoute] = [:]

    /// The routes to `target` at `address`, through the run's `proxy` when there is one, with
    /// what its host resolved to. Connections tunnel when they speak TLS or h2c.
    init(
        target: HTTPTarget, address: SocketAddress?, proxy: (HTTPProxy, Result<[SocketAddress], SocketAddress.ResolutionError>)?,
        version: HTTPVersion
    ) {
        self.target = target
        tunnels = target.scheme == .https || version == .http2
        let host = target.isIPv6Literal ? "[\(target.host)]" : target.host
        if let (proxy, resolution) = proxy {
            run = ConnectionRoute(through: proxy, resolution: resolution, target: target, tunnels: tunnels)
        } else {
            run = ConnectionRoute(direct: address, targetAuthority: "\(host):\(target.port)")
        }
    }

    /// Where a connection of `device` goes: through its respondent's own proxy when it has one,
    /// else the run's way. A proxy's host is resolved the first time a connection goes through
    /// it, on the loop (an address, or a name the system's hosts file holds, takes no wait).
    func route(for device: Device?) -> ConnectionRoute {
        guard let proxy = device?.proxy, proxy != run.proxy else { return run }
        if let known = byProxy[proxy] { return known }
        let route = ConnectionRoute(
            through: proxy, resolution: SocketAddress.resolve(host: proxy.host, port: proxy.port), target: target, tunnels: tunnels)
        byProxy[proxy] = route
        return route
    }
}
