import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// A response head seen before is replayed, not read again (`HeadReplay`): the parser must end
/// where reading the same bytes would have left it, and only then.
@Suite struct HTTPMessageParserReplayTests {
    /// What a parser holds after a message, for comparing two parses of it.
    struct Outcome: Equatable {
        var progress: HTTPMessageParser.Progress
        var status: Int
        var minorVersion: Int
        var keepAlive: Bool
        var retryAfter: [UInt8]?
        var headers: [HTTPHeader]
        var setCookies: [[UInt8]]
        var contentLength: Int?
        var transferEncoding: Bool
        var chunked: Bool
        var connectionKeepAlive: Bool?
        var state: HTTPMessageParser.State
        var headBytes: Int
        var body: [UInt8]
        var bodyBytes: Int
    }

    /// How a request asks for its response.
    struct Asking {
        var head = false
        var headers = false
        var cookies = false
    }

    /// Parses `message` in the pieces `cuts` makes, with `replay` (none: nil), as a connection
    /// does a response to a request asking `asking`.
    static func parse(_ message: String, _ asking: Asking = Asking(), replay: HeadReplay?, cuts: [Int] = []) -> Outcome {
        var parser = HTTPMessageParser(role: .response, maxHeadBytes: 4096, maxBodyBytes: 1 << 16)
        parser.replay = replay
        parser.isHeadRequest = asking.head
        parser.collectHeaders = asking.headers
        parser.collectCookies = asking.cookies
        let progress = parser.feed(Array(message.utf8), cuts: cuts)
        return Outcome(
            progress: progress, status: parser.status, minorVersion: parser.minorVersion, keepAlive: parser.keepAlive,
            retryAfter: parser.retryAfter, headers: parser.headers, setCookies: parser.setCookies, contentLength: parser.contentLength,
            transferEncoding: parser.transferEncoding, chunked: parser.chunked, connectionKeepAlive: parser.connectionKeepAlive,
            state: parser.state, headBytes: parser.headBytes, body: parser.body, bodyBytes: parser.bodyBytes)
    }

    static let nginx =
        "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Sun, 29 Nov 2026 10:24:24 GMT\r\n"
        + "Content-Type: text/plain\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n"

    static let responses: [(String, Asking)] = [
        (nginx, Asking()),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", Asking()),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\n", Asking()),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", Asking(head: true)),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", Asking()),
        ("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n", Asking()),
        ("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", Asking()),
        ("HTTP/1.1 503 Busy\r\nRetry-After: 2\r\nContent-Length: 4\r\n\r\nbusy", Asking()),
        ("HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n", Asking(cookies: true)),
        ("HTTP/1.1 200 OK\r\nX-Trace: 7\r\nContent-Length: 1\r\n\r\n!", Asking(headers: true)),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n", Asking()),
        ("\r\nHTTP/1.1 200 OK\nContent-Length: 1\n\nx", Asking()),
    ]

    @Test(arguments: responses.indices) func aReplayedHeadLeavesTheParserAsReadingItDid(index: Int) {
        let (message, asking) = Self.responses[index]
        let read = Self.parse(message, asking, replay: nil)
        let replay = HeadReplay()
        #expect(Self.parse(message, asking, replay: replay) == read)
        #expect(replay.replays == 0)
        #expect(Self.parse(message, asking, replay: replay) == read)
        #expect(replay.replays == 1)
    }

    @Test func aHeadThatDiffersInOneByteOrIsAskedForOtherwiseIsReadNotReplayed() {
        let replay = HeadReplay()
        _ = Self.parse(Self.nginx, replay: replay)
        let aSecondLater = Self.nginx.replacingOccurrences(of: "10:24:24", with: "10:24:25")
        #expect(Self.parse(aSecondLater, replay: replay) == Self.parse(aSecondLater, replay: nil))
        #expect(replay.replays == 0)
        // The same bytes, answering a HEAD request or asked for its fields: other settings.
        for asking in [Asking(head: true), Asking(headers: true), Asking(cookies: true)] {
            #expect(Self.parse(Self.nginx, asking, replay: replay) == Self.parse(Self.nginx, asking, replay: nil))
        }
        #expect(replay.replays == 0)
        #expect(Self.parse(Self.nginx, Asking(headers: true), replay: replay).headers.count == 5)
        #expect(replay.replays == 1)
    }

    @Test func aHeadSplitAcrossReadsOrAfterAnInterimResponseIsNeverKept() {
        let replay = HeadReplay()
        let read = Self.parse(Self.nginx, replay: nil)
        #expect(Self.parse(Self.nginx, replay: replay, cuts: [40]) == read)
        #expect(Self.parse(Self.nginx, replay: replay) == read)
        #expect(replay.replays == 0)
        let interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
        for _ in 0..<2 { #expect(Self.parse(interim, replay: replay) == Self.parse(interim, replay: nil)) }
        // The final head after the interim one began past the read's start: neither was kept.
        #expect(Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", replay: replay).status == 200)
        #expect(replay.replays == 0)
    }

    @Test func aReplayedHeadIsFollowedByItsBodyAcrossReads() {
        let replay = HeadReplay()
        let message = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789"
        _ = Self.parse(message, replay: replay)
        // The head whole in the first read, the body in three.
        let split = Self.parse(message, replay: replay, cuts: [40, 43, 47])
        #expect(replay.replays == 1)
        #expect(split == Self.parse(message, replay: nil))
        #expect(split.body == Array("0123456789".utf8))
    }

    @Test func theHeadKeptLongestAgoMakesRoom() {
        let replay = HeadReplay()
        let heads = (0...HeadReplay.capacity).map { "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-N: \($0)\r\n\r\n" }
        for head in heads.dropLast() { _ = Self.parse(head, replay: replay) }
        _ = Self.parse(heads[0], replay: replay)
        #expect(replay.replays == 1)
        // The last takes the place of the first, kept longest ago, though it was just replayed.
        _ = Self.parse(heads[HeadReplay.capacity], replay: replay)
        _ = Self.parse(heads[HeadReplay.capacity], replay: replay)
        #expect(replay.replays == 2)
        _ = Self.parse(heads[0], replay: replay)
        #expect(replay.replays == 2)
        // The first came back in the second's place; the second comes back in the third's, and
        // the fourth is still there.
        _ = Self.parse(heads[1], replay: replay)
        #expect(replay.replays == 2)
        _ = Self.parse(heads[3], replay: replay)
        #expect(replay.replays == 3)
        _ = Self.parse(heads[2], replay: replay)
        #expect(replay.replays == 3)
    }

    @Test func headsThatNeverRepeatAreKeptOnlyOneInSampling() {
        let replay = HeadReplay()
        let unique = (0..<(2 * HeadReplay.sampling)).map { "HTTP/1.1 200 OK\r\nX-Request-Id: \($0)\r\nContent-Length: 0\r\n\r\n" }
        for head in unique { #expect(Self.parse(head, replay: replay) == Self.parse(head, replay: nil)) }
        // The first few, then the 64th and the 128th.
        #expect(replay.keeps == HeadReplay.capacity + 2)
        #expect(replay.replays == 0)
        // Once heads repeat, the next one sampled is kept and replayed; the count starts over.
        for _ in 0...HeadReplay.sampling { _ = Self.parse(Self.nginx, replay: replay) }
        #expect(replay.replays > 0)
        let keeps = replay.keeps
        _ = Self.parse(unique[0], replay: replay)
        #expect(replay.keeps == keeps + 1)
    }

    @Test func aHeadOverTheLimitIsNotKept() {
        let replay = HeadReplay()
        let long = "HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "a", count: HeadReplay.maxBytes) + "\r\nContent-Length: 0\r\n\r\n"
        for _ in 0..<2 { #expect(Self.parse(long, replay: replay) == Self.parse(long, replay: nil)) }
        #expect(replay.replays == 0)
    }
}
