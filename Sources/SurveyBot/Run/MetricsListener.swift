import SurveyEngine
import SurveyWire
import Synchronization

/// `run --metrics-listen HOST:PORT`: the run's figures so far as Prometheus metrics at
/// `GET /metrics`, and the live page at `GET /` (`LivePage`, its fragment at `/live/fragment`),
/// served by the engine's HTTP server; once the run has ended, its final figures there, and the
/// report at `/report.html` and `/report.json`, until the listener is shut down.
///
/// Everything is rendered off the run's loops, on the listener's own loop (so that no busy
/// cooperative pool can hold it back), and only on demand:
/// each document (the metrics; the page and its fragment) is rendered again at most once an
/// `interval`, and only while someone asked for it within its `RenderDemand.keepWarm` — the
/// page's 3 s, the metrics' 2 min, longer than a Prometheus scrape interval. A page request is
/// answered with the last rendering (the copy of a few kilobytes on a loop, never a wait); when
/// nobody had asked lately it wakes the task, and the next request gets fresh figures. A scrape
/// is answered with the counters as of the scrape, as Prometheus's client libraries answer: when
/// the last rendering is older than an interval (the first scrape of a run, or one after two
/// quiet minutes), the metrics are rendered for it there and then, on the listener's loop. So
/// nobody watching costs nothing, and any number of viewers cost one rendering a second. Reading the
/// figures takes each lane's lock only for as long as it takes to copy its counters
/// (`MetricsRecorder.snapshot`). Any other path is 404, any method but GET 405.
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

    /// What the listener renders from, on demand, off the loops.
    struct Renderers: Sendable {
        /// The run's name as reports show it, for the page's title.
        var name: String
        /// The run so far, read when a document is due: the metrics (`PrometheusReport`) and
        /// the page (`LivePage`) are rendered from one reading when both are.
        var view: @Sendable () -> LivePage.View
    }

    /// What the listener serves once the run has ended: its final figures, and its report.
    struct Final: Sendable {
        /// The Prometheus text of the report, verdict and all.
        var metrics: String
        /// The live page's fragment of the final report.
        var fragment: String
        /// The report as the HTML report renders it.
        var reportHTML: String
        /// The JSON report, as written; nil when it could not be encoded (then 500).
        var reportJSON: String?
    }

    /// The address the server listens on, with the port the system picked for port 0.
    let address: SocketAddress
    private let server: HTTPServer
    /// The port the server listens on.
    var port: Int { server.port }
    /// The run's name, for the page's title.
    private let name: String
    private let state: Shared
    private let wake: AsyncStream<Void>.Continuation
    private let refreshing: Task<Void, Never>

    /// How long the page is kept fresh after it was last asked for: it polls every second.
    static let pageKeepWarm = Duration.seconds(3)
    /// How long the metrics are kept fresh after the last scrape: longer than a Prometheus
    /// scrape interval (a minute by default), so that each scrape gets figures of the last
    /// second, not those of the scrape before.
    static let metricsKeepWarm = Duration.seconds(120)

    /// What one scraper may hold: a Prometheus server or two, and a person with `curl`, fit in
    /// 8 connections; at most that many descriptors are the listener's (and its listening
    /// socket, and its event loop's epoll and wake-up descriptors), whoever connects, so it can
    /// never take the ones the run's respondents need. Pages count as scrapers. An
    /// idle connection is closed after 30 s, a request slower than 5 s too, and a connection
    /// that pipelines scrapes without reading the answers is not read past 256 KiB unsent.
    static let limits = HTTPServer.Limits(
        maxHeadBytes: 8 * 1024, maxBodyBytes: 0, maxConnections: 8, maxUnsentBytes: 256 * 1024, idleTimeout: .seconds(30),
        headerTimeout: .seconds(5))

    private static let notFound = EncodedResponse(
        HTTPServerResponse(status: 404, body: Array("not found: try / (the live page) or /metrics\n".utf8)))
    private static let notYet = EncodedResponse(
        HTTPServerResponse(status: 404, body: Array("not yet: the report is served here once the run has ended; the live page is /\n".utf8))
    )
    private static let wrongHost = EncodedResponse(
        HTTPServerResponse(
            status: 421, body: Array("misdirected: this listener answers for localhost, an IP address or the name it listens on\n".utf8)))

    /// Whether a request's `Host` names this listener: `localhost`, an IP address, or the host it
    /// was told to listen on (any port). A page that rebinds its own DNS name to 127.0.0.1 sends
    /// that name: refused, so that it cannot read the run's figures from a browser on the machine.
    /// No `Host` (HTTP/1.0) is allowed: no browser sends such a request.
    static func hostAllowed(_ field: String?, bindHost: String) -> Bool {
        HostCheck(bindHost: bindHost).allows(field)
    }

    private static let wrongMethod = EncodedResponse(
        HTTPServerResponse(status: 405, headers: [HTTPHeader(name: "Allow", value: "GET")], body: []))

    /// The documents served, when each was asked for and rendered, and whether the task waits
    /// for a request (`idle`): one lock, taken by the loops only to read or note.
    private struct State {
        var metricsDemand: RenderDemand
        var pageDemand: RenderDemand
        var metrics: EncodedResponse
        var fragment: EncodedResponse
        var page: EncodedResponse
        var final: (report: EncodedResponse, json: EncodedResponse)?
        var idle = false
    }

    /// The state, shared by the loops that answer and the task that renders.
    private final class Shared: Sendable {
        private let state: Mutex<State>

        init(_ state: State) {
            self.state = Mutex(state)
        }

        func withLock<Result>(_ body: (inout State) -> Result) -> Result {
            state.withLock { body(&$0) }
        }
    }

    /// Listens on `address` on the loops of `group` and serves what `renderers` render, each
    /// at most once every `interval` while asked for within its `keepWarm` (tests shorten it).
    /// The metrics are rendered once now, so that a first scrape has them.
    init(
        address: Address, group: EventLoopGroup, interval: Duration = .seconds(1),
        keepWarm: (metrics: Duration, page: Duration) = (metricsKeepWarm, pageKeepWarm), renderers: Renderers
    ) throws(HTTPServer.StartError) {
        let waiting = LivePage.waiting(name: renderers.name)
        var metricsDemand = RenderDemand(keepWarm: keepWarm.metrics, interval: interval)
        let metrics = Self.response(PrometheusReport.render(renderers.view().report, live: true), type: PrometheusReport.contentType)
        metricsDemand.rendered(at: ContinuousClock.now)
        let state = Shared(
            State(
                metricsDemand: metricsDemand,
                pageDemand: RenderDemand(keepWarm: keepWarm.page, interval: interval),
                metrics: metrics,
                fragment: Self.response(waiting, type: LivePage.contentType),
                page: Self.response(LivePage.document(name: renderers.name, fragment: waiting), type: LivePage.contentType)))
        self.state = state
        name = renderers.name
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.wake = wake
        let bindHost = address.host
        server = try HTTPServer(host: address.host, port: address.port, group: group, limits: Self.limits, credentials: true) { request in
            guard Self.hostAllowed(request.headers.first { $0.name.lowercased() == "host" }?.value, bindHost: bindHost) else {
                return .respond(Self.wrongHost)
            }
            let path = request.pathWithoutQuery
            let known = ["/metrics", "/", "/live/fragment", "/report.html", "/report.json"]
            guard known.contains(where: { $0 == path }) else { return .respond(Self.notFound) }
            guard request.method == "GET" else { return .respond(Self.wrongMethod) }
            if path == "/metrics", let fresh = Self.freshMetrics(state, renderers: renderers) {
                wake.yield()
                return .respond(fresh)
            }
            let (response, wakeUp) = state.withLock { state -> (EncodedResponse, Bool) in
                let now = ContinuousClock.now
                switch path {
                case "/metrics": state.metricsDemand.asked(at: now)
                case "/", "/live/fragment": state.pageDemand.asked(at: now)
                default: break
                }
                let wakeUp = state.idle && state.final == nil
                if wakeUp { state.idle = false }
                switch path {
                case "/metrics": return (state.metrics, wakeUp)
                case "/": return (state.page, wakeUp)
                case "/live/fragment": return (state.fragment, wakeUp)
                case "/report.html": return (state.final?.report ?? Self.notYet, wakeUp)
                default: return (state.final?.json ?? Self.notYet, wakeUp)
                }
            }
            if wakeUp { wake.yield() }
            return .respond(response)
        }
        self.address = server.address
        refreshing = Task(executorPreference: group.loops.first) {
            await Self.refresh(state, renderers: renderers, interval: interval, wakes: wakes)
        }
    }

    /// The metrics as of now when the last rendering is older than an interval (a first scrape,
    /// or one after a quiet spell): rendered here, on the listener's own loop — never one of the
    /// respondents', whose lanes are locked only to copy their counters —, kept for the scrapes
    /// within the interval, and marked asked for so that the task keeps them warm. Nil when the
    /// last rendering is recent enough, or the run has ended (its final figures are served).
    private static func freshMetrics(_ state: Shared, renderers: Renderers) -> EncodedResponse? {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            state.metricsDemand.asked(at: now)
            return state.final == nil && state.metricsDemand.isDue(at: now)
        }
        guard due else { return nil }
        let metrics = response(PrometheusReport.render(renderers.view().report, live: true), type: PrometheusReport.contentType)
        return state.withLock { state -> EncodedResponse? in
            guard state.final == nil else { return nil }
            state.metrics = metrics
            state.metricsDemand.rendered(at: now)
            state.idle = false
            return metrics
        }
    }

    /// Renders each document that is due, sleeps an interval while any is wanted, and waits for
    /// a request when none is: until cancelled.
    private static func refresh(_ state: Shared, renderers: Renderers, interval: Duration, wakes: AsyncStream<Void>) async {
        var wakeUps = wakes.makeAsyncIterator()
        while !Task.isCancelled {
            let now = ContinuousClock.now
            let (metricsDue, pageDue, idle) = state.withLock { state in
                guard state.final == nil else {
                    state.idle = true
                    return (false, false, true)
                }
                state.idle = !state.metricsDemand.isWarm(at: now) && !state.pageDemand.isWarm(at: now)
                return (state.metricsDemand.isDue(at: now), state.pageDemand.isDue(at: now), state.idle)
            }
            let view = metricsDue || pageDue ? renderers.view() : nil
            if metricsDue, let view {
                let metrics = response(PrometheusReport.render(view.report, live: true), type: PrometheusReport.contentType)
                state.withLock { state in
                    guard state.final == nil else { return }
                    state.metrics = metrics
                    state.metricsDemand.rendered(at: now)
                }
            }
            if pageDue, let view {
                let fragment = LivePage.fragment(view)
                let page = response(LivePage.document(name: renderers.name, fragment: fragment), type: LivePage.contentType)
                let part = response(fragment, type: LivePage.contentType)
                state.withLock { state in
                    guard state.final == nil else { return }
                    (state.fragment, state.page) = (part, page)
                    state.pageDemand.rendered(at: now)
                }
            }
            if idle {
                // Nil once cancelled: the loop then ends.
                guard await wakeUps.next() != nil else { break }
            } else {
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Serves `final` from now on: the run has ended. Nothing is rendered again.
    func finish(_ final: Final) {
        let json = final.reportJSON.map { Self.response($0, type: "application/json") }
        let responses = (
            metrics: Self.response(final.metrics, type: PrometheusReport.contentType),
            fragment: Self.response(final.fragment, type: LivePage.contentType),
            page: Self.response(LivePage.document(name: name, fragment: final.fragment), type: LivePage.contentType),
            report: Self.response(final.reportHTML, type: LivePage.contentType),
            json: json
                ?? EncodedResponse(HTTPServerResponse(status: 500, body: Array("the JSON report could not be encoded\n".utf8)))
        )
        state.withLock { state in
            state.metrics = responses.metrics
            state.fragment = responses.fragment
            state.page = responses.page
            state.final = (responses.report, responses.json)
        }
    }

    /// How many times the metrics and the page were rendered, the metrics' first one included.
    var renders: (metrics: Int, page: Int) {
        state.withLock { ($0.metricsDemand.renders, $0.pageDemand.renders) }
    }

    private static func response(_ text: String, type: String) -> EncodedResponse {
        EncodedResponse(HTTPServerResponse(status: 200, headers: [HTTPHeader(name: "Content-Type", value: type)], body: Array(text.utf8)))
    }

    /// Stops rendering and closes the server.
    func shutdown() async {
        refreshing.cancel()
        wake.finish()
        await refreshing.value
        await server.shutdown()
    }
}
