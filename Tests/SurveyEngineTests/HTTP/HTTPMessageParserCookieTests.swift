import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// Feeds `text` to a parser whose flags `configure` sets, split at `cut`.
private func parsed(_ text: String, role: HTTPMessageParser.Role, cut: Int? = nil, configure: (inout HTTPMessageParser) -> Void)
    -> HTTPMessageParser
{
    var parser = HTTPMessageParser(role: role)
    configure(&parser)
    let bytes = Array(text.utf8)
    let cuts = cut.map { [0..<$0, $0..<bytes.count] } ?? [0..<bytes.count]
    for range in cuts { _ = bytes[range].withUnsafeBytes { parser.parse($0) } }
    return parser
}

@Suite struct HTTPMessageParserCookieTests {
    private static let response =
        "HTTP/1.1 200 OK\r\nSet-Cookie: a=1; Path=/\r\nContent-Length: 0\r\nset-cookie: b=2\r\nSET-COOKIE: c=3; Secure\r\n\r\n"

    @Test func setCookieFieldsAreKeptOnlyWhenAskedFor() {
        let asked = parsed(Self.response, role: .response) { $0.collectCookies = true }
        #expect(asked.isComplete)
        #expect(asked.setCookies.map { String(decoding: $0, as: UTF8.self) } == ["a=1; Path=/", "b=2", "c=3; Secure"])
        let notAsked = parsed(Self.response, role: .response) { _ in }
        #expect(notAsked.isComplete && notAsked.setCookies.isEmpty)
    }

    @Test func setCookieFieldsReadTheSameSplitAnywhere() {
        let bytes = Self.response.utf8.count
        for cut in 0...bytes {
            let parser = parsed(Self.response, role: .response, cut: cut) { $0.collectCookies = true }
            #expect(parser.setCookies.count == 3, "split at \(cut)")
        }
    }

    @Test func aResponseKeepsAtMostSixtyFourSetCookies() {
        let fields = (0..<70).map { "Set-Cookie: c\($0)=v\r\n" }.joined()
        let parser = parsed("HTTP/1.1 204 No Content\r\n\(fields)\r\n", role: .response) { $0.collectCookies = true }
        #expect(parser.isComplete)
        #expect(parser.setCookies.count == HTTPMessageParser.maxSetCookies)
    }

    @Test func theNextResponseStartsWithoutTheLastOnesCookies() {
        var parser = parsed(Self.response, role: .response) { $0.collectCookies = true }
        #expect(parser.takeSetCookies().count == 3)
        #expect(parser.takeSetCookies().isEmpty)
        parser.reset()
        #expect(parser.setCookies.isEmpty)
    }

    @Test func aServerKeepsCredentialsOnlyWhenAskedFor() {
        let request = "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\nCookie: a=1\r\ncookie: b=2\r\n\r\n"
        let asked = parsed(request, role: .request) { $0.collectCredentials = true }
        #expect(asked.authorization.map { String(decoding: $0, as: UTF8.self) } == "Bearer t1")
        #expect(asked.cookie.map { String(decoding: $0, as: UTF8.self) } == "a=1; b=2")
        let notAsked = parsed(request, role: .request) { _ in }
        #expect(notAsked.authorization == nil && notAsked.cookie == nil)
    }
}
