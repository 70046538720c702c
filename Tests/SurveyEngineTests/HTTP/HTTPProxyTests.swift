import Testing

@testable import SurveyWire

/// A proxy URL read as curl reads one: scheme optional, port 1080 by default, credentials
/// percent-decoded into a `Basic` field that no description shows.
@Suite struct HTTPProxyTests {
    @Test func aURLWithoutSchemeOrPortIsHTTPOnPort1080() throws {
        let proxy = try HTTPProxy.parse("proxy.example").get()
        #expect(proxy.host == "proxy.example")
        #expect(proxy.port == 1080)
        #expect(proxy.authorization == nil)
        #expect(proxy.description == "http://proxy.example:1080")
    }

    @Test func aPortAndATrailingSlashAreRead() throws {
        let proxy = try HTTPProxy.parse("http://127.0.0.1:3128/").get()
        #expect(proxy.authority == "127.0.0.1:3128")
        let v6 = try HTTPProxy.parse("http://[::1]:8888").get()
        #expect(v6.host == "::1")
        #expect(v6.authority == "[::1]:8888")
        #expect(try HTTPProxy.parse("[::1]").get().port == 1080)
    }

    @Test func credentialsBecomeABasicFieldAndAreNeverShown() throws {
        // RFC 7617's example: Aladdin / open sesame.
        let proxy = try HTTPProxy.parse("http://Aladdin:open%20sesame@127.0.0.1:3128").get()
        #expect(proxy.authorization == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(proxy.description == "http://***@127.0.0.1:3128")
        #expect(!proxy.description.contains("Aladdin"))
        #expect(try HTTPProxy.parse("http://user@h:1").get().authorization == "Basic dXNlcjo=")
    }

    @Test(arguments: [
        "https://proxy:3128", "socks5://proxy:1080", "http://proxy:3128/path", "http://proxy:99999", "http://", "http://u:p%zz@h",
    ])
    func whatIsNotAnHTTPProxyURLIsRefused(_ text: String) {
        guard case .failure(let error) = HTTPProxy.parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(!error.description.contains("p%zz"))
    }

    @Test func base64PadsAsRFC4648Says() {
        #expect(Base64.encode(Array("f".utf8)) == "Zg==")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(Base64.encode(Array("foo".utf8)) == "Zm9v")
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64.encode([]) == "")
    }
}
