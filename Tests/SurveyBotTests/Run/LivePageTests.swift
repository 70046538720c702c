import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// The live page of `--metrics-listen`: what its fragment says of a report, the documents the
/// listener serves and how, rendering only on demand, and the final state once a run has ended.
@Suite struct LivePageTests {
    /// The fixture's report (3 s of a run) judged on `thresholds`, the abort ones as given.
    private static func report(_ thresholds: [Threshold], respondents: Int = 20) -> RunReport {
        var plan = ReportFixtures.plan
        plan.thresholds = thresholds
        return ReportFixtures.report(metrics: ReportFixtures.metrics(respondents: respondents), plan: plan)
    }

    private static func threshold(_ name: String, _ check: String, abortAfter: Duration? = nil) throws -> Threshold {
        var threshold = try #require(PlanLoader.thresholds([name: check]).first)
        if let abortAfter {
            threshold.abort = true
            threshold.abortAfter = abortAfter
        }
        return threshold
    }

    /// The text of the table row whose first cell holds `code`.
    private static func row(_ html: String, _ code: String) -> String? {
        html.components(separatedBy: "<tr").first { $0.contains("<code>\(XMLText.escape(code))</code>") }
    }

    @Test func theFragmentSaysEachThresholdsValueAndStateSoFarAbortOnesMarked() throws {
        let holding = try Self.threshold("questions.success_rate", ">= 50%")
        let failing = try Self.threshold("submit.retries", "< 1")
        let abortLater = try Self.threshold("submit.success_rate", ">= 100%", abortAfter: .seconds(30))
        let report = Self.report([holding, failing, abortLater])
        let html = LivePage.fragment(LivePage.View(report: report, duration: .seconds(60), respondents: 20, final: false))

        let retries = try #require(report.thresholds[1].actual)
        #expect(retries >= 1, "the fixture has retries")
        #expect(Self.row(html, holding.description)?.contains("✓ holding") == true)
        let failingRow = try #require(Self.row(html, failing.description))
        #expect(failingRow.contains("✗ failing") && failingRow.contains(">\(Readable.number(retries))<"), "\(failingRow)")
        // Judged from 30 s, 3 s into the run: failing, but it cannot stop the run yet.
        let abortRow = try #require(Self.row(html, abortLater.description))
        #expect(abortRow.contains("(abort after 30s)") && abortRow.contains("✗ failing (judged from 30s)"), "\(abortRow)")
        #expect(html.contains("failing 2 of 3 thresholds so far (an abort threshold"), "\(html)")
        #expect(!html.contains("data-final"))

        let allHold = LivePage.fragment(LivePage.View(report: Self.report([holding]), duration: nil, respondents: nil, final: false))
        #expect(allHold.contains("class=\"verdict ok\"") && allHold.contains("1 of 1 threshold holding so far"), "\(allHold)")
    }

    @Test func aThresholdWithoutSamplesIsWaitingNotFailing() throws {
        let latency = try Self.threshold("submit.p95", "< 250ms")
        let html = LivePage.fragment(
            LivePage.View(report: Self.report([latency], respondents: 0), duration: .seconds(60), respondents: 20, final: false))
        #expect(Self.row(html, latency.description)?.contains("… no samples yet") == true, "\(html)")
        #expect(html.contains("class=\"verdict running\"") && html.contains("no threshold has samples yet"))
    }

    @Test func theFragmentShowsTheProgressFiguresOfTheReport() throws {
        let report = Self.report([])
        let html = LivePage.fragment(LivePage.View(report: report, duration: .seconds(60), respondents: 50, final: false))
        let attempts = report.stepReports.values.reduce(0) { $0 + $1.attempts }
        let failed = report.stepReports.values.reduce(0) { $0 + $1.failedAttempts }
        #expect(attempts > 0 && failed > 0)
        #expect(html.contains("id=\"elapsed\">3 s of 60 s<"), "\(html)")
        #expect(html.contains("id=\"started\">20 of 50<"))
        #expect(html.contains("id=\"completed\">\(report.respondents.completed)<"))
        #expect(html.contains("id=\"abandoned\">\(report.respondents.abandoned)<"))
        #expect(html.contains("id=\"dropped\">0<"))
        #expect(html.contains("id=\"attempts\">\(attempts)<"))
        #expect(html.contains("id=\"failed\">\(failed)<"))
        // The HTML report's charts, drawn by its code.
        #expect(html.contains(HTMLReport.charts(TimelineCharts(runs: [.init(report: report, label: nil, dashed: false)]))))
        #expect(html.contains("Attempts per second, by outcome"))
    }

    @Test func theFragmentWarnsWhileSurveyBotFallsBehindAndChartsItsLag() throws {
        let behind = ReportFixtures.report(metrics: LagReportTests.metrics(arrivalMs: 30))
        let html = LivePage.fragment(LivePage.View(report: behind, duration: .seconds(60), respondents: 50, final: false))
        #expect(html.contains("Warning: survey-bot itself fell behind: arrivals started 30"), "\(html)")
        #expect(html.contains("survey-bot&#39;s own lag (p99)"))
        let onTime = ReportFixtures.report(metrics: LagReportTests.metrics(arrivalMs: 0.1))
        let calm = LivePage.fragment(LivePage.View(report: onTime, duration: .seconds(60), respondents: 50, final: false))
        #expect(!calm.contains("fell behind"))
    }

    @Test func theFinalFragmentHasTheVerdictAndLinksTheReport() throws {
        let report = Self.report([try Self.threshold("submit.retries", "< 1")])
        let html = LivePage.fragment(LivePage.View(report: report, duration: nil, respondents: 20, final: true))
        #expect(html.contains("data-final=\"true\">Run ended: ✗ failed 1 of 1 threshold<"), "\(html)")
        #expect(html.contains("href=\"report.html\"") && html.contains("href=\"report.json\""))
        #expect(html.contains(HTMLReport.thresholds(report)))
    }

    /// Two respondents under way since the start of a run read 1.25 s in: the engine has
    /// counted them to the end of the second interval, 2 s; the live timeline to 1.25 s, so the
    /// chart shows 2 active over the quarter second that has passed, not 8.
    @Test func aLiveTimelineCountsTheRespondentsUnderWayOnlyUpToNow() throws {
        typealias Point = RunReport.TimelineRecord.SurveyPoint
        var timeline = RunReport.TimelineRecord(
            intervalS: 1, start: "2026-11-26T00:00:00.000Z", stepPoints: [:],
            survey: [
                Point(t: 0, respondentsActive: 2, respondentsStarted: 2, respondentsFinished: 0, dropped: 0),
                Point(t: 1, respondentsActive: 2, respondentsStarted: 0, respondentsFinished: 0, dropped: 0),
            ], runStartS: 0, runEndS: 1.25)
        timeline.endNow()
        #expect(timeline.survey[0].respondentsActive == 2)
        #expect(timeline.survey[1].respondentsActive == 0.5)
        let last = try #require(timeline.covered(startedAt: "", endedAt: "").last)
        #expect(last.rate(timeline.survey[1].respondentsActive * timeline.intervalS) == 2)
        // At the end of an interval there is nothing ahead to take off.
        timeline.runEndS = 2
        timeline.endNow()
        #expect(timeline.survey[1].respondentsActive == 0.5)
    }

    /// A report's free text — name, target, times, threshold texts — is escaped like the HTML
    /// report's: the hostile report's image and comment stay text, running or final.
    @Test func theReportsTextIsEscaped() {
        let report = ReportEscapingTests.hostileReport()
        for final in [false, true] {
            let page = LivePage.document(
                name: report.name, fragment: LivePage.fragment(LivePage.View(report: report, duration: nil, respondents: nil, final: final))
            )
            #expect(!page.contains("<img") && !page.contains("<!--"), "final: \(final)")
            #expect(page.contains("&lt;img src=https:"), "final: \(final)")
        }
    }

    /// Strict: the page names no other place. The only URLs are the XHTML and SVG namespaces,
    /// which browsers never fetch, and the script fetches the page's own fragment.
    @Test func thePageFetchesNothingFromElsewhere() throws {
        let page = LivePage.document(
            name: "smoke",
            fragment: LivePage.fragment(LivePage.View(report: Self.report([]), duration: nil, respondents: nil, final: false)))
        let namespaces: Set = ["http://www.w3.org/1999/xhtml", "http://www.w3.org/2000/svg"]
        let urls = page.matches(of: try Regex("https?://[^\"' )<]*"))
        #expect(Set(urls.map { String(page[$0.range]) }).isSubset(of: namespaces), "\(Set(urls.map { String(page[$0.range]) }))")
        #expect(!page.contains("src=") && !page.contains("<link"))
        #expect(page.contains("fetch(\"live/fragment\""))
        #expect(page.components(separatedBy: "fetch(").count == 2)
    }
}

/// The listener's documents on a real socket: content types, 404 and 405, rendering on demand,
/// the final state.
@Suite struct LiveListenerTests {
    /// A listener whose renderings are counted, of the fixture's report.
    private static func listener(
        group: EventLoopGroup, interval: Duration = .milliseconds(20), pageKeepWarm: Duration = .seconds(3), views: Counter
    ) throws -> MetricsListener {
        let renderers = MetricsListener.Renderers(name: "smoke") {
            views.add()
            return LivePage.View(report: ReportFixtures.report(), duration: .seconds(60), respondents: 20, final: false)
        }
        return try MetricsListener(
            address: .init(host: "127.0.0.1", port: 0), group: group, interval: interval, keepWarm: (.seconds(120), pageKeepWarm),
            renderers: renderers)
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// A browser's tab: one kept-alive connection to the listener. Its timeout is far above any
    /// loopback answer, so that a machine busy with other work cannot fail a request for it.
    final class Viewer: Sendable {
        let target: HTTPTarget
        let group = EventLoopGroup(threads: 1)
        let client: HTTPClient

        init(port: Int) throws {
            target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: port)
            client = try HTTPClient(target: target, group: group, configuration: HTTPClientConfiguration(timeout: .seconds(60)))
        }

        /// `METHOD path`: the status, the Content-Type, the body.
        func request(_ method: String = "GET", _ path: String) async throws -> (status: Int, type: String?, body: String) {
            var request = HTTPRequest(try HTTPRequest.Template(method: method, path: path, target: target), collectBody: true)
            request.collectHeaders = true
            let response = try await client.send(request).received.get()
            let type = response.headers.first { $0.name.lowercased() == "content-type" }?.value
            return (response.status, type, String(decoding: response.body, as: UTF8.self))
        }

        func close() async {
            await client.shutdown()
            group.shutdown()
        }
    }

    /// `METHOD path` on a connection of its own.
    private static func request(_ method: String = "GET", port: Int, path: String) async throws -> (
        status: Int, type: String?, body: String
    ) {
        let viewer = try Viewer(port: port)
        let result = try await viewer.request(method, path)
        await viewer.close()
        return result
    }

    /// A page that rebinds its DNS name to 127.0.0.1 sends that name as its `Host`: the
    /// listener answers 421, so no browser tab reads the run's figures; `localhost`, IP
    /// addresses and the name it listens on are answered.
    @Test func aRequestForAnotherHostIsMisdirected() async throws {
        #expect(MetricsListener.hostAllowed("127.0.0.1:9464", bindHost: "127.0.0.1"))
        #expect(MetricsListener.hostAllowed("localhost:9464", bindHost: "127.0.0.1"))
        #expect(MetricsListener.hostAllowed("[::1]:9464", bindHost: "::1"))
        #expect(MetricsListener.hostAllowed("127.1.2.3", bindHost: "0.0.0.0"))
        #expect(MetricsListener.hostAllowed("metrics.lab:9464", bindHost: "metrics.lab"))
        #expect(MetricsListener.hostAllowed(nil, bindHost: "127.0.0.1"))
        #expect(!MetricsListener.hostAllowed("rebind.attacker.example:9464", bindHost: "127.0.0.1"))
        #expect(!MetricsListener.hostAllowed("localhost.attacker.example", bindHost: "127.0.0.1"))
        #expect(!MetricsListener.hostAllowed("127.0.0.1:x", bindHost: "127.0.0.1"))
        let group = EventLoopGroup(threads: 1)
        let listener = try Self.listener(group: group, views: Counter())
        defer { group.shutdown() }
        let client = try RawClient(port: listener.port)
        client.writeAll(Array("GET /report.json HTTP/1.1\r\nHost: rebind.attacker.example\r\n\r\n".utf8))
        let refused = String(decoding: client.read(until: .now + .seconds(10), stopAfter: 12).bytes, as: UTF8.self)
        #expect(refused.hasPrefix("HTTP/1.1 421"), "\(refused)")
        let page = try await Self.request(port: listener.port, path: "/metrics")
        #expect(page.status == 200)
        await listener.shutdown()
    }

    @Test func thePageTheFragmentAndTheMetricsAreServedWithTheirContentTypes() async throws {
        let group = EventLoopGroup(threads: 1)
        let listener = try Self.listener(group: group, views: Counter())
        defer { group.shutdown() }
        let port = listener.port
        let page = try await Self.request(port: port, path: "/")
        #expect(page.status == 200 && page.type == "text/html; charset=utf-8")
        #expect(page.body.hasPrefix("<!DOCTYPE html>") && page.body.contains("<div id=\"live\">") && page.body.contains("<script>"))
        // Asked for, the page is rendered off the loops and the next request has the figures.
        var fragment = try await Self.request(port: port, path: "/live/fragment")
        #expect(fragment.status == 200 && fragment.type == "text/html; charset=utf-8")
        #expect(
            await eventually {
                (try? await Self.request(port: port, path: "/live/fragment"))?.body.contains("id=\"attempts\"") == true
            })
        fragment = try await Self.request(port: port, path: "/live/fragment?t=1")
        #expect(fragment.body.contains("Thresholds so far") && !fragment.body.contains("<html"))
        let metrics = try await Self.request(port: port, path: "/metrics")
        #expect(metrics.status == 200 && metrics.type == PrometheusReport.contentType && metrics.body.contains("survey_bot_attempts_total"))

        let other = try await Self.request(port: port, path: "/other")
        #expect(other.status == 404 && other.body.contains("try / (the live page) or /metrics"))
        let report = try await Self.request(port: port, path: "/report.html")
        #expect(report.status == 404 && report.body.contains("once the run has ended"))
        for path in ["/", "/live/fragment", "/metrics", "/report.json"] {
            #expect(try await Self.request("POST", port: port, path: path).status == 405, "\(path)")
        }
        await listener.shutdown()
    }

    /// Nobody asks: nothing is rendered but the metrics' first rendering. Many ask: at most one
    /// rendering an interval, whatever their number. Nobody asks any more: rendering stops.
    @Test func thePageIsRenderedOnlyOnDemandAndAtMostOnceAnInterval() async throws {
        let group = EventLoopGroup(threads: 1)
        let views = Counter()
        let interval = Duration.milliseconds(50)
        let listener = try Self.listener(group: group, interval: interval, pageKeepWarm: .milliseconds(200), views: views)
        defer { group.shutdown() }
        let port = listener.port
        try await Task.sleep(for: .milliseconds(300))
        #expect(listener.renders.metrics == 1 && listener.renders.page == 0)
        #expect(views.value == 1)

        // Six viewers asking as fast as they can for 600 ms, each on its connection, and five
        // times at least (a loaded machine may start them late).
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Int.self) { viewers in
            for _ in 0..<6 {
                viewers.addTask {
                    let viewer = try Viewer(port: port)
                    var asked = 0
                    while asked < 5 || ContinuousClock.now - start < .milliseconds(600) {
                        _ = try await viewer.request("GET", "/live/fragment")
                        asked += 1
                    }
                    await viewer.close()
                    return asked
                }
            }
            var asked = 0
            for try await count in viewers { asked += count }
            #expect(asked >= 30)
        }
        #expect(await eventually { listener.renders.page >= 1 })
        let renders = listener.renders.page
        let elapsed = ContinuousClock.now - start
        // Renderings are an interval apart at least, however many ask.
        #expect(renders <= Int(elapsed / interval) + 1, "\(renders) renderings in \(elapsed)")
        #expect(listener.renders.metrics == 1, "the page's viewers cost the metrics nothing")

        // Past the page's keep-warm, the renderer goes idle: no rendering without a request.
        try await Task.sleep(for: .seconds(1))
        let idle = listener.renders.page
        try await Task.sleep(for: .milliseconds(500))
        #expect(listener.renders.page == idle)
        // A request wakes it at once, without waiting for a tick.
        _ = try await Self.request(port: port, path: "/")
        #expect(await eventually { listener.renders.page > idle })
        await listener.shutdown()
    }

    /// A first scrape two seconds into a run gets that run's figures as of the scrape, not those
    /// of its start (0 attempts); scrapes within an interval of it share its rendering.
    @Test func aFirstScrapeTwoSecondsIntoARunSeesThatRunsAttempts() async throws {
        let group = EventLoopGroup(threads: 1)
        let respondents = Counter()
        let renderers = MetricsListener.Renderers(name: "smoke") {
            let count = respondents.value
            return LivePage.View(
                report: ReportFixtures.report(metrics: ReportFixtures.metrics(respondents: count)), duration: .seconds(60),
                respondents: 20, final: false)
        }
        let listener = try MetricsListener(address: .init(host: "127.0.0.1", port: 0), group: group, renderers: renderers)
        defer { group.shutdown() }
        // The run goes on for two seconds, nobody scraping.
        for _ in 0..<20 { respondents.add() }
        try await Task.sleep(for: .seconds(2))
        let expected = PrometheusReport.render(ReportFixtures.report(metrics: ReportFixtures.metrics(respondents: 20)), live: true)
        #expect(expected.contains("survey_bot_attempts_total"))
        let scrape = try await Self.request(port: listener.port, path: "/metrics")
        #expect(scrape.status == 200 && scrape.body == expected)
        #expect(listener.renders.metrics >= 2)
        await listener.shutdown()
    }

    @Test func theFinalStateReplacesTheLiveOneAndServesTheReport() async throws {
        let group = EventLoopGroup(threads: 1)
        let views = Counter()
        let listener = try Self.listener(group: group, views: views)
        defer { group.shutdown() }
        let report = ReportFixtures.report()
        let json = try ReportFormat.json.render(report)
        listener.finish(
            MetricsListener.Final(
                metrics: PrometheusReport.render(report),
                fragment: LivePage.fragment(LivePage.View(report: report, duration: nil, respondents: 20, final: true)),
                reportHTML: HTMLReport.render(report), reportJSON: json))
        let port = listener.port
        let fragment = try await Self.request(port: port, path: "/live/fragment")
        #expect(fragment.body.contains("data-final=\"true\">Run ended: "))
        #expect(try await Self.request(port: port, path: "/").body.contains("data-final=\"true\""))
        let html = try await Self.request(port: port, path: "/report.html")
        #expect(html.status == 200 && html.type == "text/html; charset=utf-8" && html.body == HTMLReport.render(report))
        let served = try await Self.request(port: port, path: "/report.json")
        #expect(served.status == 200 && served.type == "application/json" && served.body == json)
        #expect(try await Self.request(port: port, path: "/metrics").body.contains("survey_bot_passed"))
        // The final state is not rendered again, however often it is asked for.
        try await Task.sleep(for: .milliseconds(200))
        #expect(views.value == 1 && listener.renders.page == 0)
        await listener.shutdown()
    }
}

/// Rendering on demand, on made-up instants.
@Suite struct RenderDemandTests {
    private let zero = ContinuousClock.now

    @Test func neverAskedIsNeverRendered() {
        let demand = RenderDemand(keepWarm: .seconds(3), interval: .seconds(1))
        for second in 0..<100 { #expect(!demand.isDue(at: zero + .seconds(second))) }
    }

    @Test func askedItIsRenderedOnceAnIntervalWhileWarm() {
        var demand = RenderDemand(keepWarm: .seconds(3), interval: .seconds(1))
        demand.asked(at: zero)
        #expect(demand.isDue(at: zero))
        demand.rendered(at: zero)
        #expect(!demand.isDue(at: zero + .milliseconds(999)))
        #expect(demand.isDue(at: zero + .seconds(1)))
        // Past keepWarm since the last request: not due, however old the rendering.
        #expect(!demand.isWarm(at: zero + .milliseconds(3001)))
        #expect(!demand.isDue(at: zero + .seconds(10)))
        demand.asked(at: zero + .seconds(10))
        #expect(demand.isDue(at: zero + .seconds(10)))
    }

    @Test func manyViewersCostOneRenderingAnInterval() {
        var demand = RenderDemand(keepWarm: .seconds(3), interval: .seconds(1))
        var random = SplitMix64(seed: 27)
        // 50 viewers polling every second for a minute, each at its own phase; the renderer
        // looks every 10 ms.
        let phases = (0..<50).map { _ in Int(random.next() % 1000) }
        for millisecond in stride(from: 0, to: 60_000, by: 10) {
            let now = zero + .milliseconds(millisecond)
            for phase in phases where millisecond % 1000 == phase / 10 * 10 { demand.asked(at: now) }
            if demand.isDue(at: now) { demand.rendered(at: now) }
        }
        #expect(demand.renders >= 59 && demand.renders <= 60, "\(demand.renders)")
    }
}
