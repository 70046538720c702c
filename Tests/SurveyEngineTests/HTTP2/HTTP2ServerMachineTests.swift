import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// The server's HTTP/2 state machine, bytes in and bytes out: against the engine's own client
/// machine for whole exchanges (requests, responses, flow control both ways, GOAWAY, resets), and
/// against frames written by hand for what a hostile or broken client sends.
@Suite struct HTTP2ServerMachineTests {
    /// A server machine and a client machine wired back to back.
    struct Pair {
        var server: HTTP2ServerMachine
        var client: HTTP2ClientMachine
        var toServer: [UInt8] = []
        var toClient: [UInt8] = []
        var requests: [(stream: UInt32, request: HTTPServerRequest)] = []
        var serverEvents: [HTTP2ServerMachine.Event] = []
        var clientEvents: [HTTP2ClientMachine.Event] = []

        init(server settings: HTTP2ServerMachine.Settings = .init(), client clientSettings: HTTP2ClientMachine.Settings = .init()) throws {
            server = HTTP2ServerMachine(settings: settings)
            client = HTTP2ClientMachine(settings: clientSettings)
            client.start(into: &toServer)
            server.start(into: &toClient)
            try pump()
        }

        /// Passes bytes both ways until neither end has anything more to say.
        mutating func pump() throws {
            while !toServer.isEmpty || !toClient.isEmpty {
                let inbound = toServer
                toServer = []
                for event in try server.receive(inbound, into: &toClient) {
                    if case .request(let stream, let request) = event { requests.append((stream, request)) }
                    serverEvents.append(event)
                }
                let outbound = toClient
                toClient = []
                clientEvents += try client.receive(outbound, into: &toServer)
            }
        }

        mutating func send(_ method: String, _ path: String, body: [UInt8] = [], headers: [HPACK.Field] = []) -> UInt32 {
            client.send(method: method, scheme: "http", authority: "127.0.0.1", path: path, headers: headers, body: body, into: &toServer)
        }

        /// The responses the client read, by stream.
        var responses: [UInt32: HTTP2ClientMachine.Response] {
            var byStream: [UInt32: HTTP2ClientMachine.Response] = [:]
            for case .response(let stream, let response) in clientEvents { byStream[stream] = response }
            return byStream
        }
    }

    /// The frames in `bytes`.
    static func frames(_ bytes: [UInt8]) throws -> [HTTP2Frame] {
        var rest = bytes[...]
        var frames: [HTTP2Frame] = []
        while case .frame(let frame, let length) = try HTTP2Frame.read(rest, maxFrameSize: 1 << 20) {
            frames.append(frame)
            rest = rest.dropFirst(length)
        }
        #expect(rest.isEmpty, "bytes left over")
        return frames
    }

    static func bytes(_ frames: HTTP2Frame...) -> [UInt8] {
        var output: [UInt8] = []
        for frame in frames { frame.write(into: &output) }
        return output
    }

    /// A machine that read a client's preface and empty SETTINGS, and what it answered.
    static func opened(_ settings: HTTP2ServerMachine.Settings = .init()) throws -> (HTTP2ServerMachine, [UInt8]) {
        var machine = HTTP2ServerMachine(settings: settings)
        var output: [UInt8] = []
        machine.start(into: &output)
        let events = try machine.receive(HTTP2Frame.preface + bytes(.settings([], ack: false)), into: &output)
        #expect(events.isEmpty)
        return (machine, output)
    }

    static func block(_ fields: [(String, String)]) -> [UInt8] {
        var encoder = HPACKEncoder()
        var block: [UInt8] = []
        encoder.encode(fields.map { HPACK.Field($0.0, $0.1) }, into: &block)
        return block
    }

    static let get = [(":method", "GET"), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", "/questions")]

    @Test func theServerSendsItsStreamLimitAndAcknowledgesTheClientsSettings() throws {
        let (_, output) = try Self.opened()
        let frames = try Self.frames(output)
        #expect(
            frames == [
                .settings([(.maxConcurrentStreams, 128), (.maxHeaderListSize, 8192)], ack: false),
                .windowUpdate(stream: 0, increment: UInt32((1 << 20) - 65_535)), .settings([], ack: true),
            ])
    }

    @Test func aPrefaceInPiecesIsWaitedForAndAWrongOneEndsTheConnection() throws {
        var machine = HTTP2ServerMachine()
        var output: [UInt8] = []
        #expect(try machine.receive(HTTP2Frame.preface.prefix(10), into: &output).isEmpty)
        #expect(try machine.receive(HTTP2Frame.preface.dropFirst(10) + Self.bytes(.settings([], ack: false)), into: &output).isEmpty)
        #expect(try Self.frames(output) == [.settings([], ack: true)])

        var other = HTTP2ServerMachine()
        #expect(throws: HTTP2Failure.self) { try other.receive(Array("GET / HTTP/1.1\r\n\r\n".utf8), into: &output) }
        var noSettings = HTTP2ServerMachine()
        #expect(throws: HTTP2Failure(.protocolError, "the preface was not followed by SETTINGS")) {
            try noSettings.receive(HTTP2Frame.preface + Self.bytes(.ping([1], ack: false)), into: &output)
        }
    }

    @Test func aRequestBecomesTheHandlersRequestAndItsResponseReachesTheClient() throws {
        var pair = try Pair(server: .init(credentials: true, loopIndex: 3))
        let body = Array(#"{"id":1,"answer":"red"}"#.utf8)
        let id = pair.send(
            "POST", "/question/submit?x=1", body: body,
            headers: [HPACK.Field("content-type", "application/json"), HPACK.Field("cookie", "a=1"), HPACK.Field("cookie", "b=2")])
        try pair.pump()
        let (stream, request) = try #require(pair.requests.first)
        #expect(stream == id)
        #expect(request.method == "POST")
        #expect(request.path == "/question/submit?x=1")
        #expect(request.pathWithoutQuery == "/question/submit")
        #expect(request.body == body)
        #expect(request.loopIndex == 3)
        #expect(request.cookie == "a=1; b=2")
        #expect(request.headers.first == HTTPHeader(name: "host", value: "127.0.0.1"))
        #expect(request.headers.contains(HTTPHeader(name: "content-type", value: "application/json")))

        let response = HTTPServerResponse.json(200, Array("[1]".utf8))
        pair.server.respond(
            stream, status: 200, fields: HTTP2ServerConnection.fields(of: response), body: response.body, into: &pair.toClient)
        try pair.pump()
        let answer = try #require(pair.responses[id])
        #expect(answer.status == 200)
        #expect(answer.body == Array("[1]".utf8))
        #expect(answer.headers.contains(HPACK.Field("content-type", "application/json")))
        #expect(answer.headers.contains(HPACK.Field("content-length", "3")))
        #expect(pair.server.openStreams == 0)
        #expect(pair.client.openStreams == 0)
    }

    @Test func manyStreamsAreAnsweredInAnyOrderOnOneConnection() throws {
        var pair = try Pair()
        let ids = (0..<20).map { _ in pair.send("GET", "/questions") }
        try pair.pump()
        #expect(pair.requests.map(\.stream) == ids)
        for (stream, _) in pair.requests.reversed() {
            pair.server.respond(stream, status: 200, fields: [], body: Array("stream \(stream)".utf8), into: &pair.toClient)
        }
        try pair.pump()
        #expect(pair.responses.count == 20)
        for id in ids { #expect(pair.responses[id]?.body == Array("stream \(id)".utf8)) }
    }

    @Test func aLargeResponseWaitsForTheClientsWindowAndGoesOnAsItOpens() throws {
        var clientSettings = HTTP2ClientMachine.Settings()
        clientSettings.initialWindowSize = 1000
        var pair = try Pair(client: clientSettings)
        let id = pair.send("GET", "/big")
        try pair.pump()
        let body = (0..<100_000).map { UInt8($0 % 251) }
        pair.server.respond(id, status: 200, fields: [], body: body, into: &pair.toClient)
        // Only the client's window goes out at once; the client gives it back as it reads.
        let first = try Self.frames(pair.toClient).reduce(0) { sum, frame in
            if case .data(_, let data, _) = frame { return sum + data.count }
            return sum
        }
        #expect(first == 1000)
        #expect(pair.server.pendingBytes == 99_000)
        try pair.pump()
        #expect(pair.responses[id]?.body == body)
        #expect(pair.server.pendingBytes == 0)
    }

    @Test func bodiesWaitForTheConnectionsWritesAsForAWindow() throws {
        var clientSettings = HTTP2ClientMachine.Settings()
        clientSettings.initialWindowSize = 0x7FFF_FFFF
        clientSettings.connectionWindow = 0x7FFF_FFFF
        var pair = try Pair(client: clientSettings)
        let ids = (0..<4).map { _ in pair.send("GET", "/big") }
        try pair.pump()
        // A client with windows wide open: only the allowance goes out, the rest waits.
        let body = Array(repeating: UInt8(7), count: 100_000)
        pair.server.writeAllowance = 50_000
        for id in ids { pair.server.respond(id, status: 200, fields: [], body: body, into: &pair.toClient) }
        let written = try Self.frames(pair.toClient).reduce(0) { sum, frame in
            if case .data(_, let data, _) = frame { return sum + data.count }
            return sum
        }
        #expect(written == 50_000)
        #expect(pair.server.pendingBytes == 350_000)
        // As the connection's writes catch up, the rest follows.
        var rounds = 0
        while pair.server.pendingBytes > 0 && rounds < 20 {
            try pair.pump()
            pair.server.writeAllowance = 50_000
            pair.server.resume(into: &pair.toClient)
            rounds += 1
        }
        try pair.pump()
        #expect(rounds == 7)
        for id in ids { #expect(pair.responses[id]?.body == body) }
    }

    @Test func aSlowWindowHoldsTheRequestBodyUntilTheServerGivesItBack() throws {
        var pair = try Pair(server: .init(initialWindowSize: 8, returnsWindows: false))
        let body = Array(#"{"id":1,"answer":"blue"}"#.utf8)
        _ = pair.send("POST", "/question/submit", body: body)
        try pair.pump()
        #expect(pair.requests.isEmpty, "the body is longer than the window")
        var rounds = 0
        while pair.requests.isEmpty && rounds < 10 {
            #expect(pair.server.hasUnreturnedWindow)
            pair.server.returnWindows(into: &pair.toClient)
            try pair.pump()
            rounds += 1
        }
        // 24 bytes through a window of 8: three windows, two given back.
        #expect(rounds == 2)
        #expect(pair.requests.first?.request.body == body)
    }

    @Test func pingIsAcknowledgedAndAFloodOfFramesWithoutResponsesEndsTheConnection() throws {
        var (machine, _) = try Self.opened(.init(maxControlFrames: 50))
        var output: [UInt8] = []
        _ = try machine.receive(Self.bytes(.ping([1, 2, 3, 4, 5, 6, 7, 8], ack: false)), into: &output)
        #expect(try Self.frames(output) == [.ping([1, 2, 3, 4, 5, 6, 7, 8], ack: true)])
        let flood = (0..<60).flatMap { _ in Self.bytes(.ping([0], ack: false)) }
        do {
            _ = try machine.receive(flood, into: &output)
            Issue.record("60 PINGs were answered")
        } catch {
            #expect(error.error == .enhanceYourCalm)
        }
    }

    @Test func aHeaderBlockAcrossContinuationsIsOneRequestAndAnEndlessOneIsRefused() throws {
        var (machine, _) = try Self.opened()
        let block = Self.block(Self.get + [("x-long", String(repeating: "a", count: 300))])
        var output: [UInt8] = []
        let events = try machine.receive(
            Self.bytes(
                .headers(stream: 1, fragment: Array(block.prefix(10)), endStream: true, endHeaders: false),
                .continuation(stream: 1, fragment: Array(block.dropFirst(10).prefix(100)), endHeaders: false),
                .continuation(stream: 1, fragment: Array(block.dropFirst(110)), endHeaders: true)),
            into: &output)
        guard case .request(1, let request)? = events.first else {
            Issue.record("no request: \(events)")
            return
        }
        #expect(request.path == "/questions")

        var (flooded, _) = try Self.opened()
        var flood = Self.bytes(.headers(stream: 1, fragment: [0x82], endStream: true, endHeaders: false))
        for _ in 0..<40 { flood += Self.bytes(.continuation(stream: 1, fragment: Array(repeating: 0x82, count: 1000), endHeaders: false)) }
        #expect(throws: HTTP2Failure(.enhanceYourCalm, "stream 1's header block went past 16384 bytes")) {
            try flooded.receive(flood, into: &output)
        }
        var interrupted = try Self.opened().0
        #expect(throws: HTTP2Failure.self) {
            try interrupted.receive(
                Self.bytes(
                    .headers(stream: 1, fragment: [0x82], endStream: true, endHeaders: false), .ping([0], ack: false)),
                into: &output)
        }
    }

    @Test func tooLargeHeadersAndBodiesAreAnsweredOnTheirStreamAlone() throws {
        var pair = try Pair(server: .init(maxHeaderListSize: 1024, maxBodyBytes: 100))
        let big = pair.send("GET", "/questions", headers: [HPACK.Field("x-big", String(repeating: "b", count: 2000))])
        let long = pair.send("POST", "/question/submit", body: Array(repeating: 0x61, count: 500))
        let fine = pair.send("GET", "/questions")
        try pair.pump()
        #expect(pair.requests.map(\.stream) == [fine])
        #expect(pair.responses[big]?.status == 431)
        #expect(pair.responses[long]?.status == 413)
        let rejected = pair.serverEvents.compactMap { event -> Int? in
            if case .rejected(_, let status) = event { return status }
            return nil
        }
        #expect(rejected == [431, 413])
    }

    @Test func anHPACKBombEndsTheConnectionBeforeItGrows() throws {
        var (machine, _) = try Self.opened(.init(maxHeaderListSize: 1024))
        // One field of 3,000 bytes in the table, then 60 one-byte references to it.
        var block: [UInt8] = []
        HPACK.appendInteger(0, prefix: 6, flags: 0x40, to: &block)
        HPACK.appendString(Array("x-bomb".utf8), to: &block)
        HPACK.appendString(Array(repeating: 0x61, count: 3000), to: &block)
        block += Array(repeating: 0xBE, count: 60)  // index 62: the newest dynamic entry
        var output: [UInt8] = []
        do {
            _ = try machine.receive(Self.bytes(.headers(stream: 1, fragment: block, endStream: true, endHeaders: true)), into: &output)
            Issue.record("the bomb was decoded")
        } catch {
            #expect(error.error == .compressionError)
        }
    }

    @Test func malformedRequestsAreResetAndStreamsAboveTheLimitRefused() throws {
        var (machine, _) = try Self.opened(.init(maxConcurrentStreams: 2))
        var output: [UInt8] = []
        let events = try machine.receive(
            Self.bytes(
                .headers(stream: 1, fragment: Self.block([(":method", "GET"), (":path", "/")]), endStream: true, endHeaders: true),
                .headers(stream: 3, fragment: Self.block(Self.get + [("Upper", "x")]), endStream: true, endHeaders: true),
                .headers(stream: 5, fragment: Self.block(Self.get), endStream: false, endHeaders: true),
                .headers(stream: 7, fragment: Self.block(Self.get), endStream: false, endHeaders: true),
                .headers(stream: 9, fragment: Self.block(Self.get), endStream: false, endHeaders: true)),
            into: &output)
        #expect(events.count == 2)
        #expect(
            try Self.frames(output) == [
                .resetStream(stream: 1, error: .protocolError), .resetStream(stream: 3, error: .protocolError),
                .resetStream(stream: 9, error: .refusedStream),
            ])
        #expect(machine.openStreams == 2)
        #expect(throws: HTTP2Failure.self) {
            try machine.receive(
                Self.bytes(.headers(stream: 4, fragment: Self.block(Self.get), endStream: true, endHeaders: true)), into: &output)
        }
    }

    @Test func goAwayLeavesLaterStreamsUnprocessedForTheClientToSendAgain() throws {
        var pair = try Pair()
        let first = pair.send("GET", "/questions")
        let second = pair.send("GET", "/questions")
        try pair.pump()
        #expect(pair.requests.count == 2)
        // The second is what the server goes away for: GOAWAY keeps only the first.
        let dropped = pair.server.goAway(lastStream: first, into: &pair.toClient)
        #expect(dropped.isEmpty, "the second was already processed")
        pair.server.respond(first, status: 204, fields: [], body: [], into: &pair.toClient)
        try pair.pump()
        #expect(pair.responses[first]?.status == 204)
        #expect(pair.clientEvents.contains { if case .goAway(first, .noError, [second]) = $0 { true } else { false } })
        #expect(pair.server.openStreams == 0)

        // A request that crossed the GOAWAY is read only to be counted.
        var output: [UInt8] = []
        let late = try pair.server.receive(
            Self.bytes(.headers(stream: 5, fragment: Self.block(Self.get), endStream: true, endHeaders: true)), into: &output)
        guard case .unanswered(5, let request)? = late.first else {
            Issue.record("\(late)")
            return
        }
        #expect(request.path == "/questions")
        #expect(output.isEmpty)
    }

    @Test func resetsGoBothWays() throws {
        var pair = try Pair()
        let cancelled = pair.send("GET", "/questions")
        let reset = pair.send("GET", "/questions")
        try pair.pump()
        pair.client.cancel(cancelled, into: &pair.toServer)
        pair.server.reset(reset, error: .internalError, into: &pair.toClient)
        try pair.pump()
        #expect(pair.serverEvents.contains { if case .cancelled(cancelled, .cancel) = $0 { true } else { false } })
        #expect(pair.clientEvents.contains { if case .reset(reset, .internalError) = $0 { true } else { false } })
        #expect(!pair.server.awaitsResponse(cancelled))
        #expect(pair.server.openStreams == 0)
    }

    @Test func aMalformedResponseBreaksItsStreamAlone() throws {
        var pair = try Pair()
        let broken = pair.send("GET", "/questions")
        let fine = pair.send("GET", "/questions")
        try pair.pump()
        pair.server.sendMalformed(broken, into: &pair.toClient)
        pair.server.respond(fine, status: 200, fields: [], body: [1], into: &pair.toClient)
        try pair.pump()
        #expect(pair.clientEvents.contains { if case .reset(broken, .protocolError) = $0 { true } else { false } })
        #expect(pair.responses[fine]?.status == 200)
    }
}
