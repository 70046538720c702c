import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// The servers survey-bot opens — the `--metrics-listen` listener and `serve` — are exposed
/// services: whoever reaches them can hold connections; binding every interface is said.
@Suite struct ExposedServicesTests {
    @Test func theMetricsListenerHoldsAtMostItsCapOfConnectionsWhoeverConnects() async throws {
        let group = EventLoopGroup(threads: 1)
        let renderers = MetricsListener.Renderers(name: "smoke") {
            LivePage.View(report: ReportFixtures.report(), duration: nil, respondents: nil, final: false)
        }
        let listener = try MetricsListener(address: .init(host: "127.0.0.1", port: 0), group: group, renderers: renderers)
        let port = listener.port
        let cap = MetricsListener.limits.maxConnections
        let (connected, held, closed, scraped) = await onOwnThread { () -> (Int, Int, Int, Bool) in
            // 300 idle connections, as a neighbour in the cluster could open; the listener
            // keeps the first few and closes the rest at once.
            let clients = (0..<300).compactMap { _ in try? RawClient(port: port) }
            // Pass after pass over those not yet closed, until no more than the cap are left
            // (or 30 s): the listener accepts them at its own pace.
            var open = clients
            let deadline = ContinuousClock.now + .seconds(30)
            while open.count > cap && ContinuousClock.now < deadline {
                open = open.filter { !$0.read(until: .now + .milliseconds(5)).closed }
            }
            // Those left stay open a while longer.
            open = open.filter { !$0.read(until: .now + .milliseconds(50)).closed }
            let closed = clients.count - open.count
            // One of those kept still scrapes (the read ends with the answer: its bound only
            // stops a hung test).
            let first = open.first
            _ = first?.write(Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8), until: .now + .seconds(30))
            let answer = first.map { String(decoding: $0.read(until: .now + .seconds(30), stopAfter: 16).bytes, as: UTF8.self) } ?? ""
            return (clients.count, clients.count - closed, closed, answer.hasPrefix("HTTP/1.1 200"))
        }
        await listener.shutdown()
        group.shutdown()
        #expect(held == cap, "\(held) connections held, \(closed) closed")
        // Every connection made beyond the cap is closed. A loaded machine may refuse a few of the
        // 300 connects at the listening socket's backlog before the listener sees them at all.
        #expect(connected > 2 * cap, "only \(connected) of 300 connected")
        #expect(closed == connected - cap)
        #expect(scraped)
        #expect(MetricsListener.limits.idleTimeout == .seconds(30))
    }

    @Test func aWildcardBindIsWarnedAboutEvenWithQuiet() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("quick.plan", "target: builtin\nrespondents: 1\nanswers:\n  \"*\": yes\n")
        for (address, shown) in [("0.0.0.0:0", "0.0.0.0:"), ("0:0", "0.0.0.0:"), ("[::]:0", "[::]:")] {
            let result = await runCommand(["run", plan, "--out", directory.path, "--quiet", "--metrics-listen", address])
            #expect(result.status == .success, "\(address): \(result.err)")
            #expect(result.err.contains("warning: --metrics-listen \(shown)"), "\(address): \(result.err)")
            #expect(result.err.contains("listens on every interface of this host"), "\(address): \(result.err)")
        }
        let loopback = await runCommand(["run", plan, "--out", directory.path, "--quiet", "--metrics-listen", "127.0.0.1:0"])
        #expect(!loopback.err.contains("every interface"), "\(loopback.err)")
    }

    @Test func onlyTheUnspecifiedAddressesAreEveryInterface() throws {
        func address(_ host: String) throws -> SocketAddress {
            guard case .success(let addresses) = SocketAddress.resolve(host: host, port: 9464) else { throw POSIXError(.EINVAL) }
            return addresses[0]
        }
        #expect(try address("0.0.0.0").isUnspecified)
        #expect(try address("::").isUnspecified)
        #expect(try !address("127.0.0.1").isUnspecified)
        #expect(try !address("::1").isUnspecified)
        #expect(WildcardBind.warning(try address("127.0.0.1"), option: "--host") == nil)
        #expect(WildcardBind.warning(try address("::"), option: "--host")?.hasPrefix("warning: --host [::]:9464 listens") == true)
    }
}
