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

/// The field list HTTP/2 sends is prepared with the head: the same request, in the same order,
/// names in lower case, whether the template was built from headers or filled in by a respondent.
@Suite struct RequestFieldsTests {
    private static let target = HTTPTarget(scheme: .https, host: "survey.example", port: 8443)

    private static func decoded(_ request: HTTPRequest) throws -> [String] {
        var encoder = HPACKEncoder()
        var heads = HTTP2Connection.EncodedHeads()
        var block: [UInt8] = []
        HTTP2Connection.encode(request, scheme: Array("https".utf8), encoder: &encoder, heads: &heads, into: &block)
        var decoder = HPACKDecoder()
        return try decoder.decode(block).map { "\(String(decoding: $0.name, as: UTF8.self)): \(String(decoding: $0.value, as: UTF8.self))" }
    }

    @Test func aTemplatesFieldsAreItsHeadsLinesInLowerCase() throws {
        let headers = [
            HTTPHeader(name: "X-Panel", value: "A 1"), HTTPHeader(name: "Cookie", value: "fixed=1"),
            HTTPHeader(name: "Accept", value: "application/json"),
        ]
        let template = try HTTPRequest.Template(method: "POST", path: "/v1/submit?x=1", target: Self.target, headers: headers)
        var request = HTTPRequest(template, body: Array("{}".utf8))
        request.cookies = Array("jar=2".utf8)
        #expect(
            try Self.decoded(request) == [
                ":method: POST", ":scheme: https", ":authority: survey.example:8443", ":path: /v1/submit?x=1",
                "user-agent: survey-bot/\(ToolVersion.text)", "x-panel: A 1", "accept: application/json", "cookie: fixed=1; jar=2",
                "content-length: 2",
            ])
    }

    @Test func aFilledInTemplateSharesItsRecipesNamesAndReadsItsOwnValues() throws {
        let headers = [HTTPHeader(name: "User-Agent", value: "app/2"), HTTPHeader(name: "X-Token", value: "t-0042")]
        let (head, cookie) = HTTPRequest.Template.head(
            method: "GET", path: Array("/q/42".utf8), host: Self.target.hostHeader, headers: headers)
        let template = HTTPRequest.Template(
            method: "GET", path: "/q/42", head: head, cookie: cookie,
            cookieOrigin: CookieOrigin(host: Self.target.host, path: "/q/42", secure: true),
            fieldNames: HTTPRequest.Template.fieldNames(headers))
        #expect(
            try Self.decoded(HTTPRequest(template)) == [
                ":method: GET", ":scheme: https", ":authority: survey.example:8443", ":path: /q/42", "user-agent: app/2",
                "x-token: t-0042",
            ])
    }

    /// A connection copies a template's block while its encoder's table is as it was when the
    /// block was encoded, and encodes it again once another template's field went into the
    /// table (the indices of the fields before it moved): byte for byte what an encoder that
    /// keeps nothing sends.
    @Test func aTemplatesBlockIsCopiedOnlyWhileTheTableStaysAsItWas() throws {
        let submit = try HTTPRequest.Template(
            method: "POST", path: "/question/submit", target: Self.target, headers: [HTTPHeader(name: "X-App", value: "1")])
        let questions = try HTTPRequest.Template(method: "GET", path: "/questions", target: Self.target)
        let other = try HTTPRequest.Template(
            method: "GET", path: "/other", target: Self.target, headers: [HTTPHeader(name: "X-Other", value: "new")])
        let order = [submit, submit, questions, submit, submit, other, submit, submit, questions]
        var cached = HPACKEncoder()
        var heads = HTTP2Connection.EncodedHeads()
        var plain = HPACKEncoder()
        var decoder = HPACKDecoder()
        let scheme = Array("https".utf8)
        for (position, template) in order.enumerated() {
            var request = HTTPRequest(template, body: position.isMultiple(of: 2) ? Array("{}".utf8) : nil)
            if position == 3 { request.cookies = Array("jar=1".utf8) }
            var block: [UInt8] = []
            cached.beginBlock(into: &block)
            HTTP2Connection.encode(request, scheme: scheme, encoder: &cached, heads: &heads, into: &block)
            var nothingKept = HTTP2Connection.EncodedHeads()
            var expected: [UInt8] = []
            plain.beginBlock(into: &expected)
            HTTP2Connection.encode(request, scheme: scheme, encoder: &plain, heads: &nothingKept, into: &expected)
            #expect(block == expected, "request \(position + 1)")
            let path = try decoder.decode(block).first { $0.name == Array(":path".utf8) }
            #expect(path?.value == Array(template.path.utf8), "request \(position + 1)")
        }
        #expect(heads.block(for: submit, changes: cached.table.changes) != nil)
        #expect(heads.block(for: questions, changes: cached.table.changes) != nil)
    }
}

/// The end of an HTTP/1.1 request head with a body, written on the stack in one piece.
@Suite struct ContentLengthEndTests {
    @Test(arguments: [(0, "0"), (7, "7"), (24, "24"), (1_234_567, "1234567"), (Int.max, "9223372036854775807"), (-5, "0")])
    func theLineCarriesTheCountAndTheHeadsEnd(_ count: Int, _ digits: String) {
        let line = ClientConnection.withContentLengthEnd(count) { String(decoding: $0, as: UTF8.self) }
        #expect(line == "Content-Length: \(digits)\r\n\r\n")
    }
}
