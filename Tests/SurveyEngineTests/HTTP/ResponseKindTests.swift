import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// Every response has a kind: a status the survey API may send, or `malformed_response` for one
/// it cannot (a status outside 100–599, bytes that are not HTTP) — and a redirect is a status,
/// never followed.
@Suite struct ResponseKindTests {
    /// One request to a loopback server that does `action`, through the event-loop client.
    private func outcome(of action: HTTPServerAction, headers: [HTTPHeader] = []) async throws -> TransportResult {
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { _ in action }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(target: target, group: group, configuration: .init(timeout: .seconds(30)))
        var outcome: TransportResult?
        try await tearingDown(client, server, group) {
            outcome = await client.send(
                HTTPRequest(try HTTPRequest.Template(method: "GET", path: "/questions", target: target, headers: headers)))
        }
        return try #require(outcome)
    }

    private func kind(_ outcome: TransportResult) -> ErrorKind? {
        if case .failure(let failure) = outcome.received { return failure.kind }
        return nil
    }

    @Test(arguments: ["SSH-2.0-OpenSSH_9.6", "\u{0}\u{0}\u{12}\u{4}\u{0}\u{0}\u{0}\u{0}\u{0}", "\u{15}\u{3}\u{1}\u{0}\u{2}\u{2}\u{28}"])
    func bytesThatAreNotHTTPThenACloseAreMalformed(_ text: String) async throws {
        // An SSH banner, an HTTP/2 frame, a TLS alert: each sent, then the connection closed.
        let outcome = try await outcome(of: .raw(Array(text.utf8)))
        #expect(kind(outcome) == .malformedResponse, "\(outcome)")
    }

    @Test(arguments: [600, 999])
    func aStatusOutside100To599IsMalformed(_ status: Int) async throws {
        let outcome = try await outcome(of: .raw(Array("HTTP/1.1 \(status) Odd\r\nContent-Length: 0\r\n\r\n".utf8)))
        #expect(kind(outcome) == .malformedResponse, "\(outcome)")
    }

    @Test func aRedirectIsAStatusAndIsNeverFollowed() async throws {
        // The second server, where the redirect points, must see nothing: not a connection, so
        // not the Authorization header either.
        let group = EventLoopGroup(threads: 1)
        let elsewhere = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { _ in
            .respond(EncodedResponse(HTTPServerResponse(status: 200)))
        }
        let location = "http://127.0.0.1:\(elsewhere.port)/questions"
        let redirect = HTTPServerResponse(status: 302, headers: [HTTPHeader(name: "Location", value: location)])
        let outcome = try await outcome(
            of: .respond(EncodedResponse(redirect)), headers: [HTTPHeader(name: "Authorization", value: "Bearer not-for-elsewhere")])
        guard case .success(let response) = outcome.received else {
            Issue.record("expected the 302 itself, got \(outcome)")
            return
        }
        #expect(response.status == 302)
        #expect(elsewhere.connectionsAccepted == 0)
        await elsewhere.shutdown()
        group.shutdown()
    }
}
