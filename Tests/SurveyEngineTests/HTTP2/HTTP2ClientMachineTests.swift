import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// The client's HTTP/2 state machine against a scripted server: the handshake, a request and
/// its response, flow control both ways, the peer's stream limit, GOAWAY, RST_STREAM, PING,
/// header blocks across CONTINUATION frames, and the breaches that end the connection.
@Suite struct HTTP2ClientMachineTests {
    /// The server's side, written by hand: frames in, frames out.
    struct Server {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()

        /// The frames in `bytes` (after the preface, when it is there).
        func frames(_ bytes: [UInt8]) throws -> [HTTP2Frame] {
            var rest = bytes[...]
            if rest.starts(with: HTTP2Frame.preface) { rest = rest.dropFirst(HTTP2Frame.preface.count) }
            var frames: [HTTP2Frame] = []
            while case .frame(let frame, let length) = try HTTP2Frame.read(rest) {
                frames.append(frame)
                rest = rest.dropFirst(length)
            }
            #expect(rest.isEmpty, "bytes left over")
            return frames
        }

        mutating func headers(_ stream: UInt32, _ fields: [(String, String)], endStream: Bool) -> [UInt8] {
            var block: [UInt8] = []
            encoder.encode(fields.map { HPACK.Field($0.0, $0.1) }, into: &block)
            return bytes(.headers(stream: stream, fragment: block, endStream: endStream, endHeaders: true))
        }

        func bytes(_ frames: HTTP2Frame...) -> [UInt8] {
            var output: [UInt8] = []
            for frame in frames { frame.write(into: &output) }
            return output
        }
    }

    /// A machine that has sent its preface and read the server's SETTINGS `values`.
    func connected(_ values: [(HTTP2Setting, UInt32)] = [], settings: HTTP2ClientMachine.Settings = .init()) throws
        -> (HTTP2ClientMachine, Server)
    {
        var machine = HTTP2ClientMachine(settings: settings)
        var output: [UInt8] = []
        machine.start(into: &output)
        let server = Server()
        var reply: [UInt8] = []
        let events = try machine.receive(server.bytes(.settings(values, ack: false), .settings([], ack: true)), into: &reply)
        #expect(events.isEmpty)
        #expect(try server.frames(reply) == [.settings([], ack: true)])
        #expect(machine.settingsAcknowledged)
        return (machine, server)
    }

    @Test func theConnectionStartsWithThePrefaceItsSettingsAndALargerWindow() throws {
        var machine = HTTP2ClientMachine()
        var output: [UInt8] = []
        machine.start(into: &output)
        #expect(output.starts(with: HTTP2Frame.preface))
        let frames = try Server().frames(output)
        #expect(
            frames == [
                .settings(
                    [
                        (.headerTableSize, 4096), (.enablePush, 0), (.initialWindowSize, 1 << 20), (.maxFrameSize, 16_384),
                        (.maxHeaderListSize, 65_536),
                    ],
                    ack: false),
                .windowUpdate(stream: 0, increment: UInt32((4 << 20) - 65_535)),
            ])
    }

    /// A response's HEADERS and DATA are read where they lie in the bytes taken, not as frames
    /// of their own: padding and a priority come off there too, and two responses in one read
    /// each keep their own bytes.
    @Test func paddedFramesWithAPriorityAreReadWhereTheyLie() throws {
        var (machine, _) = try connected()
        var output: [UInt8] = []
        for _ in 0..<2 { _ = machine.send(method: "GET", scheme: "https", authority: "a", path: "/", headers: [], body: [], into: &output) }
        // HEADERS on stream 1, padded and with a priority: pad length 2, 5 bytes of priority,
        // `:status: 200` (static index 8), two bytes of padding.
        var reply: [UInt8] = [0, 0, 9, 0x1, 0x8 | 0x20 | 0x4, 0, 0, 0, 1, 2, 0, 0, 0, 0, 16, 0x88, 0, 0]
        // DATA on stream 1, padded: pad length 3, "ok", three bytes of padding, the stream's end.
        reply += [0, 0, 6, 0x0, 0x8 | 0x1, 0, 0, 0, 1, 3, 0x6F, 0x6B, 0, 0, 0]
        // Stream 3: `:status: 404` (static index 13) and its body, neither padded.
        reply += [0, 0, 1, 0x1, 0x4, 0, 0, 0, 3, 0x8D]
        reply += [0, 0, 2, 0x0, 0x1, 0, 0, 0, 3, 0x6E, 0x6F]
        var nothing: [UInt8] = []
        let events = try machine.receive(reply, into: &nothing)
        #expect(
            events == [
                .response(stream: 1, .init(status: 200, headers: [], body: Array("ok".utf8))),
                .response(stream: 3, .init(status: 404, headers: [], body: Array("no".utf8))),
            ])
        // A HEADERS frame's padding longer than the frame is still the connection's error.
        _ = machine.send(method: "GET", scheme: "https", authority: "a", path: "/", headers: [], body: [], into: &output)
        #expect(throws: HTTP2Failure.self) { try machine.receive([0, 0, 2, 0x1, 0x8 | 0x4, 0, 0, 0, 5, 9, 0x88], into: &nothing) }
    }

    @Test func aRequestGoesOutAndItsResponseComesBackWhole() throws {
        var (machine, server) = try connected()
        var output: [UInt8] = []
        let id = machine.send(
            method: "POST", scheme: "https", authority: "survey.example", path: "/question/submit",
            headers: [HPACK.Field("content-type", "application/json")], body: Array(#"{"id":1}"#.utf8), into: &output)
        #expect(id == 1 && machine.openStreams == 1)
        let sent = try server.frames(output)
        guard case .headers(1, let block, false, true) = sent[0] else {
            Issue.record("no HEADERS first: \(sent)")
            return
        }
        #expect(
            try server.decoder.decode(block)
                == [
                    HPACK.Field(":method", "POST"), HPACK.Field(":scheme", "https"), HPACK.Field(":authority", "survey.example"),
                    HPACK.Field(":path", "/question/submit"), HPACK.Field("content-type", "application/json"),
                ])
        #expect(sent[1] == .data(stream: 1, data: Array(#"{"id":1}"#.utf8), endStream: true))
        // The response, in pieces: its HEADERS, then DATA split across two reads.
        var reply = server.headers(1, [(":status", "201"), ("content-type", "application/json")], endStream: false)
        reply += server.bytes(.data(stream: 1, data: Array("{}".utf8), endStream: true))
        var nothing: [UInt8] = []
        #expect(try machine.receive(reply.prefix(reply.count - 3), into: &nothing).isEmpty)
        let events = try machine.receive(reply.suffix(3), into: &nothing)
        #expect(
            events == [
                .response(stream: 1, .init(status: 201, headers: [HPACK.Field("content-type", "application/json")], body: Array("{}".utf8)))
            ])
        #expect(machine.openStreams == 0)
        // The next request takes the next odd stream id.
        #expect(machine.send(method: "GET", scheme: "https", authority: "a", path: "/", headers: [], body: [], into: &output) == 3)
    }

    /// Each stream's state is changed where the machine keeps it, frame by frame: two responses
    /// whose frames alternate, the first's body in many DATA frames and the second's ended by
    /// trailers, come back whole and apart, and what the first read is given back on its own
    /// window.
    @Test func interleavedResponsesEachComeBackWholeFromTheirOwnFrames() throws {
        var (machine, server) = try connected()
        var output: [UInt8] = []
        let first = machine.send([HPACK.Field(":method", "GET"), HPACK.Field(":path", "/a")], body: [], keepBody: true, into: &output)
        let second = machine.send([HPACK.Field(":method", "GET"), HPACK.Field(":path", "/b")], body: [], keepBody: true, into: &output)
        var reply = server.headers(first, [(":status", "200"), ("x-one", "1")], endStream: false)
        reply += server.headers(second, [(":status", "404")], endStream: false)
        // Half the stream's window of 1 MiB, in frames of the largest size, the second's between.
        let frame = HTTP2Frame.defaultMaxFrameSize
        let frames = (1 << 20) / 2 / frame
        for index in 0..<frames {
            reply += server.bytes(.data(stream: first, data: Array(repeating: UInt8(index), count: frame), endStream: false))
            if index == 1 { reply += server.bytes(.data(stream: second, data: Array("not ".utf8), endStream: false)) }
        }
        reply += server.bytes(.data(stream: second, data: Array("found".utf8), endStream: false))
        reply += server.headers(second, [("x-trailer", "t")], endStream: true)
        var sent: [UInt8] = []
        #expect(
            try machine.receive(reply, into: &sent) == [
                .response(stream: second, .init(status: 404, headers: [HPACK.Field("x-trailer", "t")], body: Array("not found".utf8)))
            ])
        #expect(try server.frames(sent).contains(.windowUpdate(stream: first, increment: UInt32(frames * frame))))
        let events = try machine.receive(server.bytes(.data(stream: first, data: Array("end".utf8), endStream: true)), into: &sent)
        #expect(machine.openStreams == 0)
        let body = (0..<frames).flatMap { Array(repeating: UInt8($0), count: frame) } + Array("end".utf8)
        #expect(events == [.response(stream: first, .init(status: 200, headers: [HPACK.Field("x-one", "1")], body: body))])
    }

    @Test func aFailuresFirstBytesAreKeptWhenTheBodyIsNotAndASuccesssAreNot() throws {
        var (machine, server) = try connected()
        let limit = TransportResponse.failureBodyLimit
        let body = [UInt8](repeating: 0x78, count: limit + 100)
        for (status, kept) in [("401", limit), ("500", limit), ("200", 0)] {
            var output: [UInt8] = []
            let id = machine.send([HPACK.Field(":method", "GET"), HPACK.Field(":path", "/")], body: [], keepBody: false, into: &output)
            var reply = server.headers(id, [(":status", status)], endStream: false)
            reply += server.bytes(.data(stream: id, data: Array(body.prefix(3000)), endStream: false))
            reply += server.bytes(.data(stream: id, data: Array(body.dropFirst(3000)), endStream: true))
            var nothing: [UInt8] = []
            let events = try machine.receive(reply, into: &nothing)
            #expect(
                events == [
                    .response(stream: id, .init(status: Int(status)!, headers: [], body: Array(body.prefix(kept)), bodyBytes: body.count))
                ],
                "\(status)")
        }
    }

    /// A field value with CR, LF or NUL (RFC 9113 §8.2.1) makes the response malformed: the
    /// stream is reset, and no such value reaches the response — a `set-cookie` with CR/LF would
    /// go from the jar into the `Cookie:` line of an HTTP/1.1 request.
    @Test func aFieldValueThatWouldEndALineMakesTheResponseMalformed() throws {
        var (machine, server) = try connected()
        for value in ["sid=1\r\nX-Injected: yes", "a\nb", "a\u{0}b"] {
            var output: [UInt8] = []
            let id = machine.send([HPACK.Field(":method", "GET"), HPACK.Field(":path", "/")], body: [], keepBody: true, into: &output)
            let reply = server.headers(id, [(":status", "200"), ("set-cookie", value)], endStream: true)
            var nothing: [UInt8] = []
            let events = try machine.receive(reply, into: &nothing)
            #expect(events == [.reset(stream: id, error: .protocolError)], "\(value.debugDescription)")
        }
        // A tab is allowed, as in HTTP/1.1.
        var output: [UInt8] = []
        let id = machine.send([HPACK.Field(":method", "GET"), HPACK.Field(":path", "/")], body: [], keepBody: true, into: &output)
        var nothing: [UInt8] = []
        let events = try machine.receive(server.headers(id, [(":status", "200"), ("x-a", "b\tc")], endStream: true), into: &nothing)
        #expect(events == [.response(stream: id, .init(status: 200, headers: [HPACK.Field("x-a", "b\tc")], body: []))])
    }

    /// A request for the jar alone keeps a response's `set-cookie` fields (and `retry-after`,
    /// which retries read), not the others: they are not gathered for nobody; one that keeps no
    /// headers keeps `retry-after` alone.
    @Test func aRequestForCookiesKeepsSetCookieAndRetryAfterAlone() throws {
        var (machine, server) = try connected()
        let fields = [
            (":status", "200"), ("server", "nginx"), ("set-cookie", "a=1"), ("content-type", "text/plain"),
            ("retry-after", "3"), ("set-cookie", "b=2"),
        ]
        for (keepCookies, expected) in [
            (true, [HPACK.Field("set-cookie", "a=1"), HPACK.Field("retry-after", "3"), HPACK.Field("set-cookie", "b=2")]),
            (false, [HPACK.Field("retry-after", "3")]),
        ] {
            var output: [UInt8] = []
            let id = machine.send(
                encodingHeaders: { encoder, block in
                    encoder.encode([HPACK.Field(":method", "GET"), HPACK.Field(":path", "/")], into: &block)
                },
                body: [], keepBody: true, keepHeaders: false, keepCookies: keepCookies, into: &output)
            var nothing: [UInt8] = []
            let events = try machine.receive(server.headers(id, fields, endStream: true), into: &nothing)
            #expect(events == [.response(stream: id, .init(status: 200, headers: expected, body: []))], "keepCookies \(keepCookies)")
        }
    }

    @Test func aBodyWaitsForThePeersWindow() throws {
        var (machine, server) = try connected([(.initialWindowSize, 10)])
        var output: [UInt8] = []
        _ = machine.send(
            method: "POST", scheme: "http", authority: "a", path: "/", headers: [], body: Array(repeating: 7, count: 25), into: &output)
        #expect(try server.frames(output).dropFirst() == [.data(stream: 1, data: Array(repeating: 7, count: 10), endStream: false)])
        output = []
        _ = try machine.receive(server.bytes(.windowUpdate(stream: 1, increment: 10)), into: &output)
        #expect(try server.frames(output) == [.data(stream: 1, data: Array(repeating: 7, count: 10), endStream: false)])
        output = []
        // A larger initial window opens every stream's at once.
        _ = try machine.receive(server.bytes(.settings([(.initialWindowSize, 100)], ack: false)), into: &output)
        #expect(
            try server.frames(output) == [.settings([], ack: true), .data(stream: 1, data: Array(repeating: 7, count: 5), endStream: true)])
    }

    @Test func theConnectionsWindowHoldsEveryStream() throws {
        var (machine, server) = try connected([(.initialWindowSize, 1 << 20)])
        var output: [UInt8] = []
        _ = machine.send(
            method: "POST", scheme: "http", authority: "a", path: "/", headers: [], body: Array(repeating: 1, count: 70_000), into: &output)
        let data = try server.frames(output).dropFirst().map { frame -> Int in
            if case .data(_, let data, _) = frame { return data.count }
            return -1
        }
        // 65,535 on the connection, in frames of at most 16,384.
        #expect(data == [16_384, 16_384, 16_384, 16_383])
        output = []
        _ = try machine.receive(server.bytes(.windowUpdate(stream: 0, increment: 10_000)), into: &output)
        #expect(try server.frames(output) == [.data(stream: 1, data: Array(repeating: 1, count: 4_465), endStream: true)])
    }

    @Test func whatItReadsItGivesBack() throws {
        var settings = HTTP2ClientMachine.Settings()
        settings.initialWindowSize = 100
        settings.connectionWindow = 65_535
        var (machine, server) = try connected(settings: settings)
        var output: [UInt8] = []
        _ = machine.send(method: "GET", scheme: "http", authority: "a", path: "/", headers: [], body: [], into: &output)
        output = []
        var reply = server.headers(1, [(":status", "200")], endStream: false)
        reply += server.bytes(.data(stream: 1, data: Array(repeating: 0, count: 60), endStream: false))
        _ = try machine.receive(reply, into: &output)
        #expect(try server.frames(output) == [.windowUpdate(stream: 1, increment: 60)])
        // Beyond the window is a flow-control error.
        #expect(throws: HTTP2Failure.self) {
            var out: [UInt8] = []
            _ = try machine.receive(server.bytes(.data(stream: 1, data: Array(repeating: 0, count: 101), endStream: false)), into: &out)
        }
    }

    @Test func thePeersStreamLimitHoldsNewRequests() throws {
        var (machine, _) = try connected([(.maxConcurrentStreams, 1)])
        var output: [UInt8] = []
        #expect(machine.canOpenStream)
        _ = machine.send(method: "GET", scheme: "http", authority: "a", path: "/", headers: [], body: [], into: &output)
        #expect(!machine.canOpenStream)
    }

    @Test func aGoAwaySaysWhichStreamsMayGoAgain() throws {
        var (machine, server) = try connected()
        var output: [UInt8] = []
        for _ in 0..<3 { _ = machine.send(method: "GET", scheme: "http", authority: "a", path: "/", headers: [], body: [], into: &output) }
        let events = try machine.receive(server.bytes(.goAway(lastStream: 1, error: .noError, debug: [])), into: &output)
        #expect(events == [.goAway(lastStream: 1, error: .noError, unprocessed: [3, 5])])
        #expect(!machine.canOpenStream && machine.openStreams == 1)
        // Stream 1 is still answered.
        var server2 = server
        let answered = try machine.receive(server2.headers(1, [(":status", "204")], endStream: true), into: &output)
        #expect(answered == [.response(stream: 1, .init(status: 204, headers: [], body: []))])
    }

    @Test func aResetPingAndCancelAreHandled() throws {
        var (machine, server) = try connected()
        var output: [UInt8] = []
        _ = machine.send(method: "GET", scheme: "http", authority: "a", path: "/", headers: [], body: [], into: &output)
        _ = machine.send(method: "GET", scheme: "http", authority: "a", path: "/", headers: [], body: [], into: &output)
        output = []
        let events = try machine.receive(
            server.bytes(.resetStream(stream: 1, error: .refusedStream), .ping([9, 8, 7, 6, 5, 4, 3, 2], ack: false)), into: &output)
        #expect(events == [.reset(stream: 1, error: .refusedStream)])
        #expect(try server.frames(output) == [.ping([9, 8, 7, 6, 5, 4, 3, 2], ack: true)])
        output = []
        machine.cancel(3, into: &output)
        #expect(try server.frames(output) == [.resetStream(stream: 3, error: .cancel)] && machine.openStreams == 0)
    }

    @Test func aHeaderBlockAcrossContinuationsIsOneResponse() throws {
        var (machine, server) = try connected()
        var output: [UInt8] = []
        _ = machine.send(method: "GET", scheme: "http", authority: "a", path: "/", headers: [], body: [], into: &output)
        var block: [UInt8] = []
        server.encoder.encode([HPACK.Field(":status", "200"), HPACK.Field("x-long", String(repeating: "v", count: 50))], into: &block)
        let reply = server.bytes(
            .headers(stream: 1, fragment: Array(block.prefix(10)), endStream: true, endHeaders: false),
            .continuation(stream: 1, fragment: Array(block.dropFirst(10).prefix(20)), endHeaders: false),
            .continuation(stream: 1, fragment: Array(block.dropFirst(30)), endHeaders: true))
        let events = try machine.receive(reply, into: &output)
        #expect(
            events == [
                .response(stream: 1, .init(status: 200, headers: [HPACK.Field("x-long", String(repeating: "v", count: 50))], body: []))
            ])
        // A 100 Continue before the final response is skipped.
        _ = machine.send(method: "GET", scheme: "http", authority: "a", path: "/", headers: [], body: [], into: &output)
        var more = server.headers(3, [(":status", "100")], endStream: false)
        more += server.headers(3, [(":status", "200")], endStream: true)
        #expect(try machine.receive(more, into: &output) == [.response(stream: 3, .init(status: 200, headers: [], body: []))])
    }

    @Test(arguments: [
        ("headers then ping", HTTP2Error.protocolError), ("push promise", .protocolError), ("bad hpack", .compressionError),
        ("stray continuation", .protocolError),
    ])
    func aBreachEndsTheConnectionWithItsCode(_ name: String, _ error: HTTP2Error) throws {
        var (machine, server) = try connected()
        var output: [UInt8] = []
        _ = machine.send(method: "GET", scheme: "http", authority: "a", path: "/", headers: [], body: [], into: &output)
        let bytes: [UInt8]
        switch name {
        case "headers then ping":
            bytes = server.bytes(
                .headers(stream: 1, fragment: [0x88], endStream: false, endHeaders: false), .ping([0, 0, 0, 0, 0, 0, 0, 0], ack: false))
        case "push promise": bytes = server.bytes(.pushPromise(stream: 1, promised: 2))
        case "bad hpack": bytes = server.bytes(.headers(stream: 1, fragment: [0xFF, 0xFF], endStream: true, endHeaders: true))
        default: bytes = server.bytes(.continuation(stream: 1, fragment: [0x88], endHeaders: true))
        }
        #expect(performing: { _ = try machine.receive(bytes, into: &output) }, throws: { ($0 as? HTTP2Failure)?.error == error })
        let failure = HTTP2Failure(error, "x")
        #expect(machine.goAway(for: failure) == .goAway(lastStream: 0, error: error, debug: Array("x".utf8)))
    }
}
