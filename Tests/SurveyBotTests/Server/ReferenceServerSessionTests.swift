import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// A reference server with `login` on loopback, a client for it, and teardown.
private func withLoginServer(
    login: Bool = true, seed: UInt64 = 7, _ body: (ReferenceServer, HTTPClient, HTTPTarget) async throws -> Void
) async throws {
    var configuration = ReferenceServerConfiguration()
    configuration.login = login
    configuration.seed = seed
    let group = EventLoopGroup(threads: 2)
    let server = try ReferenceServer(configuration: configuration, group: group)
    let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
    let client = try HTTPClient(target: target, group: group, configuration: .init(timeout: .seconds(30)))
    try await tearingDown(after: { try await body(server, client, target) }) {
        await client.shutdown()
        await server.shutdown()
        group.shutdown()
    }
}

/// What a login gave a client: the token from the body, and the jar holding the cookie.
private struct LoggedIn {
    var token: String
    var jar: CookieJar
}

private func logIn(_ client: HTTPClient, _ target: HTTPTarget, body: String = #"{"member": 1}"#) async throws -> LoggedIn {
    var request = HTTPRequest(
        try HTTPRequest.Template(method: "POST", path: "/session", target: target), body: Array(body.utf8), collectBody: true)
    request.collectCookies = true
    let response = try await client.send(request).received.get()
    #expect(response.status == 200)
    guard case .string(let token)? = try JSONValue.parse(response.body).get()["token"] else {
        Issue.record("no token in \(String(decoding: response.body, as: UTF8.self))")
        throw CancellationError()
    }
    var jar = CookieJar()
    jar.store(response.setCookies, from: request.template.cookieOrigin, now: 1, unixTime: 0)
    return LoggedIn(token: token, jar: jar)
}

/// The status of a call on `path` carrying `token` (as a bearer) and `cookies` from a jar.
private func status(
    _ method: String, _ path: String, _ client: HTTPClient, _ target: HTTPTarget, token: String?, jar: CookieJar?,
    body: String? = nil
) async throws -> Int {
    let headers = token.map { [HTTPHeader(name: "Authorization", value: "Bearer \($0)")] } ?? []
    var request = HTTPRequest(
        try HTTPRequest.Template(method: method, path: path, target: target, headers: headers), body: body.map { Array($0.utf8) })
    var jar = jar
    request.cookies = jar?.header(for: request.template.cookieOrigin, now: 2)
    return try await client.send(request).received.get().status
}

private let answer = #"{"id":1,"answer":"red"}"#

@Suite struct ReferenceServerSessionTests {
    @Test func aLoginHandsOutATokenASessionCookieAndASessionID() throws {
        var configuration = ReferenceServerConfiguration()
        configuration.login = true
        let state = ReferenceServerState(configuration: configuration, questions: [SurveyQuestion(id: 1, text: "a")], loops: 1)
        let action = state.handle(HTTPServerRequest(method: "POST", path: "/session", body: Array(#"{"member":"m1"}"#.utf8)))
        guard case .respond(let response) = action else {
            Issue.record("not answered: \(action)")
            return
        }
        let text = String(decoding: response.bytes, as: UTF8.self)
        let id = try #require(text.split(separator: "\r\n").first { $0.hasPrefix("X-Session-Id: ") }?.dropFirst("X-Session-Id: ".count))
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("\r\nSet-Cookie: session=\(id); Path=/; HttpOnly\r\n"))
        #expect(text.contains("\r\nContent-Type: application/json\r\n"))
        let body = try #require(text.components(separatedBy: "\r\n\r\n").last)
        guard case .string(let token)? = try JSONValue.parse(Array(body.utf8)).get()["token"] else {
            Issue.record("no token in \(body)")
            return
        }
        #expect(token.hasPrefix("t") && token.count == 17)
    }

    @Test func surveyCallsNeedTheTokenAndTheCookieOfOneSession() async throws {
        try await withLoginServer { server, client, target in
            let a = try await logIn(client, target)
            let b = try await logIn(client, target)
            #expect(a.token != b.token)
            #expect(try await status("GET", "/questions", client, target, token: nil, jar: nil) == 401)
            #expect(try await status("GET", "/questions", client, target, token: a.token, jar: nil) == 401)
            #expect(try await status("GET", "/questions", client, target, token: nil, jar: a.jar) == 401)
            #expect(try await status("GET", "/questions", client, target, token: a.token, jar: b.jar) == 401)
            #expect(try await status("GET", "/questions", client, target, token: "t-not-handed-out", jar: a.jar) == 401)
            #expect(try await status("GET", "/questions", client, target, token: a.token, jar: a.jar) == 200)
            #expect(try await status("POST", "/question/submit", client, target, token: b.token, jar: b.jar, body: answer) == 200)
            #expect(try await status("POST", "/question/submit", client, target, token: b.token, jar: a.jar, body: answer) == 401)
            let stats = server.stats()
            #expect(stats.endpoints["questions"] == ["401": 5, "200": 1])
            #expect(stats.endpoints["submit"] == ["401": 1, "200": 1])
            #expect(stats.endpoints["session"] == ["200": 2])
        }
    }

    @Test func aLogoutClosesItsOwnSessionWhoseTokenIsRefusedAfter() async throws {
        try await withLoginServer { server, client, target in
            let a = try await logIn(client, target)
            let b = try await logIn(client, target)
            // Another session's cookie, or no token, closes nothing.
            #expect(try await status("DELETE", "/session", client, target, token: a.token, jar: b.jar) == 401)
            #expect(try await status("DELETE", "/session", client, target, token: nil, jar: a.jar) == 401)
            #expect(try await status("DELETE", "/session", client, target, token: a.token, jar: a.jar) == 204)
            #expect(try await status("GET", "/questions", client, target, token: a.token, jar: a.jar) == 401)
            #expect(try await status("DELETE", "/session", client, target, token: a.token, jar: a.jar) == 401)
            #expect(try await status("GET", "/questions", client, target, token: b.token, jar: b.jar) == 200)
            #expect(try await status("PUT", "/session", client, target, token: b.token, jar: b.jar) == 405)
            let stats = server.stats()
            #expect(stats.closedSessions == 1)
            #expect(stats.sessions == [a.token: 1, b.token: 1])
            #expect(stats.endpoints["session"] == ["200": 2, "204": 1, "401": 3, "405": 1])
            #expect(ReferenceServerStats.parse(Array(stats.json.utf8)) == stats)
        }
    }

    @Test func statsCountTheCallsOfEveryTokenAndRoundTrip() async throws {
        try await withLoginServer { server, client, target in
            var sessions: [LoggedIn] = []
            for _ in 0..<3 { sessions.append(try await logIn(client, target)) }
            for (index, session) in sessions.enumerated() {
                for _ in 0..<index + 1 {
                    #expect(
                        try await status("POST", "/question/submit", client, target, token: session.token, jar: session.jar, body: answer)
                            == 200)
                }
            }
            let statsRequest = HTTPRequest(try HTTPRequest.Template(method: "GET", path: "/__stats", target: target), collectBody: true)
            let stats = try #require(ReferenceServerStats.parse(try await client.send(statsRequest).received.get().body))
            #expect(stats == server.stats())
            #expect(stats.sessions == [sessions[0].token: 1, sessions[1].token: 2, sessions[2].token: 3])
        }
    }

    @Test func theSameSeedHandsOutTheSameTokens() async throws {
        var tokens: [[String]] = []
        for _ in 0..<2 {
            try await withLoginServer(seed: 11) { _, client, target in
                var these: [String] = []
                for _ in 0..<3 { these.append(try await logIn(client, target).token) }
                tokens.append(these)
            }
        }
        #expect(tokens[0] == tokens[1])
        #expect(Set(tokens[0]).count == 3)
    }

    @Test func aLoginNeedsAJSONBodyAndAPost() async throws {
        try await withLoginServer { server, client, target in
            let notJSON = try await status("POST", "/session", client, target, token: nil, jar: nil, body: "member=1")
            let get = try await status("GET", "/session", client, target, token: nil, jar: nil)
            #expect(notJSON == 400)
            #expect(get == 405)
            #expect(server.stats().sessions.isEmpty)
        }
    }

    @Test func aLoginWithoutABodyGetsASessionAsAPlanWithoutLoginBodySendsIt() async throws {
        try await withLoginServer { server, client, target in
            let session = try await logIn(client, target, body: "")
            #expect(try await status("GET", "/questions", client, target, token: session.token, jar: session.jar) == 200)
            #expect(server.stats().sessions == [session.token: 1])
        }
    }

    @Test func withoutLoginThereIsNoSessionAndNothingIsChecked() async throws {
        try await withLoginServer(login: false) { server, client, target in
            let login = try await status("POST", "/session", client, target, token: nil, jar: nil, body: "{}")
            let questions = try await status("GET", "/questions", client, target, token: nil, jar: nil)
            #expect(login == 404)
            #expect(questions == 200)
            #expect(server.stats().endpoints["other"] == ["404": 1])
        }
    }

    @Test func serveTakesLogin() throws {
        func configuration(_ arguments: [String]) throws -> ReferenceServerConfiguration {
            guard case .arguments(let parsed) = try ArgumentParser(spec: ServeCommand.spec).parse(arguments) else {
                throw UsageError("not arguments")
            }
            return try ServeCommand.configuration(from: parsed)
        }
        #expect(try configuration(["--login"]).login)
        #expect(try configuration([]).login == false)
    }
}

/// `/__stats` is answered on the event loop to anyone who asks, and any client may open
/// sessions: it lists the first `SessionBook.listed` and counts the rest, so that 150,000
/// sessions cost an answer no more than 1,000 do.
@Suite struct SessionStatsBoundTests {
    @Test func theStatsListTheFirstThousandSessionsAndCountTheRest() throws {
        let book = SessionBook()
        var first: [String] = []
        for _ in 0..<150_000 {
            let session = try #require(book.open(seed: 3))
            if first.count < 2 { first.append(session.token) }
        }
        let (listed, beyond) = book.requestsByToken()
        #expect(listed.count == SessionBook.listed && beyond == 150_000 - SessionBook.listed)
        #expect(first.allSatisfy { listed[$0] == 0 })
        var stats = ReferenceServerStats(
            endpoints: ["other": [:], "questions": [:], "session": [:], "submit": [:]], invalidSubmits: 0, slowAnswers: 0,
            connectionsAccepted: 0, connectionsOpen: 0, rejected: 0)
        stats.sessions = listed
        stats.sessionsBeyondLimit = beyond
        #expect(stats.json.contains("\"sessions_beyond_limit\":149000,"))
        let read = ReferenceServerStats.parse(Array(stats.json.utf8))
        #expect(read?.sessions.count == SessionBook.listed && read?.sessionsBeyondLimit == beyond)
        // Under the limit, the answer is as it was.
        stats.sessionsBeyondLimit = 0
        #expect(!stats.json.contains("beyond"))
    }
}
