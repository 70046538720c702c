import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// One case of the IETF http-state working group's parser tests (github.com/abarth/http-state,
/// tests/data/parser.json): the `Set-Cookie` values a response to
/// `http://home.example.org:8888/cookie-parser?<test>` carried, and the `Cookie` header then sent
/// to `/cookie-parser-result?<test>` (or to `sentTo`).
struct HTTPStateCase: Sendable, CustomTestStringConvertible {
    var name: String
    var received: [String]
    var sentTo: String?
    var sent: String

    var testDescription: String { name }
}

private let home = "home.example.org"

/// Summer 2010, when the suite was written: its Expires dates in 2017 and 2019 lie ahead.
private let unixTime: Int64 = 1_280_000_000

/// Engine clock readings: the jar is filled at `filled` and read a second later.
private let filled: UInt64 = 5_000_000_000
private let read: UInt64 = 6_000_000_000

private func origin(_ url: String) -> CookieOrigin {
    // `http://host:port/path?query` or `/path?query` on home.example.org.
    if url.hasPrefix("http://") {
        let rest = url.dropFirst("http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let host = rest[..<slash].split(separator: ":").first.map(String.init) ?? ""
        return CookieOrigin(host: host, path: String(rest[slash...]), secure: false)
    }
    return CookieOrigin(host: home, path: url, secure: false)
}

private func sent(_ test: HTTPStateCase) -> String {
    var jar = CookieJar()
    let from = CookieOrigin(host: home, path: "/cookie-parser?\(test.name)", secure: false)
    jar.store(test.received.map { Array($0.utf8) }, from: from, now: filled, unixTime: unixTime)
    let to = origin(test.sentTo ?? "/cookie-parser-result?\(test.name)")
    return jar.header(for: to, now: read).map { String(decoding: $0, as: UTF8.self) } ?? ""
}

@Suite struct CookieJarTests {
    static let parserCases: [HTTPStateCase] = [
        .init(name: "0001", received: ["foo=bar"], sent: "foo=bar"),
        .init(name: "0002", received: ["foo=bar; Expires=Fri, 07 Aug 2019 08:04:19 GMT"], sent: "foo=bar"),
        .init(
            name: "0003", received: ["foo=bar; Expires=Fri, 07 Aug 2007 08:04:19 GMT", "foo2=bar2; Expires=Fri, 07 Aug 2017 08:04:19 GMT"],
            sent: "foo2=bar2"),
        .init(name: "0004", received: ["foo"], sent: ""),
        .init(name: "0005", received: ["foo=bar; max-age=10000;"], sent: "foo=bar"),
        .init(name: "0006", received: ["foo=bar; max-age=0;"], sent: ""),
        .init(name: "0009", received: ["foo=bar; customvalue=1000;"], sent: "foo=bar"),
        .init(name: "0010", received: ["foo=bar; secure;"], sent: ""),
        .init(name: "0013", received: ["foo=bar", "foo=qux"], sent: "foo=qux"),
        .init(name: "0016", received: ["z=y", "a=b"], sent: "z=y; a=b"),
        .init(name: "0017", received: ["z=y, a=b"], sent: "z=y, a=b"),
        .init(name: "0018", received: ["z=y; foo=bar, a=b"], sent: "z=y"),
        .init(name: "0020", received: ["a=b", "=", "c=d"], sent: "a=b; c=d"),
        .init(name: "0022", received: ["a=b", "x=", "c=d"], sent: "a=b; x=; c=d"),
        .init(name: "0025", received: ["foo", "; bar"], sent: ""),
        .init(name: "ATTRIBUTE0002", received: ["foo=bar; seCURe"], sent: ""),
        .init(name: "ATTRIBUTE0003", received: ["foo=bar; \"Secure\""], sent: "foo=bar"),
        .init(name: "ATTRIBUTE0005", received: ["foo=bar; Secure=aaaa"], sent: ""),
        .init(name: "ATTRIBUTE0006", received: ["foo=bar; Secure qux"], sent: "foo=bar"),
        .init(name: "ATTRIBUTE0011", received: ["foo=bar; Secure    ; qux"], sent: ""),
        .init(name: "ATTRIBUTE0015", received: ["foo=bar; Path="], sent: "foo=bar"),
        .init(name: "ATTRIBUTE0017", received: ["foo=bar; Path=/qux"], sent: ""),
        .init(name: "ATTRIBUTE0018", received: ["foo=bar; Path    =/qux"], sent: ""),
        .init(name: "ATTRIBUTE0019", received: ["foo=bar; Path=    /qux"], sent: ""),
        .init(name: "ATTRIBUTE0021", received: ["foo=bar; Path=/qux; Path=/"], sent: "foo=bar"),
        .init(name: "ATTRIBUTE0022", received: ["foo=bar; Path=/; Path=/qux"], sent: ""),
        .init(name: "ATTRIBUTE0026", received: ["foo=bar; qux=\"aaa;bbb\"; Secure"], sent: ""),
        .init(name: "CHROMIUM0004", received: ["aBc=\"zz;pp\" ; ;"], sent: "aBc=\"zz"),
        .init(name: "CHROMIUM0013", received: ["ABC=;  path = /"], sent: "ABC="),
        .init(name: "CHROMIUM0014", received: ["  A  = BC  ;foo;;;   bar"], sent: "A=BC"),
        .init(name: "CHROMIUM0015", received: ["  A=== BC  ;foo;;;   bar"], sent: "A=== BC"),
        .init(
            name: "CHROMIUM0017", received: ["foo=zohNumRKgI0oxyhSsV3Z7D  ; expires=Sun, 18-Apr-2027 21:06:29 GMT ; path=/  ;  "],
            sent: "foo=zohNumRKgI0oxyhSsV3Z7D"),
        .init(name: "CHROMIUM0019", received: [String(repeating: "a", count: 4097) + "=b"], sent: ""),
        .init(name: "COMMA0005", received: ["foo=bar; Max-Age=50,399"], sent: "foo=bar"),
        .init(name: "COMMA0007", received: ["foo=bar; Expires=Fri 07 Aug 2019 08:04:19 GMT, baz=qux"], sent: "foo=bar"),
        .init(
            name: "DOMAIN0001", received: ["foo=bar; domain=home.example.org"], sentTo: "http://home.example.org:8888/r", sent: "foo=bar"),
        .init(name: "DOMAIN0002", received: ["foo=bar; domain=home.example.org"], sentTo: "http://sibling.example.org:8888/r", sent: ""),
        .init(
            name: "DOMAIN0004", received: ["foo=bar; domain=home.example.org"], sentTo: "http://subdomain.home.example.org:8888/r",
            sent: "foo=bar"),
        .init(name: "DOMAIN0007", received: ["foo=bar; domain=sibling.example.org"], sentTo: "http://sibling.example.org:8888/r", sent: ""),
        .init(name: "DOMAIN0009", received: ["foo=bar; domain=example.org"], sentTo: "http://home.example.org:8888/r", sent: "foo=bar"),
        .init(name: "DOMAIN0010", received: ["foo=bar; domain=..home.example.org"], sentTo: "http://home.example.org:8888/r", sent: ""),
        .init(
            name: "DOMAIN0012", received: ["foo=bar; domain=  .home.example.org"], sentTo: "http://home.example.org:8888/r", sent: "foo=bar"
        ),
        .init(name: "DOMAIN0014", received: ["foo=bar; domain=home.example.org."], sentTo: "http://home.example.org:8888/r", sent: ""),
        .init(name: "DOMAIN0017", received: ["foo=bar; domain=.org"], sentTo: "http://home.example.org:8888/r", sent: ""),
        .init(
            name: "DOMAIN0020", received: ["foo2=bar2; domain=.home.example.org", "foo=bar; domain=home.example.org"],
            sentTo: "http://home.example.org:8888/r", sent: "foo2=bar2; foo=bar"),
        .init(name: "DOMAIN0021", received: ["foo=bar; domain=\"home.example.org\""], sentTo: "http://home.example.org:8888/r", sent: ""),
        .init(
            name: "DOMAIN0024", received: ["foo=bar; domain=.example.org; domain=home.example.org"],
            sentTo: "http://sibling.example.org:8888/r", sent: ""),
        .init(
            name: "DOMAIN0025", received: ["foo=bar; domain=home.example.org; domain=.example.org"],
            sentTo: "http://sibling.example.org:8888/r", sent: "foo=bar"),
        .init(
            name: "DOMAIN0026", received: ["foo=bar; domain=home.eXaMpLe.org"], sentTo: "http://home.example.org:8888/r", sent: "foo=bar"),
        .init(name: "DOMAIN0027", received: ["foo=bar; domain=home.example.org:8888"], sentTo: "http://home.example.org:8888/r", sent: ""),
        .init(name: "DOMAIN0029", received: ["foo=bar"], sentTo: "http://subdomain.home.example.org:8888/r", sent: ""),
        .init(
            name: "DOMAIN0033", received: ["foo=bar; domain=home.example.org"], sentTo: "http://hoMe.eXaMplE.org:8888/r", sent: "foo=bar"),
        .init(
            name: "OPTIONAL_DOMAIN0041", received: ["foo=bar; domain=example.org; domain="], sentTo: "http://home.example.org:8888/r",
            sent: "foo=bar"),
        .init(
            name: "OPTIONAL_DOMAIN0042", received: ["foo=bar; domain=foo.example.org; domain="], sentTo: "http://home.example.org:8888/r",
            sent: ""),
        .init(name: "MOZILLA0001", received: ["foo=bar; max-age=-1"], sent: ""),
        .init(name: "MOZILLA0003", received: ["foo=bar; expires=Thu, 10 Apr 1980 16:33:12 GMT"], sent: ""),
        .init(
            name: "MOZILLA0009", received: ["foo=bar; max-age=60", "foo1=bar; max-age=60", "foo=differentvalue; max-age=0"],
            sent: "foo1=bar"),
        .init(
            name: "MOZILLA0012", received: ["test=\"fubar! = foo;bar\\\";\" parser; max-age=6", "five; max-age=2.63,"],
            sent: "test=\"fubar! = foo"),
        .init(name: "MOZILLA0017", received: ["six", "seven", " =eight", "test=six"], sent: "test=six"),
        .init(name: "NAME0017", received: ["=a=bar"], sent: ""),
        .init(name: "NAME0020", received: ["\"a=b\"=bar"], sent: "\"a=b\"=bar"),
        .init(name: "NAME0023", received: ["foo;bar=baz"], sent: ""),
        .init(name: "NAME0024", received: ["$Version=1; foo=bar"], sent: "$Version=1"),
        .init(name: "NAME0030", received: ["foo bar=baz"], sent: "foo bar=baz"),
        .init(
            name: "ORDERING0001",
            received: [
                "key=val0;", "key=val1; path=/cookie-parser-result", "key=val2; path=/", "key=val3; path=/bar",
                "key=val4; domain=.example.org", "key=val5; domain=.example.org; path=/cookie-parser-result/foo",
            ], sentTo: "/cookie-parser-result/foo/baz?ordering0001", sent: "key=val5; key=val1; key=val2; key=val4"),
        .init(name: "PATH0001", received: ["a=b; path=/", "x=y; path=/cookie-parser-result"], sent: "x=y; a=b"),
        .init(name: "PATH0006", received: ["foo=bar", "foo=qux; path=/cookie-parser-result/foo"], sent: "foo=bar"),
        .init(name: "PATH0008", received: ["foo=bar; path=/cookie-parser-result/foo"], sentTo: "/cookie-parser-result/bar?p", sent: ""),
        .init(
            name: "PATH0010", received: ["foo=bar; path=/cookie-parser-result/foo/qux"], sentTo: "/cookie-parser-result/foo/qux?p",
            sent: "foo=bar"),
        .init(
            name: "PATH0013", received: ["foo=bar; path=/cookie-parser-result/foo/qux/"], sentTo: "/cookie-parser-result/foo/baz?p",
            sent: ""),
        .init(
            name: "PATH0014", received: ["foo=bar; path=/cookie-parser-result/foo/qux/"], sentTo: "/cookie-parser-result/foo/qux?p",
            sent: ""),
        .init(
            name: "PATH0016", received: ["foo=bar; path=/cookie-parser-result/foo/"], sentTo: "/cookie-parser-result/foo/qux?p",
            sent: "foo=bar"),
        .init(name: "PATH0018", received: ["foo=bar; path=/cookie-parser-result/foo/"], sentTo: "/cookie-parser-result/fooqux?p", sent: ""),
        .init(name: "PATH0022", received: ["foo=bar; path= /"], sent: "foo=bar"),
        .init(name: "PATH0023", received: ["foo=bar; Path=/cookie-PARSER-result"], sent: ""),
        .init(
            name: "PATH0026", received: ["foo=bar; path=/cookie-parser-result/foo/qux;"], sentTo: "/cookie-parser-result/foo/qux?p",
            sent: "foo=bar"),
        .init(
            name: "PATH0028", received: ["foo=bar; path=/cookie-parser-result/f%6Fo/bar"], sentTo: "/cookie-parser-result/foo/bar?p",
            sent: ""),
        .init(
            name: "PATH0029", received: ["a=b;       path    =       /cookie-parser-result   ", "x=y;       path    =       /book   "],
            sent: "a=b"),
        .init(name: "PATH0030", received: ["foo=bar; path=/dog; path="], sent: "foo=bar"),
        .init(name: "PATH0031", received: ["foo=bar; path=; path=/dog"], sent: ""),
        .init(
            name: "PATH0032", received: ["foo=bar; path=/cookie-parser-result", "foo=qux; path=/cookie-parser-result/"],
            sentTo: "/cookie-parser-result/dog?p", sent: "foo=qux; foo=bar"),
        .init(name: "VALUE0004", received: ["foo=\"bar;baz\""], sent: "foo=\"bar"),
        .init(name: "VALUE0006", received: ["   foo     =       bar             ;       ttt"], sent: "foo=bar"),
    ]

    @Test(arguments: parserCases)
    func sendsWhatTheHTTPStateSuiteExpects(_ test: HTTPStateCase) {
        #expect(sent(test) == test.sent)
    }

    @Test func anEmptyJarSendsNothingAndMakesNothing() {
        var jar = CookieJar()
        #expect(jar.header(for: CookieOrigin(host: home, path: "/", secure: false), now: read) == nil)
        #expect(jar.isEmpty)
    }

    @Test func secureCookiesGoOverHTTPSOnly() {
        var jar = CookieJar()
        jar.store(
            [Array("s=1; Secure".utf8), Array("p=2".utf8)], from: CookieOrigin(host: home, path: "/", secure: true), now: filled,
            unixTime: unixTime)
        #expect(
            jar.header(for: CookieOrigin(host: home, path: "/", secure: false), now: read).map { String(decoding: $0, as: UTF8.self) }
                == "p=2")
        #expect(
            jar.header(for: CookieOrigin(host: home, path: "/", secure: true), now: read).map { String(decoding: $0, as: UTF8.self) }
                == "s=1; p=2")
    }

    @Test func maxAgeCountsOnTheEngineClock() {
        var jar = CookieJar()
        let here = CookieOrigin(host: home, path: "/", secure: false)
        jar.store([Array("a=1; Max-Age=2".utf8)], from: here, now: filled, unixTime: unixTime)
        #expect(jar.header(for: here, now: filled + 1_999_999_999) != nil)
        #expect(jar.header(for: here, now: filled + 2_000_000_000) == nil)
        #expect(jar.isEmpty)
    }

    @Test func expiresCountsFromTheWallClockAtStoring() {
        var jar = CookieJar()
        let here = CookieOrigin(host: home, path: "/", secure: false)
        // 10 seconds after `unixTime` (2010-07-24 19:33:20 UTC).
        jar.store([Array("a=1; Expires=Sat, 24 Jul 2010 19:33:30 GMT".utf8)], from: here, now: filled, unixTime: unixTime)
        #expect(jar.header(for: here, now: filled + 9_000_000_000) != nil)
        #expect(jar.header(for: here, now: filled + 10_000_000_000) == nil)
    }

    @Test func anIPAddressHostMatchesOnlyItself() {
        var jar = CookieJar()
        let loopback = CookieOrigin(host: "127.0.0.1", path: "/", secure: false)
        jar.store(
            [Array("a=1; Domain=0.0.1".utf8), Array("b=2; Domain=127.0.0.1".utf8), Array("c=3".utf8)], from: loopback, now: filled,
            unixTime: unixTime)
        #expect(jar.header(for: loopback, now: read).map { String(decoding: $0, as: UTF8.self) } == "b=2; c=3")
    }

    @Test func aDomainKeepsFiftyCookiesDroppingTheOldest() {
        var jar = CookieJar()
        let here = CookieOrigin(host: home, path: "/", secure: false)
        jar.store((0..<60).map { Array("c\($0)=v".utf8) }, from: here, now: filled, unixTime: unixTime)
        #expect(jar.count == CookieJar.maxPerDomain)
        let header = String(decoding: jar.header(for: here, now: read) ?? [], as: UTF8.self)
        #expect(header.hasPrefix("c10=v; c11=v"))
        #expect(header.hasSuffix("c59=v"))
    }

    @Test func aCookieOfMoreThan4096BytesIsIgnored() {
        var jar = CookieJar()
        let here = CookieOrigin(host: home, path: "/", secure: false)
        jar.store([Array(("a=" + String(repeating: "x", count: 4095)).utf8)], from: here, now: filled, unixTime: unixTime)
        #expect(jar.count == 1)
        jar.store([Array(("b=" + String(repeating: "x", count: 4096)).utf8)], from: here, now: filled, unixTime: unixTime)
        #expect(jar.count == 1)
    }

    @Test func theHeaderIsBuiltOnceWhileNothingChanges() {
        var jar = CookieJar()
        let here = CookieOrigin(host: home, path: "/", secure: false)
        jar.store([Array("a=1".utf8)], from: here, now: filled, unixTime: unixTime)
        let first = jar.header(for: here, now: read)
        let second = jar.header(for: here, now: read + 1)
        let same = first?.withUnsafeBufferPointer { a in second?.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
        #expect(same == true)
    }

    @Test func aCookieNeverShowsItsValue() {
        let cookie = Cookie(
            name: Array("sid".utf8), value: Array("s3cr3t".utf8), domain: home, path: "/", hostOnly: true, secure: false, expiry: .max,
            creation: 0)
        #expect(!String(describing: cookie).contains("s3cr3t"))
        #expect(!String(reflecting: cookie).contains("s3cr3t"))
        var jar = CookieJar()
        let here = CookieOrigin(host: home, path: "/", secure: false)
        jar.store([Array("sid=s3cr3t".utf8)], from: here, now: filled, unixTime: unixTime)
        _ = jar.header(for: here, now: read)
        #expect(String(describing: jar) == "CookieJar(sid=*** (domain home.example.org, path /))")
        #expect(!String(reflecting: jar).contains("s3cr3t"))
    }
}

@Suite struct CookieDateTests {
    @Test(
        arguments: [
            ("Wed, 09 Jun 2021 10:18:14 GMT", 1_623_233_894),
            ("Sun, 18-Apr-2027 21:06:29 GMT", 1_808_082_389),
            ("Thu Apr 10 16:33:12 1980", 324_232_392),
            ("Thursday, 10-Apr-80 16:33:12 GMT", 324_232_392),
            ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
            ("29 Feb 2024 12:00:00", 1_709_208_000),
        ] as [(String, Int64)])
    func readsTheDatesBrowsersRead(_ text: String, _ seconds: Int64) {
        #expect(CookieDate.parse(Array(text.utf8)) == seconds)
    }

    @Test(arguments: [
        "", "Wed, 09 Jun 2021", "09 Jun 2021 24:00:00", "31 Feb 2021 00:00:00", "09 Foo 2021 10:18:14", "00 Jun 2021 10:18:14",
        "09 Jun 1600 10:18:14", "09 Jun 2021 10:60:00",
    ])
    func refusesWhatIsNotACookieDate(_ text: String) {
        #expect(CookieDate.parse(Array(text.utf8)) == nil)
    }
}

@Suite struct CookieJarStorageTests {
    @Test func aCopyOfAJarIsAnotherJar() {
        var first = CookieJar()
        let here = CookieOrigin(host: "example.org", path: "/", secure: false)
        first.store([Array("a=1".utf8)], from: here, now: 1, unixTime: 0)
        var second = first
        second.store([Array("b=2".utf8)], from: here, now: 1, unixTime: 0)
        #expect(first.header(for: here, now: 2).map { String(decoding: $0, as: UTF8.self) } == "a=1")
        #expect(second.header(for: here, now: 2).map { String(decoding: $0, as: UTF8.self) } == "a=1; b=2")
    }

    @Test func anEmptyJarIsOneWord() {
        #expect(MemoryLayout<CookieJar>.size == MemoryLayout<Int>.size)
    }
}
