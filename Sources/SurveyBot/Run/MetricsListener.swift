import SurveyEngine
import Synchronization

/// `run --metrics-listen HOST:PORT`: the run's figures so far as Prometheus metrics at
/// `GET /metrics`, served by the engine's HTTP server on the run's own event loops.
///
/// The metrics are rendered off the loops, every `interval`, by a task of their own, and a
/// scrape is answered with the last rendering: a scrape never costs a loop more than the copy
/// of a few kilobytes, and the run's respondents never wait for it. Reading the figures takes
/// each lane's lock only for as long as it takes to copy its counters
/// (`MetricsRecorder.snapshot`). Any other path is 404, any other method on `/metrics` 405.
final class MetricsListener: Sendable {
    /// Where to listen: a host (a name, an IPv4 address, or an IPv6 address) and a port.
    struct Address: Sendable, Equatable, CustomStringConvertible {
        var host: String
        var port: Int

        var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

        /// `127.0.0.1:9464`, `localhost:9464`, `[::1]:9464`; a port alone (`9464`, `:9464`) is
        /// loopback's, 127.0.0.1: the listener binds another address only when told.
        static func parse(_ text: String) throws(UsageError) -> Address {
            func failure(_ why: String) -> UsageError {
                UsageError("--metrics-listen \(text): \(why); expected HOST:PORT, like 127.0.0.1:9464")
            }
            let bare = text.hasPrefix(":") ? text.dropFirst() : text[...]
            if !bare.isEmpty, bare.allSatisfy(\.isASCII), bare.allSatisfy(\.isNumber) {
                guard let port = Int(bare), (0...65_535).contains(port) else { throw failure("the port must be a number from 0 to 65535") }
                return Address(host: "127.0.0.1", port: port)
            }
            var host: Substring
            let portText: Substring
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                    throw failure("an IPv6 address needs its brackets closed before the port")
                }
                host = text[text.index(after: text.startIndex)..<close]
                portText = text[text.index(close, offsetBy: 2)...]
            } else {
                guard let colon = text.lastIndex(of: ":") else { throw failure("no port") }
                host = text[..<colon]
                portText = text[text.index(after: colon)...]
                if host.contains(":") { throw failure("write an IPv6 address in brackets") }
            }
            host = host.drop { $0 == " " }
            guard !host.isEmpty else { throw failure("no host: give the address to listen on") }
            guard let port = Int(portText), (0...65_535).contains(port) else { throw failure("the port must be a number from 0 to 65535") }
            return Address(host: String(host), port: port)
        }
    }

    /// The address the server listens on, with the port the system picked for port 0.
    let address: SocketAddress
    private let server: HTTPServer
    /// The port the server listens on.
    var port: Int { server.port }
    private let current: Latest
    private let refreshing: Task<Void, Never>

    /// What one scraper may hold: a Prometheus server or two, and a person with `curl`, fit in
    /// 8 connections; at most that many descriptors are the listener's (and its listening
    /// socket), whoever connects, so it can never take the ones the run's respondents need. An
    /// idle connection is closed after 30 s, a request slower than 5 s too, and a connection
    /// that pipelines scrapes without reading the answers is not read past 256 KiB unsent.
    static let limits = HTTPServer.Limits(
        maxHeadBytes: 8 * 1024, maxBodyBytes: 0, maxConnections: 8, maxUnsentBytes: 256 * 1024, idleTimeout: .seconds(30),
        headerTimeout: .seconds(5))

    private static let notFound = EncodedResponse(HTTPServerResponse(status: 404, body: Array("not found: try /metrics\n".utf8)))
    private static let wrongMethod = EncodedResponse(
        HTTPServerResponse(status: 405, headers: [HTTPHeader(name: "Allow", value: "GET")], body: []))

    /// Listens on `address` on the loops of `group` and serves what `render` returns, called
    /// now and then every `interval`.
    init(
        address: Address, group: EventLoopGroup, interval: Duration = .seconds(1), render: @escaping @Sendable () -> String
    ) throws(HTTPServer.StartError) {
        let current = Latest(Self.response(render()))
        self.current = current
        server = try HTTPServer(host: address.host, port: address.port, group: group, limits: Self.limits) { request in
            guard request.pathWithoutQuery == "/metrics" else { return .respond(Self.notFound) }
            guard request.method == "GET" else { return .respond(Self.wrongMethod) }
            return .respond(current.response.withLock { $0 })
        }
        self.address = server.address
        refreshing = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { break }
                let response = Self.response(render())
                current.response.withLock { $0 = response }
            }
        }
    }

    /// The last rendering, shared by the loops that answer scrapes and the task that renders.
    private final class Latest: Sendable {
        let response: Mutex<EncodedResponse>

        init(_ response: EncodedResponse) {
            self.response = Mutex(response)
        }
    }

    private static func response(_ text: String) -> EncodedResponse {
        EncodedResponse(
            HTTPServerResponse(
                status: 200, headers: [HTTPHeader(name: "Content-Type", value: PrometheusReport.contentType)], body: Array(text.utf8)))
    }

    /// Stops rendering and closes the server.
    func shutdown() async {
        refreshing.cancel()
        await refreshing.value
        await server.shutdown()
    }
}
