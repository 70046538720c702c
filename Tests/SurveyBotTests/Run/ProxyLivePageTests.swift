import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// The live page and what the listener serves beside it never show a proxy's credentials: the
/// report so far records the proxy as `http://***@host:port`.
@Suite struct ProxyLivePageTests {
    @Test func theListenerServesTheProxyRedacted() async throws {
        let directory = try TemporaryDirectory()
        let password = "pw\(UInt64.random(in: 1_000_000...9_999_999))"
        // A loopback port nobody listens on: whether attempts get through is the wire's business.
        let plan = try #require(
            expectPlan(
                lines(
                    "name: live", "respondents: 2", "concurrency: 2", "timeout: 2s", "proxy: http://carol:\(password)@127.0.0.1:9",
                    "report:", "  dir: \(directory.path)")))
        var options = PlanRun.Options(quiet: true)
        options.metricsListen = MetricsListener.Address(host: "127.0.0.1", port: 0)
        options.metricsLinger = .seconds(3)
        let session = PlanRun(plan: plan, path: "test.plan", options: options, console: CapturingConsole().console)
        let pages = Mutex<[String: String]>([:])
        session.onFinish = { port in
            guard let port else { return }
            // From a thread of its own, as the linger's own test does: within the linger.
            Thread {
                for path in ["/", "/report.json", "/metrics", "/report.html"] {
                    guard let client = try? RawClient(port: port) else { continue }
                    client.writeAll(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
                    let answer = client.read(until: .now + .seconds(10)).bytes
                    pages.withLock { $0[path] = String(decoding: answer, as: UTF8.self) }
                }
            }.start()
        }
        _ = await session.run()
        #expect(await eventually { pages.withLock { $0.count } == 4 })
        for (path, page) in pages.withLock({ $0 }) {
            #expect(page.hasPrefix("HTTP/1.1 200"), "\(path): \(page.prefix(200))")
            #expect(!page.contains(password) && !page.contains("carol"), "\(path) shows the credentials")
        }
        #expect(pages.withLock { $0["/report.json"] }?.contains("http://***@127.0.0.1:9 (from the plan)") == true)
    }
}
