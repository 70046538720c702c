import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// `proxy: ${row.proxy}`: each respondent's device goes through the proxy of its own row, as
/// the transport sees on every request it is given.
@Suite struct RowProxyRunTests {
    /// Answers the default journey (questions on GET, 200 on each submit) and keeps, for each
    /// request, the respondent's row (its `X-Member` header) and its device's proxy.
    final class RecordingTransport: Transport {
        let seen = Mutex<[(member: String, proxy: HTTPProxy??)]>([])

        func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>) {
            let head = String(decoding: request.template.head, as: UTF8.self)
            let member = head.split(separator: "\r\n").first { $0.hasPrefix("X-Member: ") }.map { String($0.dropFirst(10)) } ?? "?"
            let proxy: HTTPProxy??
            if case .respondent(let device) = request.scope { proxy = .some(device.proxy) } else { proxy = nil }
            seen.withLock { $0.append((member, proxy)) }
            let body = request.template.method == "GET" ? #"[{"id":1,"question":"a"}]"# : ""
            continuation.resume(returning: .response(TransportResponse(status: 200, body: Array(body.utf8)), serviceTime: .milliseconds(1)))
        }

        func shutdown() async {}
    }

    @Test func eachRespondentsDeviceCarriesItsRowsProxy() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("people.csv", "member,proxy\nm1,http://alice:pw@p1.test:3128\nm2,\nm3,p3.test\n")
        let path = try directory.write(
            "p.plan",
            lines(
                "target: http://127.0.0.1:9", "respondents: 6", "concurrency: 2", "data: people.csv", "proxy: ${row.proxy}", "api:",
                "  headers:", "    X-Member: ${row.member}"))
        let plan = try PlanLoader(environment: ["http_proxy": "env.test:1"]).load(path: path).get()
        let transport = RecordingTransport()
        guard case .url(let target) = plan.target else { throw CancellationError() }
        let coordinator = try RunCoordinator(configuration: plan.run, target: target, transport: transport)
        let result = await coordinator.run()
        #expect(result.metrics.respondentsCompleted == 6)
        let seen = transport.seen.withLock { $0 }
        // Two requests a respondent (questions, one submit), six respondents over three rows.
        #expect(seen.count == 12)
        let expected: [String: HTTPProxy?] = [
            "m1": HTTPProxy(host: "p1.test", port: 3128, user: "alice", password: "pw"), "m2": nil,
            "m3": HTTPProxy(host: "p3.test", port: HTTPProxy.defaultPort),
        ]
        for (member, proxy) in seen {
            // Every request rode on its respondent's own device, whose proxy is its row's.
            let onDevice = try #require(proxy, "\(member)'s request had no device")
            #expect(onDevice == expected[member], "\(member)")
        }
        #expect(Set(seen.map(\.member)) == ["m1", "m2", "m3"])
        // The run's own proxy is not the environment's: each respondent's stands in for it.
        #expect(plan.run.client.proxy == nil)
    }

    @Test func withoutARowProxyDevicesHaveNone() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("people.csv", "member,proxy\nm1,p1.test:1\n")
        let path = try directory.write(
            "p.plan",
            lines(
                "target: http://127.0.0.1:9", "respondents: 2", "data: people.csv", "connections: per_respondent", "api:",
                "  headers:", "    X-Member: ${row.member}"))
        let plan = try PlanLoader(environment: [:]).load(path: path).get()
        let transport = RecordingTransport()
        guard case .url(let target) = plan.target else { throw CancellationError() }
        _ = try await RunCoordinator(configuration: plan.run, target: target, transport: transport).run()
        let seen = transport.seen.withLock { $0 }
        #expect(seen.count == 4)
        #expect(seen.allSatisfy { $0.proxy == .some(nil) })
    }

    @Test func theEngineRefusesARowWhoseProxyIsNoURL() throws {
        var configuration = RunConfiguration(load: .closed(respondents: 1))
        configuration.data = RespondentData(columns: ["proxy"], rows: [["ok.test:1"], ["ftp://bad.test"]])
        configuration.proxyColumn = "proxy"
        configuration.client.sharing = .perRespondent
        let problems = try #require(configuration.data).problems(for: configuration)
        #expect(problems.map(\.row) == [1])
        #expect(problems.first?.description.contains("bad.test") == false)
        #expect(throws: HTTPSyntaxError.self) {
            try RunCoordinator(
                configuration: configuration, target: HTTPTarget(scheme: .http, host: "127.0.0.1", port: 9),
                transport: RecordingTransport())
        }
    }
}
