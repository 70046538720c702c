import Foundation
import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// A loopback server with `handler`, a client for it, and teardown; runs `body`.
///
/// The default timeout is far above any loopback answer, so that a machine busy with other
/// work cannot turn a test's answer into a `timeout`; tests of the timeout set a short one.
private func withServer(
    timeout: Duration = .seconds(30), maxBody: Int = 1 << 20, handler: @escaping HTTPServer.Handler,
    _ body: (HTTPServer, HTTPClient, HTTPTarget, EventLoopGroup) async throws -> Void
) async throws {
    let group = EventLoopGroup(threads: 2)
    let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, handler: handler)
    let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
    let client = try HTTPClient(target: target, group: group, configuration: .init(timeout: timeout, maxBodyBytes: maxBody))
    try await tearingDown(client, server, group) { try await body(server, client, target, group) }
}

private func get(_ path: String, _ target: HTTPTarget, method: String = "GET") -> HTTPRequest {
    // Tests pass fixed, valid paths and methods: they always frame.
    HTTPRequest(try! HTTPRequest.Template(method: method, path: path, target: target), collectBody: true)
}

private func ok(_ body: String, close: Bool = false) -> HTTPServerAction {
    .respond(EncodedResponse(HTTPServerResponse(status: 200, body: Array(body.utf8), close: close)))
}

private func expectFailure(
    _ outcome: TransportResult, _ kind: ErrorKind, sourceLocation: SourceLocation = #_sourceLocation
) {
    switch outcome.received {
    case .success(let response): Issue.record("expected \(kind), got status \(response.status)", sourceLocation: sourceLocation)
    case .failure(let failure): #expect(failure.kind == kind, sourceLocation: sourceLocation)
    }
}

private func expectStatus(
    _ outcome: TransportResult, _ status: Int, body: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    switch outcome.received {
    case .success(let response):
        #expect(response.status == status, sourceLocation: sourceLocation)
        if let body { #expect(String(decoding: response.body, as: UTF8.self) == body, sourceLocation: sourceLocation) }
    case .failure(let failure): Issue.record("expected \(status), got \(failure.kind)", sourceLocation: sourceLocation)
    }
}

/// A loopback port with nothing listening on it.
private func deadPort() async throws -> Int {
    let group = EventLoopGroup(threads: 1)
    let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { _ in .close }
    let port = server.port
    await server.shutdown()
    group.shutdown()
    return port
}

@Suite struct HTTPClientServerTests {
    @Test func getsABodyAndReusesTheConnection() async throws {
        try await withServer(handler: { request in ok("hello \(request.path)") }) { server, client, target, group in
            // Sequential requests from a task on one loop share that loop's one connection.
            await withTaskExecutorPreference(group.loops[1]) {
                for _ in 0..<50 {
                    expectStatus(await client.send(get("/questions", target)), 200, body: "hello /questions")
                }
            }
            #expect(server.connectionsAccepted == 1)
            #expect(await client.openConnectionCount() == 1)
        }
    }

    @Test func sendsTheBodyWithItsLength() async throws {
        try await withServer(handler: { request in ok(String(decoding: request.body, as: UTF8.self)) }) { _, client, target, _ in
            let template = try HTTPRequest.Template(method: "POST", path: "/question/submit", target: target)
            let body = Array(#"{"id":3,"answer":"red"}"#.utf8)
            expectStatus(await client.send(HTTPRequest(template, body: body, collectBody: true)), 200, body: #"{"id":3,"answer":"red"}"#)
        }
    }

    @Test func connectionCloseResponsesAreNotReused() async throws {
        try await withServer(handler: { _ in ok("bye", close: true) }) { server, client, target, _ in
            for _ in 0..<5 {
                expectStatus(await client.send(get("/", target)), 200, body: "bye")
            }
            #expect(server.connectionsAccepted == 5)
        }
    }

    @Test func readsChunkedAndCloseDelimitedBodies() async throws {
        let chunked = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n[1,\r\n2\r\n2]\r\n0\r\n\r\n".utf8)
        let unframed = Array("HTTP/1.0 200 OK\r\n\r\n[3]".utf8)
        try await withServer(handler: { request in .raw(request.path == "/chunked" ? chunked : unframed) }) { _, client, target, _ in
            expectStatus(await client.send(get("/chunked", target)), 200, body: "[1,2]")
            expectStatus(await client.send(get("/unframed", target)), 200, body: "[3]")
        }
    }

    @Test func headResponsesHaveNoBody() async throws {
        let head = EncodedResponse(HTTPServerResponse(status: 200, body: Array("not sent to HEAD".utf8)))
        let headBytes = Array(head.bytes.prefix(head.bytes.count - 16))
        try await withServer(handler: { _ in .raw(headBytes + headBytes) }) { server, client, target, group in
            // Two HEAD answers back to back, then a close: each ends at its blank line.
            await withTaskExecutorPreference(group.loops[0]) {
                expectStatus(await client.send(get("/", target, method: "HEAD")), 200, body: "")
            }
            #expect(server.connectionsAccepted == 1)
        }
    }

    @Test func refusedConnectionIsClassified() async throws {
        let port = try await deadPort()
        let group = EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: port)
        let client = try HTTPClient(target: target, group: group)
        let outcome = await client.send(get("/", target))
        expectFailure(outcome, .connectionRefused)
        if case .failure(let failure) = outcome.received { #expect(!failure.requestSent) }
        await client.shutdown()
    }

    @Test func unresolvableHostIsDNS() async throws {
        let group = EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let target = HTTPTarget(scheme: .http, host: "no-such-host.invalid", port: 80)
        let client = try HTTPClient(target: target, group: group)
        expectFailure(await client.send(get("/", target)), .dns)
        await client.shutdown()
    }

    @Test func resetIsConnectionReset() async throws {
        try await withServer(handler: { _ in .reset }) { _, client, target, _ in
            let outcome = await client.send(get("/", target))
            expectFailure(outcome, .connectionReset)
            if case .failure(let failure) = outcome.received { #expect(failure.requestSent) }
        }
    }

    @Test func closeWithoutAnswerIsConnectionClosed() async throws {
        try await withServer(handler: { _ in .close }) { _, client, target, _ in
            expectFailure(await client.send(get("/", target)), .connectionClosed)
        }
    }

    @Test func garbageIsMalformed() async throws {
        try await withServer(handler: { _ in .raw(Array("SURVEY GARBAGE\r\n\r\n".utf8)) }) { _, client, target, _ in
            expectFailure(await client.send(get("/", target)), .malformedResponse)
        }
    }

    @Test func hangingServerTimesOutOnTime() async throws {
        try await withServer(timeout: .milliseconds(200), handler: { _ in .hang }) { server, client, target, _ in
            let start = ContinuousClock.now
            let outcome = await client.send(get("/", target))
            let elapsed = ContinuousClock.now - start
            expectFailure(outcome, .timeout)
            // Never early: that much is logic, and exact.
            #expect(elapsed >= .milliseconds(200))
            #expect(outcome.serviceTime >= .milliseconds(200))
            // Late by the 5 ms deadline sweep on a quiet machine; by more when the loop's thread
            // waits for a core, so the bound is as loose as it can be and still tell this 200 ms
            // deadline from the client's 5 s default: a deadline never fires early, so that one
            // would take 5 s at least (and one that never fires, for ever).
            #expect(outcome.serviceTime < .seconds(5))
        }
    }

    /// A request's own timeout (a step's) replaces the client's, longer or shorter, over
    /// HTTP/1.1 and h2c alike: the client is made with the run's, not the longest of the steps'.
    @Test(arguments: [HTTPVersion.http1, .http2])
    func aRequestsOwnTimeoutReplacesTheClients(_ version: HTTPVersion) async throws {
        let group = EventLoopGroup(threads: 2)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, http2: version == .http2 ? .init() : nil) { request in
            request.path == "/slow" ? .after(.milliseconds(400), ok("late")) : .hang
        }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        var configuration = HTTPClientConfiguration(timeout: .milliseconds(150))
        configuration.version = version
        let client = try HTTPClient(target: target, group: group, configuration: configuration)
        try await tearingDown(client, server, group) {
            // Longer than the client's: the answer 400 ms on arrives.
            var slow = get("/slow", target)
            slow.timeout = Duration.seconds(60).clampedNanoseconds
            expectStatus(await client.send(slow), 200, body: "late")
            // The client's alone: the same answer is too late.
            expectFailure(await client.send(get("/slow", target)), .timeout)
            // Shorter than a client's of 60 s: a hanging server is left at the request's 150 ms.
            let patient = try HTTPClient(target: target, group: group, configuration: .init(timeout: .seconds(60)))
            var hasty = get("/hang", target)
            hasty.timeout = Duration.milliseconds(150).clampedNanoseconds
            let outcome = await patient.send(hasty)
            await patient.shutdown()
            expectFailure(outcome, .timeout)
            #expect(outcome.serviceTime >= .milliseconds(150))
            #expect(outcome.serviceTime < .seconds(30), "cut at its own timeout, not the client's 60 s")
        }
    }

    @Test func trickledBodyTimesOutOrArrives() async throws {
        let response = EncodedResponse(HTTPServerResponse(status: 200, body: Array("slow".utf8)))
        try await withServer(timeout: .milliseconds(150), handler: { _ in .trickle(response, interval: .milliseconds(20)) }) {
            _, client, target, _ in
            expectFailure(await client.send(get("/", target)), .timeout)
        }
        try await withServer(handler: { _ in .trickle(response, interval: .microseconds(100)) }) {
            _, client, target, _ in
            expectStatus(await client.send(get("/", target)), 200, body: "slow")
        }
    }

    @Test func delayedAnswerIsMeasured() async throws {
        try await withServer(handler: { _ in .after(.milliseconds(30), ok("late")) }) { _, client, target, _ in
            let outcome = await client.send(get("/", target))
            expectStatus(outcome, 200, body: "late")
            #expect(outcome.serviceTime >= .milliseconds(30))
        }
    }

    @Test func maxBodyBytesIsTheLargestBodyRead() async throws {
        let handler: HTTPServer.Handler = { request in ok(String(repeating: "x", count: request.path == "/fits" ? 100 : 101)) }
        try await withServer(maxBody: 100, handler: handler) { _, client, target, _ in
            expectStatus(await client.send(get("/fits", target)), 200)
            expectFailure(await client.send(get("/over", target)), .responseTooLarge)
        }
    }

    @Test func aFinalCodingOtherThanChunkedRunsToTheClose() async throws {
        let response = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\nall of it".utf8)
        try await withServer(handler: { _ in .raw(response) }) { _, client, target, _ in
            expectStatus(await client.send(get("/", target)), 200, body: "all of it")
            #expect(await client.openConnectionCount() == 0)
        }
    }

    @Test func tenMegabyteBodyIsResponseTooLarge() async throws {
        let huge = EncodedResponse(HTTPServerResponse(status: 200, body: [UInt8](repeating: 0x61, count: 10 << 20)))
        try await withServer(handler: { _ in .respond(huge) }) { _, client, target, _ in
            expectFailure(await client.send(get("/", target)), .responseTooLarge)
            // The connection is gone, not left half-read: the next attempt starts clean.
            #expect(await client.openConnectionCount() == 0)
        }
    }

    @Test func manyConcurrentRequestsOnTheLoops() async throws {
        try await withServer(handler: { _ in ok("x") }) { server, client, target, group in
            let statuses = await withTaskGroup(of: Int.self) { tasks in
                for index in 0..<20 {
                    tasks.addTask(executorPreference: group.loops[index % 2]) {
                        var okCount = 0
                        for _ in 0..<100 {
                            if case .success(let response) = await client.send(get("/", target).self).received, response.status == 200 {
                                okCount += 1
                            }
                        }
                        return okCount
                    }
                }
                return await tasks.reduce(0, +)
            }
            #expect(statuses == 2000)
            // A bound, not a count: how many connections the loops open depends on how the
            // twenty tasks interleave (a task may find another's connection idle or not). What
            // is determined is that connections are reused: never more than one per task.
            #expect(server.connectionsAccepted <= 20)
        }
    }

    @Test func serverRejectsOversizedRequests() async throws {
        try await withServer(handler: { _ in ok("never") }) { server, client, target, _ in
            let template = try HTTPRequest.Template(method: "POST", path: "/", target: target)
            expectStatus(await client.send(HTTPRequest(template, body: [UInt8](repeating: 0x20, count: 100_000))), 413)
            let big = try HTTPRequest.Template(
                method: "GET", path: "/", target: target, headers: [HTTPHeader(name: "X-Big", value: String(repeating: "b", count: 9000))])
            expectStatus(await client.send(HTTPRequest(big)), 431)
            #expect(server.requestsRejected == 2)
        }
    }

    @Test func talksIPv6() async throws {
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(host: "::1", port: 0, group: group) { _ in ok("six") }
        let target = try HTTPTarget.parse("http://[::1]:\(server.port)").get()
        let client = try HTTPClient(target: target, group: group)
        expectStatus(await client.send(get("/", target)), 200, body: "six")
        #expect(server.address.isLoopback)
        await client.shutdown()
        await server.shutdown()
        group.shutdown()
    }

    @Test func resolvesHostNamesOnce() async throws {
        // The server listens on the address localhost resolves to first, ::1 or 127.0.0.1, so
        // that the client's requests always have somewhere to go.
        let first = try #require(try SocketAddress.resolve(host: "localhost", port: 0).get().first)
        #expect(first.isLoopback)
        // Its numeric form is `127.0.0.1:port` or `[::1]:port`.
        let numeric = first.description
        let ip = first.family == AF_INET6 ? String(numeric.dropFirst().prefix { $0 != "]" }) : String(numeric.prefix { $0 != ":" })
        let group = EventLoopGroup(threads: 1)
        // Each answer closes its connection: every request opens a new one.
        let server = try HTTPServer(host: ip, port: 0, group: group) { _ in ok("named", close: true) }
        let target = HTTPTarget(scheme: .http, host: "localhost", port: server.port)
        let lookups = Atomic<Int>(0)
        let client = try HTTPClient(
            target: target, group: group, configuration: .init(), openSocket: Sockets.openTCP,
            resolve: { host, port in
                lookups.add(1, ordering: .relaxed)
                return SocketAddress.resolve(host: host, port: port)
            })
        try await tearingDown(client, server, group) {
            #expect(lookups.load(ordering: .relaxed) == 1, "resolved when the client is made")
            for _ in 0..<3 { expectStatus(await client.send(get("/", target)), 200, body: "named") }
            #expect(server.connectionsAccepted == 3)
            #expect(lookups.load(ordering: .relaxed) == 1, "three connections, one lookup")
        }
    }
}

@Suite struct ReconnectTests {
    @Test func aKeptAliveConnectionClosedUnderARequestIsReplacedNotFailed() async throws {
        // A server that answers the first request, then closes that connection when the second
        // comes on it, unanswered — to the client, the race of an idle connection closing as a
        // request leaves — and answers on a new connection.
        let server = try ScriptedServer(answers: 2)
        let group = EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(target: target, group: group, configuration: .init(timeout: .seconds(30)))
        let request = HTTPRequest(
            try HTTPRequest.Template(method: "POST", path: "/question/submit", target: target), body: Array("{}".utf8))
        let first = await client.send(request)
        #expect(first.connection?.reused == false)
        guard case .success = first.received else {
            Issue.record("the first request was not answered: \(first)")
            return
        }
        let outcome = await client.send(request)
        await client.shutdown()
        guard case .success(let response) = outcome.received else {
            Issue.record("expected an answer, got \(outcome); server read \(server.requestsRead), accepted \(server.connectionsAccepted)")
            return
        }
        #expect(response.status == 200)
        #expect(outcome.connection?.reconnected == true)
        #expect(outcome.connection?.reused == false)
        #expect(server.requestsRead == 3, "the server read the second request twice: once unanswered, once answered")
        #expect(server.connectionsAccepted == 2)
    }

    @Test func aResetIsNotSentAgain() async throws {
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { request in
            request.body.isEmpty ? .respond(EncodedResponse(HTTPServerResponse(status: 200))) : .reset
        }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(target: target, group: group, configuration: .init(timeout: .seconds(30)))
        var second: TransportResult?
        try await tearingDown(client, server, group) {
            _ = await client.send(HTTPRequest(try HTTPRequest.Template(method: "GET", path: "/questions", target: target)))
            let post = HTTPRequest(
                try HTTPRequest.Template(method: "POST", path: "/question/submit", target: target), body: Array("{}".utf8))
            second = await client.send(post)
        }
        // The server read the request and reset: it may have acted on it, so it is not sent again.
        guard case .failure(let failure)? = second?.received else {
            Issue.record("expected a failure, got \(String(describing: second))")
            return
        }
        #expect(failure.kind == .connectionReset)
        #expect(second?.connection?.reused == true)
        #expect(server.connectionsAccepted == 1)
    }
}
