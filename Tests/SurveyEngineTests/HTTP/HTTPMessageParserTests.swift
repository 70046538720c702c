import Testing

@testable import SurveyEngine
@testable import SurveyWire

extension HTTPMessageParser {
    /// Feeds `message` in the pieces `cuts` makes, until it is complete or fails; then, with
    /// `endOfStream`, tells of the peer's close. The last progress, `consumed` counted from the
    /// message's start.
    mutating func feed(_ message: [UInt8], cuts: [Int] = [], endOfStream: Bool = false) -> Progress {
        var start = 0
        for end in cuts + [message.count] where end >= start {
            let progress = message[start..<end].withUnsafeBytes { parse($0) }
            if case .complete(let consumed) = progress { return .complete(consumed: start + consumed) }
            if case .failed = progress { return progress }
            start = end
        }
        return endOfStream ? finishAtEndOfStream() : .needMore
    }
}

/// Feeds `message` to a fresh parser in the pieces `cuts` makes; returns the parser and its last progress.
private func parse(
    _ message: [UInt8], role: HTTPMessageParser.Role = .response, cuts: [Int] = [], maxBody: Int = 1 << 20, head: Bool = false,
    endOfStream: Bool = false
) -> (HTTPMessageParser, HTTPMessageParser.Progress) {
    var parser = HTTPMessageParser(role: role, maxHeadBytes: 1024, maxBodyBytes: maxBody)
    parser.isHeadRequest = head
    let progress = parser.feed(message, cuts: cuts, endOfStream: endOfStream)
    return (parser, progress)
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Parses `message` split into two at every position and into single bytes, and checks each
/// parse against the whole one.
private func expectSameAtEveryBoundary(
    _ message: [UInt8], role: HTTPMessageParser.Role = .response, endOfStream: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let (whole, wholeProgress) = parse(message, role: role, endOfStream: endOfStream)
    for cut in 0...message.count {
        let (split, progress) = parse(message, role: role, cuts: [cut], endOfStream: endOfStream)
        #expect(progress == wholeProgress, "split at \(cut)", sourceLocation: sourceLocation)
        #expect(split.status == whole.status && split.body == whole.body, "split at \(cut)", sourceLocation: sourceLocation)
        #expect(split.keepAlive == whole.keepAlive && split.target == whole.target, "split at \(cut)", sourceLocation: sourceLocation)
    }
    let (single, progress) = parse(message, role: role, cuts: Array(0..<message.count), endOfStream: endOfStream)
    #expect(progress == wholeProgress, "byte by byte", sourceLocation: sourceLocation)
    #expect(single.body == whole.body && single.status == whole.status, "byte by byte", sourceLocation: sourceLocation)
}

@Suite struct HTTPMessageParserTests {
    @Test func aFailuresFirstBytesAreKeptWhenTheBodyIsNotCollectedAndASuccesssAreNot() {
        let limit = TransportResponse.failureBodyLimit
        let body = String(repeating: "x", count: limit + 100)
        for (status, kept) in [(401, limit), (503, limit), (200, 0), (302, 0)] {
            let message = bytes("HTTP/1.1 \(status) Status\r\nContent-Length: \(body.count)\r\n\r\n" + body)
            for cuts in [[], [message.count - 50], Array(stride(from: 40, to: message.count, by: 1000))] {
                var parser = HTTPMessageParser(role: .response)
                parser.collectBody = false
                var start = 0
                for end in cuts + [message.count] {
                    _ = message[start..<end].withUnsafeBytes { parser.parse($0) }
                    start = end
                }
                #expect(parser.isComplete && parser.bodyBytes == body.count)
                #expect(parser.body == Array(body.utf8.prefix(kept)), "\(status), cut at \(cuts)")
            }
        }
    }

    @Test func readsContentLengthResponse() {
        let message = bytes("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n[1,2,3]")
        let (parser, progress) = parse(message)
        #expect(progress == .complete(consumed: message.count))
        #expect(parser.status == 200)
        #expect(parser.body == bytes("[1,2,3]"))
        #expect(parser.keepAlive)
        expectSameAtEveryBoundary(message)
    }

    @Test func readsChunkedResponseWithExtensionsAndTrailers() {
        let message = bytes(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=x\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-Trailer: 1\r\n\r\n"
        )
        let (parser, progress) = parse(message)
        #expect(progress == .complete(consumed: message.count))
        #expect(parser.body == bytes("Wikipedia in\r\n\r\nchunks."))
        expectSameAtEveryBoundary(message)
    }

    @Test func connectionCloseEndsReuse() {
        let (parser, _) = parse(bytes("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"))
        #expect(parser.isComplete)
        #expect(!parser.keepAlive)
        let (old, _) = parse(bytes("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"))
        #expect(!old.keepAlive)
        let (oldKept, _) = parse(bytes("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n"))
        #expect(oldKept.keepAlive)
        // The names and values in any case, but whole: a longer word is not `keep-alive`.
        let (shouting, _) = parse(bytes("HTTP/1.0 200 OK\r\nCONNECTION: KEEP-ALIVE\r\nContent-Length: 0\r\n\r\n"))
        #expect(shouting.keepAlive)
        let (longer, _) = parse(bytes("HTTP/1.0 200 OK\r\nConnection: keep-alives\r\nContent-Length: 0\r\n\r\n"))
        #expect(!longer.keepAlive)
        let (both, _) = parse(bytes("HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n"))
        #expect(!both.keepAlive)
    }

    @Test func bodyWithoutLengthRunsUntilTheClose() {
        let message = bytes("HTTP/1.1 200 OK\r\n\r\nall of it")
        let (parser, progress) = parse(message, endOfStream: true)
        #expect(progress == .complete(consumed: 0))
        #expect(parser.body == bytes("all of it"))
        #expect(!parser.keepAlive)
        expectSameAtEveryBoundary(message, endOfStream: true)
    }

    @Test func noBodyFor204And304AndHead() {
        for text in ["HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n"] {
            let (parser, progress) = parse(bytes(text))
            #expect(progress == .complete(consumed: text.utf8.count), "\(text)")
            #expect(parser.keepAlive)
        }
        let head = bytes("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n")
        let (parser, progress) = parse(head, head: true)
        #expect(progress == .complete(consumed: head.count))
        #expect(parser.body.isEmpty)
    }

    @Test func skipsInterimResponses() {
        let message = bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let (parser, progress) = parse(message)
        #expect(progress == .complete(consumed: message.count))
        #expect(parser.status == 200 && parser.interimResponses == 1)
        expectSameAtEveryBoundary(message)
    }

    @Test func stopsAtTheEndOfTheMessage() {
        let message = bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200")
        let (_, progress) = parse(message)
        #expect(progress == .complete(consumed: message.count - 12))
    }

    @Test func keepsRetryAfter() {
        let (parser, _) = parse(bytes("HTTP/1.1 503 Service Unavailable\r\nretry-after:  7 \r\nContent-Length: 0\r\n\r\n"))
        #expect(parser.status == 503)
        #expect(parser.retryAfter == bytes("7"))
    }

    @Test(arguments: [
        "HTTP/2 200 OK\r\n\r\n",
        "HTTP/1.1 20 OK\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "HTTP/1.1 abc OK\r\n\r\n",
        "hello world\r\n\r\n",
        "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
    ])
    func rejectsMalformedResponses(_ text: String) {
        let (_, progress) = parse(bytes(text))
        #expect(progress == .failed(.malformed))
    }

    @Test(arguments: ["HTTP/1.1 600 Too Far\r\n\r\n", "HTTP/1.1 999 Weird\r\nContent-Length: 0\r\n\r\n", "HTTP/1.0 000 Zero\r\n\r\n"])
    func aStatusOutside100To599IsMalformed(_ text: String) {
        #expect(parse(bytes(text)).1 == .failed(.malformed))
        #expect(parse(bytes("HTTP/1.1 599 Edge\r\nContent-Length: 0\r\n\r\n")).0.status == 599)
    }

    @Test(arguments: [
        "SSH-2.0-OpenSSH_9.6", "\u{15}\u{3}\u{3}\u{0}\u{2}\u{2}\u{28}", "\u{0}\u{0}\u{12}\u{4}", "http/1.1 200", "HTTP/2 200", "\r\nX",
    ])
    func bytesThatCannotBeginAResponseAreMalformedAtOnce(_ text: String) {
        // No line end needed: the first byte that cannot begin `HTTP/1.` fails the parse, so a
        // server that sends such bytes and closes is a malformed answer, not a closed connection.
        #expect(parse(bytes(text)).1 == .failed(.malformed), "\(text.debugDescription)")
        #expect(parse(bytes(text), cuts: Array(0..<text.utf8.count)).1 == .failed(.malformed), "\(text.debugDescription)")
        #expect(parse(bytes(text), endOfStream: true).1 == .failed(.malformed), "\(text.debugDescription)")
    }

    @Test func aResponseCutShortStillReadsAsClosed() {
        for text in ["H", "HTTP/1", "HTTP/1.1 2", "\r", "\r\nHTT"] {
            #expect(parse(bytes(text)).1 == .needMore, "\(text.debugDescription)")
            #expect(parse(bytes(text), endOfStream: true).1 == .failed(.closed(partial: true)), "\(text.debugDescription)")
        }
    }

    @Test func limitsTheBody() {
        let declared = bytes("HTTP/1.1 200 OK\r\nContent-Length: 10485760\r\n\r\n")
        #expect(parse(declared, maxBody: 1 << 20).1 == .failed(.bodyTooLarge))
        let chunked = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n")
        #expect(parse(chunked, maxBody: 12).1 == .failed(.bodyTooLarge))
        let unframed = bytes("HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "x", count: 20))
        #expect(parse(unframed, maxBody: 12).1 == .failed(.bodyTooLarge))
    }

    @Test func limitsTheBodyToExactlyMaxBody() {
        #expect(parse(bytes("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n123456789012"), maxBody: 12).0.isComplete)
        #expect(parse(bytes("HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n"), maxBody: 12).1 == .failed(.bodyTooLarge))
        let chunked = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n4\r\n1234\r\n0\r\n\r\n")
        #expect(parse(chunked, maxBody: 12).0.body == bytes("123456781234"))
        let unframed = bytes("HTTP/1.1 200 OK\r\n\r\n123456789012")
        #expect(parse(unframed, maxBody: 12, endOfStream: true).1 == .complete(consumed: 0))
        #expect(parse(unframed + [0x33], maxBody: 12).1 == .failed(.bodyTooLarge))
    }

    @Test func aLengthTooLargeToCountIsTooLarge() {
        let declared = bytes("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999999\r\n\r\n")
        #expect(parse(declared).1 == .failed(.bodyTooLarge))
        let chunk = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0000FFFFFFFFFFFFFFFFFFFF\r\n")
        #expect(parse(chunk).1 == .failed(.bodyTooLarge))
        let leadingZeros = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n000000000000000000002\r\nok\r\n0\r\n\r\n")
        #expect(parse(leadingZeros).0.body == bytes("ok"))
    }

    @Test func theFinalTransferCodingDecidesTheFraming() {
        // The final coding of the last Transfer-Encoding line is chunked: the body is chunked.
        for head in [
            "Transfer-Encoding: gzip, chunked", "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked", "Transfer-Encoding: chunked,",
        ] {
            let message = bytes("HTTP/1.1 200 OK\r\n\(head)\r\n\r\n2\r\nok\r\n0\r\n\r\n")
            let (parser, progress) = parse(message)
            #expect(progress == .complete(consumed: message.count), "\(head)")
            #expect(parser.body == bytes("ok") && parser.keepAlive, "\(head)")
        }
        // Otherwise the body runs until the close, over any Content-Length (RFC 9112 §6.3).
        for head in [
            "Transfer-Encoding: chunked, gzip", "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip",
            "Transfer-Encoding: chunkedchunked",
            "Transfer-Encoding: gzip\r\nContent-Length: 2", "Content-Length: 2\r\nTransfer-Encoding: identity",
        ] {
            let message = bytes("HTTP/1.1 200 OK\r\n\(head)\r\n\r\n2\r\nok\r\n0\r\n\r\n")
            let (parser, progress) = parse(message, endOfStream: true)
            #expect(progress == .complete(consumed: 0), "\(head)")
            #expect(parser.body == bytes("2\r\nok\r\n0\r\n\r\n") && !parser.keepAlive, "\(head)")
            expectSameAtEveryBoundary(message, endOfStream: true)
        }
        // A request has no close to run to: its final coding must be chunked.
        let request = bytes("POST /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
        #expect(parse(request, role: .request).0.body == bytes("ok"))
    }

    @Test func transferEncodingWithContentLengthOrInHTTP10EndsReuse() {
        let both = bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
        let (parser, progress) = parse(both)
        #expect(progress == .complete(consumed: both.count))
        #expect(parser.body == bytes("ok") && !parser.keepAlive)
        let old = bytes("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
        #expect(parse(old).0.body == bytes("ok") && !parse(old).0.keepAlive)
        let oldKept = bytes("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok")
        #expect(parse(oldKept).0.keepAlive)
    }

    @Test func proxyConnectionCloseEndsReuse() {
        #expect(!parse(bytes("HTTP/1.1 200 OK\r\nProxy-Connection: close\r\nContent-Length: 0\r\n\r\n")).0.keepAlive)
        #expect(!parse(bytes("HTTP/1.1 200 OK\r\nproxy-connection: Keep-Alive, Close\r\nContent-Length: 0\r\n\r\n")).0.keepAlive)
        // Only its close is taken: it does not keep an HTTP/1.0 connection alive.
        #expect(!parse(bytes("HTTP/1.0 200 OK\r\nProxy-Connection: keep-alive\r\nContent-Length: 0\r\n\r\n")).0.keepAlive)
        #expect(parse(bytes("HTTP/1.1 200 OK\r\nProxy-Connection: keep-alive\r\nContent-Length: 0\r\n\r\n")).0.keepAlive)
    }

    @Test func skipsEmptyLinesBeforeTheStatusLine() {
        let message = bytes("\r\n\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let (parser, progress) = parse(message)
        #expect(progress == .complete(consumed: message.count))
        #expect(parser.status == 200 && parser.body == bytes("ok"))
        expectSameAtEveryBoundary(message)
        let interim = bytes("HTTP/1.1 100 Continue\r\n\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")
        #expect(parse(interim).0.status == 204)
        // They count against the head's limit.
        #expect(parse(bytes(String(repeating: "\r\n", count: 600) + "HTTP/1.1 200 OK\r\n\r\n")).1 == .failed(.headTooLarge))
    }

    @Test func saysWhenBytesAreOnlyEmptyLines() {
        #expect(bytes("\r\n\n\r").withUnsafeBytes { HTTPMessageParser.isOnlyEmptyLines($0) })
        #expect([UInt8]().withUnsafeBytes { HTTPMessageParser.isOnlyEmptyLines($0) })
        #expect(!bytes("\r\nH").withUnsafeBytes { HTTPMessageParser.isOnlyEmptyLines($0) })
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\rContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 O\u{0}K\r\n\r\n",
        "HTTP/1.1 200 OK\r\nFoo: 1\rBar: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nFoo: a\u{7F}b\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\n Foo: b\r\n\r\n",
        "HTTP/1.1 200 OK\r\nA: b\r\n  folded\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nbad trailer\r\n\r\n",
    ])
    func rejectsControlCharactersAndLinesStartingWithWhitespace(_ text: String) {
        #expect(parse(bytes(text)).1 == .failed(.malformed))
    }

    @Test func aFieldLineFailsAtItsFirstBadByte() {
        for text in [
            "HTTP/1.1 200 OK\r\n Host", "HTTP/1.1 200 OK\r\nFo@", "HTTP/1.1 200 OK\r\nFoo: B\u{2}", "HTTP/1.1 200 OK\r\nFoo: 1\rB",
            "HTTP/1.1 200 OK\r\n:x",
        ] {
            #expect(parse(bytes(text)).1 == .failed(.malformed), "\(text)")
            #expect(parse(bytes(text), cuts: [18, 19, 20]).1 == .failed(.malformed), "\(text)")
        }
        #expect(parse(bytes("HTTP/1.1 200 OK\r\nFoo: bar\r")).1 == .needMore)
    }

    @Test(arguments: [
        ("5;a=b", true), ("5;a=\"b; c\";d", true), ("5 ; a = b ;c", true), ("5;a=\"q\\\"uote\"", true), ("5", true),
        ("5 ", false), ("5 x", false), ("5;", false), ("5;a=", false), ("5;a=\"open", false), ("5;a b", false), (";a", false),
    ])
    func checksChunkExtensions(_ line: String, valid: Bool) {
        let message = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(line)\r\nhello\r\n0\r\n\r\n")
        let progress = parse(message).1
        #expect(progress == (valid ? .complete(consumed: message.count) : .failed(.malformed)), "\(line)")
    }

    @Test func manyChunksDoNotCountAgainstTheHead() {
        let message = bytes(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "1\r\nx\r\n", count: 1000) + "0\r\n\r\n")
        let (parser, progress) = parse(message)
        #expect(progress == .complete(consumed: message.count))
        #expect(parser.bodyBytes == 1000)
    }

    @Test func limitsTheHead() {
        let message = bytes("HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 2000) + "\r\n\r\n")
        #expect(parse(message).1 == .failed(.headTooLarge))
        #expect(parse(message, cuts: [10, 500, 1500]).1 == .failed(.headTooLarge))
    }

    @Test func endOfStreamSaysWhetherAnythingArrived() {
        #expect(parse([], endOfStream: true).1 == .failed(.closed(partial: false)))
        #expect(parse(bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab"), endOfStream: true).1 == .failed(.closed(partial: true)))
    }

    @Test func readsRequestsWithBodies() {
        let message = bytes("POST /question/submit HTTP/1.1\r\nHost: x\r\nContent-Length: 23\r\n\r\n{\"id\":1,\"answer\":\"red\"}")
        let (parser, progress) = parse(message, role: .request)
        #expect(progress == .complete(consumed: message.count))
        #expect(parser.method == bytes("POST"))
        #expect(parser.target == bytes("/question/submit"))
        #expect(parser.body == bytes("{\"id\":1,\"answer\":\"red\"}"))
        expectSameAtEveryBoundary(message, role: .request)
        let chunked = bytes("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        expectSameAtEveryBoundary(chunked, role: .request)
        #expect(parse(chunked, role: .request).0.body == bytes("abc"))
    }

    @Test func requestWithoutLengthHasNoBody() {
        let message = bytes("GET /questions HTTP/1.1\r\nHost: x\r\n\r\nGET")
        let (parser, progress) = parse(message, role: .request)
        #expect(progress == .complete(consumed: message.count - 3))
        #expect(parser.body.isEmpty && parser.keepAlive)
    }

    @Test func rejectsMalformedRequests() {
        for text in [
            "GET\r\n\r\n", "GET /x HTTP/3.0\r\n\r\n", "G(T /x HTTP/1.1\r\n\r\n", "POST /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
        ] {
            #expect(parse(bytes(text), role: .request).1 == .failed(.malformed), "\(text)")
        }
    }
}

/// The byte classes every field line is read by, against their definitions byte by byte.
@Suite struct HTTPByteClassTests {
    @Test func tokenBytesAreRFC9110s() {
        let specials = Set("!#$%&'*+-.^_`|~".utf8)
        for value in 0...255 {
            let byte = UInt8(value)
            let isAlphanumeric = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            #expect(HTTPSyntax.isTokenByte(byte) == (isAlphanumeric || specials.contains(byte)), "byte \(value)")
        }
    }

    @Test func aWordHasNoControlByteExactlyWhenEachOfItsBytesIsNone() {
        var generator = SplitMix64(seed: 7)
        let awkward: [UInt8] = [0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x7E, 0x7F, 0x80, 0x81, 0xFF]
        for round in 0..<20_000 {
            var bytes = (0..<8).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            // Printable text most rounds, with a byte of the awkward ones somewhere in some.
            if round % 3 != 0 { bytes = bytes.map { 0x20 + $0 % 0x5F } }
            if round % 2 == 0 { bytes[Int(generator.next() % 8)] = awkward[Int(generator.next() % UInt64(awkward.count))] }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            let expected = bytes.allSatisfy { $0 >= 0x20 && $0 != 0x7F }
            #expect(HTTPMessageParser.hasNoControlByte(word) == expected, "\(bytes)")
        }
    }

    @Test(arguments: [
        ("Content-Type: text/html", "Content-Type", "text/html"), ("X:  spaced value \t", "X", "spaced value"),
        ("Long: 0123456789abcdef0123456789\tend", "Long", "0123456789abcdef0123456789\tend"), ("Empty:", "Empty", ""),
        ("Obs: caf\u{E9} au lait, 8 bytes+", "Obs", "caf\u{E9} au lait, 8 bytes+"),
    ])
    func aFieldLineSplitsAtItsColon(_ line: String, _ name: String, _ value: String) throws {
        let bytes = Array(line.utf8)
        let field = try #require(
            bytes.withUnsafeBytes { raw in
                HTTPMessageParser.field(raw).map { (String(decoding: $0.name, as: UTF8.self), String(decoding: $0.value, as: UTF8.self)) }
            })
        #expect(field.0 == name)
        #expect(field.1 == value)
    }

    /// `field` checks a value eight bytes at a time and its last bytes as the eight that end it:
    /// against a check of each byte on its own, over lines of every length up to 40 with a byte
    /// that may not be there (or a tab, which may) anywhere, the name's last byte included.
    @Test func aFieldIsRefusedExactlyWhenOneOfItsBytesMayNotBeThere() {
        var generator = SplitMix64(seed: 11)
        let awkward: [UInt8] = [0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x7F, 0x20, 0x28, 0x80, 0xFF]
        func isValue(_ byte: UInt8) -> Bool { byte == 0x09 || (byte >= 0x20 && byte != 0x7F) }
        for round in 0..<20_000 {
            let nameLength = 1 + Int(generator.next() % 6)
            let valueLength = Int(generator.next() % 41)
            var name = (0..<nameLength).map { _ in UInt8(0x61 + generator.next() % 26) }
            var value = (0..<valueLength).map { _ in UInt8(0x21 + generator.next() % 0x5E) }
            if round % 2 == 0, !value.isEmpty {
                value[Int(generator.next() % UInt64(value.count))] = awkward[Int(generator.next() % UInt64(awkward.count))]
            }
            if round % 7 == 0 { name[nameLength - 1] = awkward[Int(generator.next() % UInt64(awkward.count))] }
            let line = name + [0x3A, 0x20] + value
            // The value's own whitespace at either end is trimmed, not checked.
            var trimmed = value[...]
            while let first = trimmed.first, first == 0x20 || first == 0x09 { trimmed = trimmed.dropFirst() }
            while let last = trimmed.last, last == 0x20 || last == 0x09 { trimmed = trimmed.dropLast() }
            let expected = name.allSatisfy(HTTPSyntax.isTokenByte) && trimmed.allSatisfy(isValue)
            let field = line.withUnsafeBytes { raw in HTTPMessageParser.field(raw).map { (Array($0.name), Array($0.value)) } }
            #expect((field != nil) == expected, "\(line)")
            if let field {
                #expect(field.0 == name && field.1 == Array(trimmed), "\(line)")
            }
        }
    }

    @Test(arguments: [
        ": no name", "No colon", "Bad name: x", "Na(me: x", "X: a\u{7F}b", "X: 01234567\u{01}89", "X: 0123456789abcdef\u{0}",
        "X: abcdefgh\rijklmnop",
    ])
    func aLineThatIsNotAFieldIsRefused(_ line: String) {
        let bytes = Array(line.utf8)
        #expect(bytes.withUnsafeBytes { HTTPMessageParser.field($0) } == nil)
    }
}

/// A field line that arrives whole is read in one pass (`wholeFieldLine`), one split anywhere
/// line by line (`takeLine`, `field`): the two must agree on every line, good or bad.
@Suite struct HTTPMessageParserWholeLineTests {
    /// Bytes a field line is made of, the ones that break one included: CR, LF, NUL, DEL,
    /// whitespace in and around names, a colon anywhere, obs-text.
    private static let alphabet: [UInt8] = Array("Ab-7:  \t".utf8) + [0x0D, 0x0A, 0x00, 0x7F, 0xC3, 0x3A, 0x41, 0x61]
    private static let valueBytes: [UInt8] = Array("text/plain; q=0.9, \t\"x\"".utf8) + [0xC3, 0xA9, 0x80, 0xFF]
    private static let nameBytes: [UInt8] = Array("aZz09-Content".utf8)
    /// Token bytes that are not letters, digits or `-`, and bytes no name may hold.
    private static let oddNameBytes: [UInt8] = Array("_!~.,;@[`{ \t\"".utf8) + [0x00, 0x7F, 0x80, 0xFF, 0x2C, 0x2E, 0x3A]

    /// `message` read in one piece by a parser that keeps the fields.
    private static func parseWhole(_ message: [UInt8]) -> (HTTPMessageParser, HTTPMessageParser.Progress) {
        var parser = HTTPMessageParser(role: .response)
        parser.collectHeaders = true
        let progress = message.withUnsafeBytes { parser.parse($0) }
        return (parser, progress)
    }

    /// `message` read a byte at a time, so that no line ever lies whole in one read; a complete
    /// message says how much of all of it it took.
    private static func parseByteByByte(_ message: [UInt8]) -> (HTTPMessageParser, HTTPMessageParser.Progress) {
        var parser = HTTPMessageParser(role: .response)
        parser.collectHeaders = true
        for index in message.indices {
            let progress = message[index...index].withUnsafeBytes { parser.parse($0) }
            if case .needMore = progress { continue }
            if case .complete = progress { return (parser, .complete(consumed: index + 1)) }
            return (parser, progress)
        }
        return (parser, .needMore)
    }

    @Test func aFieldLineReadInOnePassReadsAsOneReadLineByLine() {
        var random = SplitMix64(seed: 37)
        var accepted = 0
        var refused = 0
        for _ in 0..<3000 {
            var message = bytes("HTTP/1.1 200 OK\r\n")
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                // A name of letters, digits and dashes (read eight at a time), now and then with
                // another token byte or one no name may hold.
                for _ in 0..<Int.random(in: 0...19, using: &random) { message.append(Self.nameBytes.randomElement(using: &random)!) }
                if Int.random(in: 0..<4, using: &random) == 0 { message.append(Self.oddNameBytes.randomElement(using: &random)!) }
                for _ in 0..<Int.random(in: 0...3, using: &random) { message.append(Self.nameBytes.randomElement(using: &random)!) }
                message += bytes(": ")
                // A value of field-value bytes, now and then one that breaks it (or ends it early).
                for _ in 0..<Int.random(in: 0...30, using: &random) {
                    let odd = Int.random(in: 0..<40, using: &random) == 0
                    message.append((odd ? Self.alphabet : Self.valueBytes).randomElement(using: &random)!)
                }
                message += bytes(Bool.random(using: &random) ? "\r\n" : "\n")
            }
            message += bytes("Content-Length: 2\r\n\r\nok")
            let (whole, wholeProgress) = Self.parseWhole(message)
            let (single, singleProgress) = Self.parseByteByByte(message)
            #expect(wholeProgress == singleProgress, "\(message)")
            #expect(whole.headers == single.headers, "\(message)")
            if case .complete = wholeProgress { accepted += 1 } else { refused += 1 }
        }
        // Both kinds of line were tried, many times.
        #expect(accepted > 300 && refused > 300)
    }

    @Test func aStatusLineReadInOnePassReadsAsOneReadLineByLine() {
        var random = SplitMix64(seed: 11)
        // Good parts more often than bad ones, so that both kinds of line come up often.
        let versions = Array(repeating: "HTTP/1.1", count: 8) + ["HTTP/1.0", "HTTP/1.2", "HTTP/2.0", "http/1.1", "HTTP/1.1 ", "HTTP/1."]
        let codes = Array(repeating: "200", count: 6) + ["404", "599", "100", "099", "600", "20", "2000", "2x0", " 200"]
        let endings = Array(repeating: "\r\n", count: 6) + ["\n", "\r\r\n", "\r", ""]
        var accepted = 0
        var refused = 0
        for _ in 0..<3000 {
            var message = bytes(versions.randomElement(using: &random)! + " " + codes.randomElement(using: &random)!)
            if Bool.random(using: &random) {
                message += bytes(" ")
                for _ in 0..<Int.random(in: 0...20, using: &random) {
                    let odd = Int.random(in: 0..<30, using: &random) == 0
                    message.append((odd ? Self.alphabet : Self.valueBytes).randomElement(using: &random)!)
                }
            }
            message += bytes(endings.randomElement(using: &random)! + "Content-Length: 2\r\n\r\nok")
            let (whole, wholeProgress) = Self.parseWhole(message)
            let (single, singleProgress) = Self.parseByteByByte(message)
            #expect(wholeProgress == singleProgress, "\(message)")
            #expect(whole.status == single.status && whole.minorVersion == single.minorVersion, "\(message)")
            if case .complete = wholeProgress { accepted += 1 } else { refused += 1 }
        }
        #expect(accepted > 300 && refused > 300)
    }

    @Test func aWholeLineIsSplitIntoItsNameAndItsTrimmedValue() throws {
        let line = bytes("Content-Type: \t text/plain; q=1 \t\r\nnext")
        let whole = try #require(line.withUnsafeBytes { HTTPMessageParser.wholeFieldLine($0.baseAddress!, $0.count) })
        #expect(whole.nameEnd == 12 && whole.length == line.count - 4)
        #expect(Array(line[whole.valueStart..<whole.valueEnd]) == bytes("text/plain; q=1"))
        for unfinished in ["Content-Type: text/plain\r", "Content-Type: text", "Content-Type"] {
            #expect(bytes(unfinished).withUnsafeBytes { HTTPMessageParser.wholeFieldLine($0.baseAddress!, $0.count) } == nil)
        }
    }
}

/// The eight-bytes-at-a-time tests the one-pass read relies on: their lowest flag is the first
/// byte the byte-at-a-time rule refuses.
@Suite struct HTTPMessageParserWordTests {
    /// The position of the lowest flagged byte, 8 for none.
    private static func firstFlagged(_ mask: UInt64) -> Int { mask == 0 ? 8 : mask.trailingZeroBitCount >> 3 }

    private static func isAlphanumericOrDash(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D
    }

    private static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * $1.offset) }
    }

    @Test func theFirstFlaggedByteIsTheFirstTheByteRuleRefuses() {
        var random = SplitMix64(seed: 9)
        var words: [[UInt8]] = []
        // Every byte value at every position, among bytes each rule accepts, and then random words.
        for position in 0..<8 {
            for value in 0...255 {
                var bytes = Array("aB3-x9Zq".utf8)
                bytes[position] = UInt8(value)
                words.append(bytes)
            }
        }
        for _ in 0..<100_000 { words.append((0..<8).map { _ in UInt8.random(in: 0...255, using: &random) }) }
        for bytes in words {
            let word = Self.word(bytes)
            let name = bytes.firstIndex { !Self.isAlphanumericOrDash($0) } ?? 8
            #expect(Self.firstFlagged(HTTPMessageParser.notAlphanumericOrDash(word)) == name, "\(bytes)")
            let control = bytes.firstIndex { $0 < 0x20 || $0 == 0x7F } ?? 8
            #expect(Self.firstFlagged(HTTPMessageParser.controlBytes(word)) == control, "\(bytes)")
        }
    }
}

extension HTTPMessageParserWordTests {
    /// The names and values the parser compares against, each byte of each replaced by every
    /// byte a checked field's name or value may hold (no control byte but HTAB): a word compared
    /// at once matches exactly when the byte is the literal's own or its upper case.
    @Test(
        arguments: ["content-length", "connection", "keep-alive", "transfer-encoding", "proxy-connection", "set-cookie"] as [StaticString]
    )
    func aNameComparedEightBytesAtATimeMatchesOnlyItsOwnLettersInEitherCase(_ literal: StaticString) {
        let own = Array(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        for position in own.indices {
            for value in 0...255 where value >= 0x20 && value != 0x7F || value == 0x09 {
                var bytes = own
                bytes[position] = UInt8(value)
                let upper = (0x61...0x7A).contains(own[position]) ? own[position] - 0x20 : own[position]
                let expected = bytes[position] == own[position] || bytes[position] == upper
                #expect(bytes.withUnsafeBytes { HTTPMessageParser.equalsIgnoringCase($0, literal) } == expected, "\(bytes)")
            }
        }
    }
}
