import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyMetrics
@testable import SurveyWire

#if canImport(Glibc)
    import Glibc
#endif

/// A process out of descriptors or local ports fails its own attempts: `local_resource`, never
/// a refusal the server would be blamed for, and never counted as an attempt sent.
@Suite struct LocalResourceTests {
    /// One `GET /questions` from a client to a server on loopback whose accepts go through
    /// `accept`, both torn down after; the outcome, and the server for its counters.
    private func oneRequest(
        accept: @escaping HTTPServer.Acceptor
    ) async throws -> (TransportResult, HTTPServer) {
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(
            host: "127.0.0.1", port: 0, group: group, accept: accept,
            handler: { _ in .respond(EncodedResponse(HTTPServerResponse(status: 200))) })
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(target: target, group: group, configuration: .init(timeout: .seconds(30)))
        var outcome: TransportResult?
        try await tearingDown(client, server, group) {
            outcome = await client.send(HTTPRequest(try HTTPRequest.Template(method: "GET", path: "/questions", target: target)))
        }
        return (try #require(outcome), server)
    }

    @Test(arguments: [EMFILE, ENFILE])
    func noDescriptorLeftIsLocalResourceAndNothingIsSent(_ error: Int32) async throws {
        let group = EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: 9)
        let client = try HTTPClient(target: target, group: group, configuration: .init(), openSocket: { _ in (-1, error) })
        let outcome = await client.send(HTTPRequest(try HTTPRequest.Template(method: "GET", path: "/questions", target: target)))
        await client.shutdown()
        guard case .failure(let failure) = outcome.received else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(failure.kind == .localResource)
        #expect(!failure.requestSent)
        #expect(failure.detail?.hasPrefix("socket(): ") == true, "\(String(describing: failure.detail))")
        #expect(outcome.connection == nil)
    }

    @Test func socketsLeaveTheLastDescriptorsToTheRestOfTheProcess() {
        // 1/32 of the soft limit, at least 8 and at most 32: with `ulimit -n 40`, descriptors
        // 32 to 39 are never a socket's, so Dispatch can still open /proc files and the run its
        // reports when the connections have taken the rest.
        let cases: [(fd: Int32, limit: Int, reserved: Bool)] = [
            (31, 40, false), (32, 40, true), (39, 40, true), (7, 16, false), (8, 16, true),
            (991, 1024, false), (992, 1024, true), (19_967, 20_000, false), (19_968, 20_000, true),
        ]
        for (fd, limit, reserved) in cases {
            #expect(Sockets.intoReserve(fd, softLimit: limit) == reserved, "fd \(fd) under a limit of \(limit)")
        }
    }

    @Test func aServerOutOfDescriptorsPausesAcceptingInsteadOfSpinning() async throws {
        // For its first 200 ms the server's accept finds no descriptor. A level-triggered loop
        // that merely returned would be woken again at once by the still-readable listening
        // socket — tens of thousands of calls in 200 ms; a pause of 50 ms each time makes a few.
        final class Calls: Sendable { let count = Atomic<Int>(0) }
        let calls = Calls()
        let failUntil = MonotonicClock.now() + 200_000_000
        let (outcome, server) = try await oneRequest(accept: { listener in
            calls.count.add(1, ordering: .relaxed)
            return MonotonicClock.now() < failUntil ? (-1, EMFILE) : HTTPServer.acceptSocket(listener)
        })
        guard case .success(let response) = outcome.received else {
            Issue.record("expected the answer once descriptors were back, got \(outcome)")
            return
        }
        #expect(response.status == 200)
        #expect(server.acceptsWithoutResources >= 1)
        #expect(calls.count.load(ordering: .relaxed) < 40, "accept was called \(calls.count.load(ordering: .relaxed)) times")
    }

    @Test func aConnectionEpollRefusesIsClosedAndTheServerGoesOn() async throws {
        // The first accepted "connection" is a descriptor epoll will not watch (/dev/null:
        // EPERM; in production ENOMEM or ENOSPC past max_user_watches). It used to stop the
        // process; now that one connection is closed and the next is served.
        final class Handed: Sendable { let first = Atomic<Bool>(true) }
        let handed = Handed()
        let (outcome, _) = try await oneRequest(accept: { listener in
            if handed.first.exchange(false, ordering: .relaxed) {
                let fd = open("/dev/null", O_RDWR | O_CLOEXEC)
                return (fd, fd < 0 ? errno : 0)
            }
            return HTTPServer.acceptSocket(listener)
        })
        guard case .success(let response) = outcome.received else {
            Issue.record("expected the server to answer, got \(outcome)")
            return
        }
        #expect(response.status == 200)
        let stillFirst = handed.first.load(ordering: .relaxed)
        #expect(!stillFirst, "the refused descriptor was handed out")
    }

    @Test func epollRefusingADescriptorIsAnAnswerNotATrap() async {
        let group = EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let fd = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(fd) }
        final class Handler: EventHandler, Sendable { func handleEvents(_ events: UInt32) {} }
        let loop = group.loops[0]
        let (token, error): (UInt64?, Int32) = await withCheckedContinuation { done in
            loop.execute {
                let epollIn: UInt32 = 1
                let token = loop.register(fd, events: epollIn, handler: Handler())
                done.resume(returning: (token, errno))
            }
        }
        #expect(token == nil)
        #expect(error == EPERM)
        #expect(Sockets.describe(ENOSPC, call: "epoll_ctl()").hasSuffix("(ENOSPC)"))
    }

    @Test func connectErrorsOfExhaustedPortsAreLocalResource() {
        #expect(ConnectionSetup.kind(forConnectError: EADDRNOTAVAIL) == .localResource)
        #expect(ConnectionSetup.kind(forConnectError: EAGAIN) == .localResource)
        #expect(ConnectionSetup.kind(forConnectError: ECONNREFUSED) == .connectionRefused)
        #expect(ConnectionSetup.kind(forConnectError: ENETUNREACH) == .connectionRefused)
        #expect(Sockets.describe(EADDRNOTAVAIL, call: "connect()").hasSuffix("(EADDRNOTAVAIL)"))
    }

    @Test func localResourceIsCountedApartFromAttemptsSent() async {
        // Every third submit finds the process out of descriptors; the plan retries it.
        let transport = ScriptedTransport(
            survey(submit: { sent, previous in
                sent.body.contains("\"id\":2") && previous == 0
                    ? .failure(.localResource, requestSent: false, serviceTime: .zero, detail: "socket(): Too many open files (EMFILE)")
                    : ok()
            }))
        let recorder = MetricsRecorder(lanes: 1)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(
            context(transport, submit: retrying(3, on: ["local_resource"]), recorder: recorder))
        let submit = recorder.snapshot()[.submit]
        #expect(result.submitted == 3)
        #expect(submit.calls == 3)
        #expect(submit.attempts == 3, "only the attempts sent")
        #expect(submit.localResource == 1)
        #expect(submit.retries == 1, "the retry after the local failure is a retry")
        #expect(submit.failedAttempts == 0)
        #expect(submit.errors.isEmpty)
        #expect(submit.serviceTime.count == 3)
        #expect(submit.errorSamples[.localResource] == "socket(): Too many open files (EMFILE)")
        #expect(recorder.snapshot().attemptsPerSecond.reduce(0, +) == 4, "the questions and three submits sent")
        #expect(recorder.progress.localResource == 1)
    }

    @Test func questionsThatCouldNotBeAskedForAreNotBlamedOnTheServer() async {
        let transport = ScriptedTransport { _, _ in .failure(.localResource, requestSent: false, serviceTime: .zero) }
        let recorder = MetricsRecorder(lanes: 1)
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context(transport, recorder: recorder))
        #expect(result.ending == .abandoned(.localResource))
        #expect(recorder.snapshot().abandoned == [.localResource: 1])
        #expect(recorder.snapshot()[.questions].attempts == 0)
    }
}
