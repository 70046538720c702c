import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyWire

/// A loopback survey server that sets a numbered cookie with every questions response and
/// counts, per cookie, the submits that carried it back.
private final class CookieCountingServer: Sendable {
    let issued = Atomic<Int>(0)
    let submitsByCookie = Mutex<[String: Int]>([:])

    func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
        if request.method == "GET" {
            let n = issued.wrappingAdd(1, ordering: .relaxed).oldValue
            let body = Array(SurveyQuestion.json([SurveyQuestion(id: 1, text: "a"), SurveyQuestion(id: 2, text: "b")]).utf8)
            let response = HTTPServerResponse(
                status: 200, headers: [HTTPHeader(name: "Set-Cookie", value: "sid=s\(n); Path=/; HttpOnly")], body: body)
            return .respond(EncodedResponse(response))
        }
        submitsByCookie.withLock { $0[request.cookie ?? "none", default: 0] += 1 }
        return .respond(EncodedResponse(HTTPServerResponse(status: 200)))
    }
}

@Suite struct CookieEndToEndTests {
    @Test func everyRespondentSendsBackItsOwnCookieOverTheWire() async throws {
        let counting = CookieCountingServer()
        let group = EventLoopGroup(threads: 2)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, credentials: true) { counting.handle($0) }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(target: target, group: group, configuration: .init(timeout: .seconds(30)))
        try await tearingDown(client, server, group) {
            let coordinator = try RunCoordinator(
                configuration: RunConfiguration(load: .closed(respondents: 20), concurrency: 5, answers: AnswerBook(fallback: ["x"])),
                target: target, transport: client, executors: group.loops)
            let result = await coordinator.run()
            #expect(result.metrics.respondentsCompleted == 20)
        }
        let counts = counting.submitsByCookie.withLock { $0 }
        // Twenty cookies, each carried by exactly its respondent's two submits, and no submit without one.
        #expect(counts == Dictionary(uniqueKeysWithValues: (0..<20).map { ("sid=s\($0)", 2) }))
    }

    @Test func aServerThatKeepsNoCredentialsSeesNone() async throws {
        let seen = Mutex<[String?]>([])
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { request in
            seen.withLock { $0.append(request.cookie ?? request.authorization) }
            return .respond(EncodedResponse(HTTPServerResponse(status: 200)))
        }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(target: target, group: group)
        try await tearingDown(client, server, group) {
            let template = try HTTPRequest.Template(
                method: "GET", path: "/", target: target,
                headers: [HTTPHeader(name: "Cookie", value: "a=1"), HTTPHeader(name: "Authorization", value: "Bearer t")])
            _ = await client.send(HTTPRequest(template))
        }
        #expect(seen.withLock { $0 } == [nil])
    }
}
