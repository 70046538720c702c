import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// A reference server with `faults` on loopback and a client for it.
///
/// The default timeout is far above any loopback answer, so that a machine busy with other
/// work cannot turn a test's answer into a `timeout`; tests of the timeout set a short one.
private func withReferenceServer(
    _ faults: ServerFaults = ServerFaults(), seed: UInt64 = 7, questions: ReferenceServerConfiguration.Questions = .builtin(count: 10),
    timeout: Duration = .seconds(30), _ body: (ReferenceServer, HTTPClient, HTTPTarget) async throws -> Void
) async throws {
    var configuration = ReferenceServerConfiguration()
    configuration.faults = faults
    configuration.seed = seed
    configuration.questions = questions
    let group = EventLoopGroup(threads: 2)
    let server = try ReferenceServer(configuration: configuration, group: group)
    let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
    let client = try HTTPClient(target: target, group: group, configuration: .init(timeout: timeout))
    try await tearingDown(after: { try await body(server, client, target) }) {
        await client.shutdown()
        await server.shutdown()
        group.shutdown()
    }
}

private func questions(_ target: HTTPTarget) -> HTTPRequest {
    // A fixed, valid request: it always frames.
    HTTPRequest(try! HTTPRequest.Template(method: "GET", path: "/questions", target: target), collectBody: true)
}

private func submit(_ target: HTTPTarget, _ body: String = #"{"id":1,"answer":"red"}"#) -> HTTPRequest {
    HTTPRequest(try! HTTPRequest.Template(method: "POST", path: "/question/submit", target: target), body: Array(body.utf8))
}

/// The status of a response, or the error kind's name.
private func label(_ outcome: TransportResult) -> String {
    switch outcome.received {
    case .success(let response): "\(response.status)"
    case .failure(let failure): failure.kind.rawValue
    }
}

@Suite struct ReferenceServerTests {
    @Test func servesTheBuiltInSurvey() async throws {
        try await withReferenceServer { server, client, target in
            let outcome = await client.send(questions(target))
            guard case .success(let response) = outcome.received else {
                Issue.record("no response: \(label(outcome))")
                return
            }
            #expect(response.status == 200)
            let list = try SurveyQuestion.list(from: response.body).get()
            #expect(list.count == 10)
            #expect(list.first == SurveyQuestion(id: 1, text: "What is your favourite colour?"))
            #expect(label(await client.send(submit(target))) == "200")
        }
    }

    @Test func validatesSubmitBodies() async throws {
        try await withReferenceServer { server, client, target in
            #expect(label(await client.send(submit(target, #"{"id":11,"answer":"x"}"#))) == "400")
            #expect(label(await client.send(submit(target, #"{"id":1,"answer":"#))) == "400")
            #expect(label(await client.send(submit(target, #"{"id":1}"#))) == "400")
            #expect(label(await client.send(submit(target, #"{"id":2,"answer":"pizza","extra":[1]}"#))) == "200")
            // The id as the questions gave it: a number, not the string of its digits.
            #expect(label(await client.send(submit(target, #"{"id":"2","answer":"pizza"}"#))) == "400")
            let stats = server.stats()
            #expect(stats.invalidSubmits == 4)
            #expect(stats.endpoints["submit"] == ["400": 4, "200": 1])
        }
    }

    @Test func stringIdsFromAQuestionsFileAreSubmittedAsStrings() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("q.json", #"[{"id":"q1","question":"a"},{"id":2,"question":"b"}]"#)
        try await withReferenceServer(questions: .file(file)) { server, client, target in
            #expect(label(await client.send(submit(target, #"{"id":"q1","answer":"x"}"#))) == "200")
            #expect(label(await client.send(submit(target, #"{"id":2,"answer":"x"}"#))) == "200")
            #expect(label(await client.send(submit(target, #"{"id":"2","answer":"x"}"#))) == "400")
            #expect(label(await client.send(submit(target, #"{"id":"q2","answer":"x"}"#))) == "400")
            #expect(server.stats().invalidSubmits == 2)
        }
    }

    /// Each fault at 100%, and how the client must classify it.
    @Test(arguments: [
        ("reset", "connection_reset"), ("hang", "timeout"), ("malformed", "malformed_response"), ("error", "500"), ("fail", "400"),
        ("slow", "timeout"),
    ])
    func eachFaultIsClassified(fault: String, expected: String) async throws {
        var faults = ServerFaults()
        switch fault {
        case "reset": faults.resetRate = 1
        case "hang": faults.hangRate = 1
        case "malformed": faults.malformedRate = 1
        case "error": faults.errorRate = 1
        case "fail": faults.failRate = 1
        default:
            faults.slowRate = 1
            faults.trickleInterval = .milliseconds(50)
        }
        // A short timeout where the fault is that no answer comes; elsewhere the default, far
        // above any loopback answer, so that a busy machine cannot turn the answer into a timeout.
        let timesOut = expected == "timeout"
        try await withReferenceServer(faults, timeout: timesOut ? .milliseconds(300) : .seconds(30)) { server, client, target in
            let outcome = await client.send(submit(target))
            #expect(label(outcome) == expected)
            if timesOut {
                // Never before the timeout; after it by the deadline sweep, or by more when the
                // loop waits for a core (3.1 s seen on a two-core machine running three builds
                // besides): generous on that side, still half the 30 s default.
                #expect(outcome.serviceTime >= .milliseconds(300))
                #expect(outcome.serviceTime < .seconds(15))
            }
            #expect(server.stats().requests("submit") == 1)
        }
    }

    @Test func coldStartAnswers503ThenServes() async throws {
        var faults = ServerFaults()
        faults.coldStart = 2
        try await withReferenceServer(faults) { server, client, target in
            var labels: [String] = []
            for _ in 0..<4 { labels.append(label(await client.send(questions(target)))) }
            #expect(labels == ["503", "503", "200", "200"])
            #expect(server.stats().endpoints["questions"] == ["503": 2, "200": 2])
        }
    }

    @Test func latencyIsAddedToEveryAnswer() async throws {
        var faults = ServerFaults()
        faults.latency = DurationRange(.milliseconds(20), .milliseconds(30))
        try await withReferenceServer(faults) { _, client, target in
            let outcome = await client.send(questions(target))
            #expect(label(outcome) == "200")
            #expect(outcome.serviceTime >= .milliseconds(20))
        }
    }

    @Test func sameSeedGivesTheSameFaults() async throws {
        var faults = ServerFaults()
        faults.failRate = 0.3
        faults.errorRate = 0.2
        var runs: [[String]] = []
        for _ in 0..<2 {
            try await withReferenceServer(faults, seed: 42) { _, client, target in
                var labels: [String] = []
                for _ in 0..<40 { labels.append(label(await client.send(submit(target)))) }
                runs.append(labels)
            }
        }
        #expect(runs[0] == runs[1])
        // Seed 42's draws for the first 40 submits, the same in every version: a plan that names
        // a seed replays the same faults next year too. (It also proves all three outcomes occur.)
        #expect(runs[0].reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 } == ["200": 24, "400": 8, "500": 8])
        try await withReferenceServer(faults, seed: 43) { _, client, target in
            var labels: [String] = []
            for _ in 0..<40 { labels.append(label(await client.send(submit(target)))) }
            #expect(labels != runs[0])
        }
    }

    @Test func statsCountEveryRequestAndRoundTrip() async throws {
        var faults = ServerFaults()
        faults.failRate = 0.5
        try await withReferenceServer(faults) { server, client, target in
            for _ in 0..<30 { _ = await client.send(submit(target)) }
            for _ in 0..<5 { _ = await client.send(questions(target)) }
            let statsRequest = HTTPRequest(try HTTPRequest.Template(method: "GET", path: "/__stats", target: target), collectBody: true)
            guard case .success(let response) = await client.send(statsRequest).received else {
                Issue.record("no stats")
                return
            }
            let stats = try #require(ReferenceServerStats.parse(response.body))
            #expect(stats == server.stats())
            #expect(stats.requests("submit") == 30)
            #expect(stats.requests("questions") == 5)
            // Seed 7's fail draws for the first 30 submits, sent one after another: 17 fall under 50%.
            #expect(stats.endpoints["submit"] == ["200": 13, "400": 17])
        }
    }

    @Test func refusesAQuestionsFileThatIsNotASurvey() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("q.json", #"[{"id":1,"question":"a"},{"id":1,"question":"b"}]"#)
        #expect(throws: ReferenceServer.StartError.self) {
            _ = try ReferenceServer.loadQuestions(.file(path))
        }
        let good = try directory.write("good.json", #"[{"id":7,"question":"Why?","hint":"extra fields are fine"}]"#)
        #expect(try ReferenceServer.loadQuestions(.file(good)) == [SurveyQuestion(id: 7, text: "Why?")])
    }

    /// `serve --tls-cert/--tls-key`: the server reads the files (the engine reads none) and names
    /// the one it cannot use, with the certificate a key does not match.
    @Test func theServerReadsItsCertificateAndKeyFilesAndNamesTheOneItCannotUse() async throws {
        let directory = try TemporaryDirectory()
        let identity = try TLSIdentity.selfSigned(names: ["127.0.0.1"])
        let (certificate, key) = try directory.write(identity, as: "server")
        let otherKey = try directory.write("other.key", try TLSIdentity.selfSigned(names: ["x"]).privateKeyPEM)
        let garbage = try directory.write("garbage.pem", "garbage\n")
        let missing = directory.missing("absent.pem")
        let group = EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        func start(_ certificate: String, _ key: String) throws(ReferenceServer.StartError) -> ReferenceServer {
            var configuration = ReferenceServerConfiguration()
            configuration.tls = .files(certificate: certificate, key: key)
            return try ReferenceServer(configuration: configuration, group: group)
        }
        let cases: [(certificate: String, key: String, says: String)] = [
            (certificate, otherKey, "server key \(otherKey): does not match the certificate \(certificate) (key values mismatch)"),
            (garbage, key, "server certificate \(garbage): no start line"),
            (certificate, missing, "server key \(missing): no such file or directory"),
            (directory.path, key, "server certificate \(directory.path): is a directory"),
        ]
        for (certificate, key, says) in cases {
            #expect { _ = try start(certificate, key) } throws: { "\($0)" == says }
        }
        // The pair that belongs together serves https, with the certificate from the file.
        let server = try start(certificate, key)
        let target = HTTPTarget(scheme: .https, host: "127.0.0.1", port: server.port)
        let client = try HTTPClient(
            target: target, group: group,
            configuration: .init(timeout: .seconds(30), tls: TLSConfiguration(trustedCertificates: [identity.certificatePEM])))
        let outcome = await client.send(questions(target))
        await client.shutdown()
        await server.shutdown()
        #expect(label(outcome) == "200")
        #expect(outcome.connection?.tls?.hasPrefix("TLSv1.3 ") == true, "\(outcome)")
    }

    @Test func serveRejectsBadOptionsBeforeListening() async {
        let rate = await runCommand(["serve", "--fail-rate", "120%"])
        #expect(rate.status == .validationFailure)
        #expect(rate.err.contains("Error: --fail-rate 120%: a percentage cannot be over 100%"))
        let port = await runCommand(["serve", "--port", "70000"])
        #expect(port.status == .validationFailure)
        #expect(port.err.contains("--port must be between 0 and 65535"))
        let sum = await runCommand(["serve", "--error-rate", "60%", "--reset-rate", "50%"])
        #expect(sum.err.contains("add up to more than 100%"))
    }
}

/// `serve` answers only a `Host` that is `localhost`, an IP address, the name it binds or one
/// of `--allow-host` (`*`: any), over either protocol: any other is `421`, counted nowhere, so
/// that a page using DNS rebinding can neither drive the server nor read `/__stats`.
@Suite struct ReferenceServerHostTests {
    func asked(_ host: String, path: String = "/questions", allowed: Set<String> = [], http2: Bool = false) async throws -> Int? {
        var configuration = ReferenceServerConfiguration()
        configuration.allowedHosts = allowed
        configuration.http2 = http2
        let group = EventLoopGroup(threads: 1)
        let server = try ReferenceServer(configuration: configuration, group: group)
        let port = server.port
        let status = await onOwnThread { () -> Int? in
            guard let socket = try? RawClient(port: port) else { return nil }
            if !http2 {
                socket.writeAll(Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\n\r\n".utf8))
                let head = String(decoding: socket.read(until: .now + .seconds(10), stopAfter: 12).bytes, as: UTF8.self)
                return Int(head.dropFirst(9).prefix(3))
            }
            var client = HTTP2ClientMachine()
            var bytes: [UInt8] = []
            client.start(into: &bytes)
            let id = client.send(method: "GET", scheme: "http", authority: host, path: path, headers: [], body: [], into: &bytes)
            socket.writeAll(bytes)
            var reply: [UInt8] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                let read = socket.read(until: .now + .milliseconds(100))
                guard !read.bytes.isEmpty, let events = try? client.receive(read.bytes, into: &reply) else {
                    if read.closed { return nil }
                    continue
                }
                for case .response(id, let answer) in events { return answer.status }
                socket.writeAll(reply)
                reply = []
            }
            return nil
        }
        await server.shutdown()
        group.shutdown()
        return status
    }

    @Test(arguments: [false, true])
    func aRequestForAnotherHostIsMisdirected(http2: Bool) async throws {
        #expect(try await asked("127.0.0.1:8080", http2: http2) == 200)
        #expect(try await asked("localhost", http2: http2) == 200)
        #expect(try await asked("rebind.attacker.example:8080", http2: http2) == 421)
        #expect(try await asked("rebind.attacker.example", path: "/__stats", http2: http2) == 421)
        #expect(try await asked("survey.lab:8080", allowed: ["survey.lab"], http2: http2) == 200)
        #expect(try await asked("anything.example", allowed: ["*"], http2: http2) == 200)
    }
}
