import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyWire

private let local = HTTPTarget(scheme: .http, host: "127.0.0.1", port: 8080)

/// The request head is the engine's to frame: a template refuses any method, path, host or
/// header that would end the request line or a header early, whoever builds it — so no
/// caller, a plan or a program, can smuggle a second request.
@Suite struct RequestTemplateTests {
    static let hostilePaths = [
        "/q\r\nX-Smuggled: 1", "/q\nGET /x", "/q\r", "/q HTTP/1.1", "/q\0", "/q\t", "/q\u{1B}[2J", "/q\u{7F}", "/é", "/q%zz", "/q%4",
        "/q#frag", "q", "", "*",
    ]

    @Test(arguments: hostilePaths)
    func aPathThatIsNotARequestTargetIsRefused(_ path: String) {
        #expect(throws: HTTPSyntaxError.self) { try HTTPRequest.Template(method: "GET", path: path, target: local) }
    }

    @Test(arguments: ["G T", "GET\r\n", "GET\0", "", "GE(T"])
    func aMethodThatIsNotATokenIsRefused(_ method: String) {
        #expect(throws: HTTPSyntaxError.self) { try HTTPRequest.Template(method: method, path: "/", target: local) }
    }

    @Test(arguments: ["127.0.0.1\r\nX: y", "a b", "h\0", "h/x", "", "h\u{1B}"])
    func aHostThatWouldBreakTheHostHeaderIsRefused(_ host: String) {
        let target = HTTPTarget(scheme: .http, host: host, port: 80)
        #expect(throws: HTTPSyntaxError.self) { try HTTPRequest.Template(method: "GET", path: "/", target: target) }
    }

    @Test(arguments: ["X A", "X:A", "X\r\nHost", "", "é", "X\0"])
    func aHeaderNameThatIsNotATokenIsRefused(_ name: String) {
        #expect(throws: HTTPSyntaxError.self) {
            try HTTPRequest.Template(method: "GET", path: "/", target: local, headers: [HTTPHeader(name: name, value: "x")])
        }
    }

    @Test(arguments: ["a\r\nHost: evil", "a\nb", "a\rb", "a\0", "a\u{1B}", "a\u{7F}", "\u{01}"])
    func aHeaderValueWithAControlByteIsRefused(_ value: String) {
        #expect(throws: HTTPSyntaxError.self) {
            try HTTPRequest.Template(method: "GET", path: "/", target: local, headers: [HTTPHeader(name: "X-A", value: value)])
        }
    }

    @Test(arguments: ["Host", "host", "Content-Length", "TRANSFER-ENCODING", "Connection"])
    func framingHeadersAreTheEnginesOwn(_ name: String) {
        #expect(throws: HTTPSyntaxError.self) {
            try HTTPRequest.Template(method: "GET", path: "/", target: local, headers: [HTTPHeader(name: name, value: "x")])
        }
    }

    @Test func whatRFC3986AndRFC9110AllowIsSentAsWritten() throws {
        let template = try HTTPRequest.Template(
            method: "PATCH", path: "/v1/%7Euser/q;v=1/!$&'()*+,=:@-._~?lang=en&q=a%20b/?", target: local,
            headers: [HTTPHeader(name: "X-Note!#$%&'*+.^_`|~", value: "a\tb — é")])
        let head = String(decoding: template.head, as: UTF8.self)
        #expect(
            head == "PATCH /v1/%7Euser/q;v=1/!$&'()*+,=:@-._~?lang=en&q=a%20b/? HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
                + "User-Agent: survey-bot/\(SurveyEngine.version)\r\nX-Note!#$%&'*+.^_`|~: a\tb — é\r\n")
    }

    @Test func theErrorNamesThePartAndTheByte() {
        #expect {
            try HTTPRequest.Template(method: "GET", path: "/v1\r\nX: y", target: local)
        } throws: { error in
            let error = error as? HTTPSyntaxError
            return error?.offset == 3 && error?.description.contains("carriage return") == true
                && error?.description.contains("path") == true
        }
    }

    /// A run whose requests cannot be framed is refused when the coordinator is made: not one
    /// request reaches the transport.
    @Test func aRunWhoseRequestsCannotBeFramedIsRefusedBeforeAnythingIsSent() {
        let transport = ScriptedTransport(survey())
        var configuration = RunConfiguration(load: .closed(respondents: 3), answers: AnswerBook(fallback: ["x"]))
        configuration.api.questions = SurveyAPI.Call(method: "GET", path: "/questions\r\nX-Smuggled: 1")
        #expect(throws: HTTPSyntaxError.self) {
            _ = try RunCoordinator(configuration: configuration, target: target, transport: transport)
        }
        #expect(transport.sent.isEmpty)
    }
}
