import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyWire

/// The replay's transport: it keeps what went out and what came back, and hands the caller
/// what the inner transport would have handed it.
@Suite struct RecordingTransportTests {
    /// Answers each request with the next scripted result, and keeps what each asked for.
    private final class Script: Transport {
        let results: Mutex<[TransportResult]>
        let asked = Mutex<[(body: Bool, headers: Bool)]>([])

        init(_ results: [TransportResult]) {
            self.results = Mutex(results)
        }

        func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>) {
            asked.withLock { $0.append((request.collectBody, request.collectHeaders)) }
            continuation.resume(returning: results.withLock { $0.removeFirst() })
        }

        func shutdown() async {}
    }

    private let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: 8080)

    @Test func itKeepsTheRequestAndTheWholeResponseButHandsTheCallerOnlyWhatItAskedFor() async throws {
        let page = String(repeating: "x", count: 5000)
        let script = Script([
            .response(
                TransportResponse(
                    status: 200, body: Array(#"{"token":"t1"}"#.utf8),
                    headers: [HTTPHeader(name: "Content-Type", value: "application/json")]),
                serviceTime: .milliseconds(1)),
            .response(TransportResponse(status: 403, body: Array(page.utf8)), serviceTime: .milliseconds(1)),
            .failure(.timeout, requestSent: true, serviceTime: .seconds(1)),
        ])
        let kept = RecordingTransport.Kept()
        let transport = RecordingTransport(script, keepingIn: kept)
        let template = try HTTPRequest.Template(
            method: "POST", path: "/login?next=1", target: target,
            headers: [HTTPHeader(name: "X-Step", value: "login"), HTTPHeader(name: "Cookie", value: "a=1")])
        var login = HTTPRequest(template, body: Array(#"{"member":1}"#.utf8))
        login.cookies = Array("jar=2".utf8)
        let first = await transport.send(login)
        let second = await transport.send(HTTPRequest(try HTTPRequest.Template(method: "GET", path: "/next", target: target)))
        let third = await transport.send(
            HTTPRequest(try HTTPRequest.Template(method: "GET", path: "/slow", target: target), collectBody: true))

        // The inner transport was asked for every body and header.
        #expect(script.asked.withLock { $0.allSatisfy { $0.body && $0.headers } })
        // The caller, which asked for no body, gets none of a 200 and the first 4 KiB of a 403.
        #expect(try first.received.get().body.isEmpty)
        #expect(try second.received.get().body.count == TransportResponse.failureBodyLimit)
        #expect(third.received == .failure(TransportFailure(.timeout, requestSent: true)))

        let exchanges = kept.exchanges
        #expect(exchanges.count == 3)
        #expect(exchanges[0].method == "POST" && exchanges[0].target == "/login?next=1")
        #expect(exchanges[0].requestBody == Array(#"{"member":1}"#.utf8))
        let headers = exchanges[0].requestHeaders.map { "\($0.name): \($0.value)" }
        #expect(headers.contains("X-Step: login") && headers.contains("Cookie: a=1; jar=2"))
        #expect(!headers.contains { $0.hasPrefix("Host") })
        #expect(exchanges[0].response?.body == Array(#"{"token":"t1"}"#.utf8))
        #expect(exchanges[0].response?.mediaType == "application/json")
        #expect(exchanges[1].response?.status == 403 && exchanges[1].response?.body?.count == 5000)
        #expect(exchanges[2].response == nil && exchanges[2].failure == "timeout")
    }
}
