import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// The server's reason for a 4xx or 5xx, run by the real executable against a scripted server
/// over HTTP/1.1 and h2c: a JSON refusal, an HTML error page, and refusals and refused checks
/// that echo the respondent's session token (before and after a capture takes it), its session
/// cookie and a secret from the environment. Every report format and the
/// `--raw` log say why, and none holds a secret.
@Suite struct ServerReasonEndToEndTests {
    /// `POST /login` gives each respondent a token of its own; `POST /check/…` refuses with a
    /// 400 that echoes what it was sent (the token, the path and its secret); `GET /whoami`
    /// echoes the respondent's cookies; `GET /denied` is a 401 in JSON, `GET /down` nginx's 502
    /// page. Keeps the tokens and the session cookies it gave.
    final class Refusing: Sendable {
        let tokens = Mutex<[String]>([])
        let cookies = Mutex<[String]>([])

        func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
            switch (request.method, request.pathWithoutQuery) {
            case ("POST", "/login"):
                let token = "tok-\(UInt64.random(in: 1_000_000_000...9_999_999_999))"
                tokens.withLock { $0.append(token) }
                let cookie = "ck-\(UInt64.random(in: 1_000_000_000...9_999_999_999))"
                cookies.withLock { $0.append(cookie) }
                let headers = [
                    HTTPHeader(name: "Content-Type", value: "application/json"),
                    HTTPHeader(name: "Set-Cookie", value: "sid=\(cookie); Path=/"),
                ]
                return .respond(
                    EncodedResponse(HTTPServerResponse(status: 200, headers: headers, body: Array(#"{"token":"\#(token)"}"#.utf8))))
            case ("GET", "/whoami"):
                return .respond(EncodedResponse(.json(200, Array(#"{"cookie":\#(JSONValue.quoted(request.cookie ?? ""))}"#.utf8))))
            case ("POST", let path) where path.hasPrefix("/check/"):
                let sent = String(decoding: request.body, as: UTF8.self)
                let echo = #"{"error":"not accepted","path":\#(JSONValue.quoted(String(path))),"sent":\#(JSONValue.quoted(sent))}"#
                return .respond(EncodedResponse(.json(400, Array(echo.utf8))))
            case ("POST", "/echo"):
                let sent = String(decoding: request.body, as: UTF8.self)
                return .respond(EncodedResponse(.json(200, Array(#"{"sent":\#(JSONValue.quoted(sent))}"#.utf8))))
            case ("GET", "/denied"):
                return .respond(
                    EncodedResponse(.json(401, Array(#"{"meta": {"error": {"errorMessage": "Invalid or missing X-API-TOKEN"}}}"#.utf8))))
            case ("GET", "/down"):
                let page = """
                    <html>
                    <head><title>502 Bad Gateway</title></head>
                    <body>
                    <center><h1>502 Bad Gateway</h1></center>
                    <hr><center>nginx</center>
                    </body>
                    </html>

                    """
                return .respond(
                    EncodedResponse(
                        HTTPServerResponse(
                            status: 502, headers: [HTTPHeader(name: "Content-Type", value: "text/html")], body: Array(page.utf8))))
            default:
                return .respond(EncodedResponse(.json(404, [])))
            }
        }
    }

    static func plan(port: Int, http: String) -> String {
        """
        name: reasons
        target: http://127.0.0.1:\(port)
        http: \(http)
        respondents: 3
        concurrency: 1
        seed: 5
        journey:
          login:
            request: POST /login
            capture:
              token: $.token
          check:
            request: POST /check/${SECRET}
            body: '{"token": "${session.token}"}'
            retry:
              attempts: 1
          echo:
            request: POST /echo
            body: '{"token": "${session.token}"}'
            always: true
            expect:
              - body contains accepted
            retry:
              attempts: 1
          whoami:
            request: GET /whoami
            always: true
            expect:
              - body contains accepted
            retry:
              attempts: 1
          relogin:
            request: POST /login
            always: true
            capture:
              again: $.token
            expect:
              - body contains welcome
            retry:
              attempts: 1
          denied:
            request: GET /denied
            always: true
            retry:
              attempts: 1
          down:
            request: GET /down
            always: true
            retry:
              attempts: 1
        report:
          formats: [json, markdown, junit, text, csv, html, prometheus]

        """
    }

    static let deniedReason = #"{"meta":{"error":{"errorMessage":"Invalid or missing X-API-TOKEN"}}}"#

    @Test(arguments: ["1.1", "2"])
    func everyFormatSaysWhyTheServerRefusedAndNoneShowsASecret(http: String) async throws {
        let directory = try TemporaryDirectory()
        let secret = "sec\(UInt64.random(in: 1_000_000...9_999_999))ret"
        var environment = ProcessInfo.processInfo.environment
        environment["SECRET"] = secret
        let server = Refusing()
        let group = EventLoopGroup(threads: 1)
        let listener = try HTTPServer(
            host: "127.0.0.1", port: 0, group: group, credentials: true, http2: HTTP2ServerOptions(), handler: server.handle)
        var run: ChildProcess?
        try await tearingDown(
            after: {
                let plan = try directory.write("reasons.plan", Self.plan(port: listener.port, http: http))
                let child = try ChildProcess(
                    surveyBot: ["run", plan, "--out", directory.path, "--raw", directory.path + "/attempts.jsonl"],
                    environment: environment)
                #expect(await child.wait(seconds: 30) == 1, "\(child.standardError)")
                run = child
            },
            {
                await listener.shutdown()
                group.shutdown()
            })
        let child = try #require(run)
        let tokens = server.tokens.withLock { $0 }
        let cookies = server.cookies.withLock { $0 }
        #expect(tokens.count == 6 && cookies.count == 6)

        let report = try RunReport.read(path: directory.path + "/reasons-latest.json")
        #expect(report.stepReports["denied"]?.errors == ["http_4xx": 3])
        #expect(report.stepReports["denied"]?.errorSamples == ["http_4xx": "401: " + Self.deniedReason])
        #expect(report.stepReports["down"]?.errorSamples == ["http_5xx": "502: 502 Bad Gateway — nginx"])
        // The refusal's echo, with the token and the path's secret masked.
        let checkReason = try #require(report.stepReports["check"]?.errorSamples?["http_4xx"])
        #expect(
            checkReason.hasPrefix(#"400: {"error":"not accepted","path":"/check/***","sent":"{\"token\": \"***\"}"}"#), "\(checkReason)")

        // A refused check quotes the body, masked the same way.
        #expect(
            report.stepReports["echo"]?.errorSamples
                == ["rejected": #"check 'body contains accepted' failed: the body is "{\"sent\":\"{\\\"token\\\": \\\"***\\\"}\"}""#])

        // A refused check quotes the jar's cookie, and one on the step that captures the token
        // quotes the token before the capture took it: both masked.
        #expect(
            report.stepReports["whoami"]?.errorSamples == [
                "rejected": #"check 'body contains accepted' failed: the body is "{\"cookie\":\"sid=***\"}""#
            ])
        let relogin = try #require(report.stepReports["relogin"]?.errorSamples?["rejected"])
        #expect(relogin == #"check 'body contains welcome' failed: the body is "{\"token\":\"***\"}""#, "\(relogin)")

        let markdown = try String(contentsOfFile: directory.path + "/reasons-latest.md", encoding: .utf8)
        #expect(markdown.contains("| denied | http_4xx | 3 | 401: " + Self.deniedReason + " |"), "\(markdown)")
        #expect(markdown.contains("502: 502 Bad Gateway — nginx"))
        #expect(child.standardOutput.contains("denied http_4xx 3 (401: " + Self.deniedReason + ")"), "\(child.standardOutput)")
        let html = try String(contentsOfFile: directory.path + "/reasons-latest.html", encoding: .utf8)
        #expect(html.contains(XMLText.escape("401: " + Self.deniedReason)))

        let lines = try String(contentsOfFile: directory.path + "/attempts.jsonl", encoding: .utf8).split(separator: "\n")
        let reasons = lines.compactMap { line -> (Int, String)? in
            guard case .success(let value) = JSONValue.parse(line.utf8), case .integer(let status)? = value["status"],
                case .string(let reason)? = value["reason"]
            else { return nil }
            return (Int(status), reason)
        }
        #expect(reasons.filter { $0.0 == 401 }.map(\.1) == Array(repeating: Self.deniedReason, count: 3), "\(lines)")
        #expect(reasons.filter { $0.0 == 502 }.map(\.1) == Array(repeating: "502 Bad Gateway — nginx", count: 3))
        #expect(reasons.filter { $0.0 == 400 }.count == 3)

        // No secret in any output: every file the run wrote, and what it printed.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "reasons.plan" }
        #expect(names.count >= 8, "\(names)")
        for name in names {
            let text = try String(contentsOfFile: directory.path + "/" + name, encoding: .utf8)
            for hidden in tokens + cookies + [secret] { #expect(!text.contains(hidden), "\(name) shows \(hidden)") }
        }
        for hidden in tokens + cookies + [secret] {
            #expect(!child.standardOutput.contains(hidden) && !child.standardError.contains(hidden))
        }
    }
}
