import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// One response case of a public parser's test suite (see `ResponseSuite`): the bytes a server
/// sends, and how this client must read them.
struct ResponseCase: Sendable, CustomTestStringConvertible {
    /// The suite, file and case: `llhttp sample.md: Simple response`.
    let source: String
    let input: [UInt8]
    let expected: ResponseReading
    /// The request was HEAD: responses have headers only.
    var head = false
    var maxBody = 1 << 20
    /// Why this client reads the case otherwise than the suite does, with the RFC's section;
    /// nil when the two agree.
    var differs: String?

    var testDescription: String { source }

    /// A case whose input is `lines` joined by CRLF, as the suites write them.
    init(
        _ source: String, _ lines: [String], _ messages: [ResponseReading.Message], _ end: ResponseReading.End, head: Bool = false,
        differs: String? = nil
    ) {
        self.init(source, bytes: Array(lines.joined(separator: "\r\n").utf8), messages, end, head: head, differs: differs)
    }

    /// A case of no complete response.
    init(_ source: String, _ lines: [String], _ end: ResponseReading.End, differs: String? = nil) {
        self.init(source, lines, [], end, differs: differs)
    }

    init(
        _ source: String, bytes: [UInt8], _ messages: [ResponseReading.Message], _ end: ResponseReading.End, head: Bool = false,
        maxBody: Int = 1 << 20, differs: String? = nil
    ) {
        self.source = source
        input = bytes
        expected = ResponseReading(messages: messages, end: end)
        self.head = head
        self.maxBody = maxBody
        self.differs = differs
    }
}

/// What a client reads from a connection that carries `input` and then closes: the responses,
/// in order, and how the bytes ended.
struct ResponseReading: Equatable, CustomStringConvertible {
    struct Message: Equatable, CustomStringConvertible {
        var status: Int
        var body: [UInt8]
        /// Whether the connection may carry another response.
        var keepAlive: Bool
        /// 1xx responses skipped before it.
        var interim = 0

        /// A response after which the connection may carry another.
        static func keepAlive(_ status: Int, _ body: String = "", interim: Int = 0) -> Message {
            Message(status: status, body: Array(body.utf8), keepAlive: true, interim: interim)
        }

        /// A response after which the connection closes.
        static func close(_ status: Int, _ body: String = "", interim: Int = 0) -> Message {
            Message(status: status, body: Array(body.utf8), keepAlive: false, interim: interim)
        }

        var description: String {
            let text = body.count > 40 ? "\(body.count) bytes" : "\"\(String(decoding: body, as: UTF8.self))\""
            return "\(status) \(text)\(keepAlive ? "" : " close")\(interim > 0 ? " after \(interim) 1xx" : "")"
        }
    }

    enum End: Equatable {
        /// Every byte was read, each response ended by its own framing.
        case clean
        /// The last response ended when the server closed the connection.
        case atClose
        /// The close cut a response short.
        case cutShort
        /// Bytes after a response that closes the connection, which the client does not read.
        case unread(Int)
        /// The bytes are not a response the client accepts.
        case failed(HTTPMessageParser.Failure)
    }

    var messages: [Message]
    var end: End

    var description: String { "\(messages) then \(end)" }
}

extension ResponseCase {
    /// Feeds the input to a parser in `pieces`, reading response after response while the
    /// connection may carry another, then closes the stream.
    func read(in pieces: [Range<Int>]) -> ResponseReading {
        var parser = HTTPMessageParser(role: .response, maxBodyBytes: maxBody)
        parser.isHeadRequest = head
        var messages: [ResponseReading.Message] = []
        func message() -> ResponseReading.Message {
            .init(status: parser.status, body: parser.body, keepAlive: parser.keepAlive, interim: parser.interimResponses)
        }
        for piece in pieces {
            var start = piece.lowerBound
            while start < piece.upperBound {
                switch input[start..<piece.upperBound].withUnsafeBytes({ parser.parse($0) }) {
                case .needMore:
                    start = piece.upperBound
                case .failed(let failure):
                    return ResponseReading(messages: messages, end: .failed(failure))
                case .complete(let consumed):
                    messages.append(message())
                    start += consumed
                    guard parser.keepAlive else {
                        return ResponseReading(messages: messages, end: start == input.count ? .clean : .unread(input.count - start))
                    }
                    parser.reset()
                    parser.isHeadRequest = head
                }
            }
        }
        switch parser.finishAtEndOfStream() {
        case .complete:
            messages.append(message())
            return ResponseReading(messages: messages, end: .atClose)
        case .failed(.closed(let partial)):
            return ResponseReading(messages: messages, end: partial ? .cutShort : .clean)
        case .failed(let failure):
            return ResponseReading(messages: messages, end: .failed(failure))
        case .needMore:
            return ResponseReading(messages: messages, end: .cutShort)
        }
    }

    /// The input whole.
    func read() -> ResponseReading { read(in: [0..<input.count]) }

    /// Ways to split the input: in two at every byte, and into single bytes. A large input is
    /// cut in two at fewer places, and into pieces of a few sizes.
    var splits: [[Range<Int>]] {
        let count = input.count
        func pieces(of size: Int) -> [Range<Int>] { stride(from: 0, to: count, by: size).map { $0..<min($0 + size, count) } }
        func inTwo(_ cuts: [Int]) -> [[Range<Int>]] { Set(cuts).sorted().map { [0..<$0, $0..<count] } }
        switch count {
        case ...4096:
            return inTwo(Array(0...count)) + [pieces(of: 1)]
        case ...(1 << 20):
            return inTwo((0..<32).map { $0 * count / 32 } + Array(0..<32)) + [pieces(of: 1), pieces(of: 1021), pieces(of: 4093)]
        default:
            return inTwo([count / 2]) + [pieces(of: 65536)]
        }
    }
}

@Suite struct ResponseSuiteTests {
    @Test(arguments: ResponseSuite.all)
    func readsTheCaseAsExpectedHoweverSplit(_ response: ResponseCase) {
        let whole = response.read()
        #expect(whole == response.expected, "\(response.source)")
        for pieces in response.splits {
            let split = response.read(in: pieces)
            guard split == whole else {
                Issue.record("\(response.source): split at \(pieces.prefix(3).map(\.upperBound)) reads \(split), whole \(whole)")
                return
            }
        }
    }

    /// 85 llhttp and 53 http-parser cases; the 29 whose bytes and reading are the same in both
    /// suites (or twice in one) are listed once, with a comment naming their twin.
    @Test func suitesAreWhole() {
        #expect(ResponseSuite.llhttp.count == 75)
        #expect(ResponseSuite.httpParser.count == 34)
        #expect(Set(ResponseSuite.all.map(\.source)).count == ResponseSuite.all.count, "each case named once")
    }

    /// http-parser's `test_multiple3` sends responses one after another on a kept-alive
    /// connection; every pair of the cases that keep it alive reads as the two apart.
    @Test func keptAliveResponsesReadTheSameBackToBack() {
        let reusable = ResponseSuite.all.filter {
            $0.expected.end == .clean && $0.expected.messages.allSatisfy(\.keepAlive) && !$0.head && $0.input.count < 4096
        }
        #expect(reusable.count == 20)
        for first in reusable {
            for second in reusable {
                let pair = ResponseCase(first.source + " + " + second.source, bytes: first.input + second.input, [], .clean)
                let expected = ResponseReading(messages: first.expected.messages + second.expected.messages, end: .clean)
                #expect(pair.read() == expected, "\(pair.source)")
                let cut = first.input.count + 3
                #expect(pair.read(in: [0..<cut, cut..<pair.input.count]) == expected, "\(pair.source), split")
            }
        }
    }
}
