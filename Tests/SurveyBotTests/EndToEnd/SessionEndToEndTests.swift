import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// `survey-bot serve --login` against the real executable: the server's sessions hold, and what
/// a run carries — a token in `Authorization`, the session's cookie beside the jar's — is
/// counted against that session, and never printed.
@Suite struct SessionEndToEndTests {
    @Test func aRunCarryingASessionIsCountedAgainstItsTokenAndOneWithoutIsRefused() async throws {
        let (server, url) = try await startServer(["--login", "--questions", "3"])
        defer { server.stop() }
        // The test logs in itself (the client's login step is a plan's `api.login`).
        let target = try HTTPTarget.parse(url).get()
        let group = EventLoopGroup(threads: 1)
        let client = try HTTPClient(target: target, group: group)
        var login = HTTPRequest(
            try HTTPRequest.Template(method: "POST", path: "/session", target: target), body: Array(#"{"member":1}"#.utf8),
            collectBody: true)
        login.collectCookies = true
        let response = try await client.send(login).received.get()
        await client.shutdown()
        group.shutdown()
        guard case .string(let token)? = try JSONValue.parse(response.body).get()["token"] else {
            Issue.record("no token: \(String(decoding: response.body, as: UTF8.self))")
            return
        }
        let cookie = try #require(response.setCookies.first.map { String(decoding: $0, as: UTF8.self) })
        let session = try #require(cookie.split(separator: ";").first.map(String.init))

        let directory = try TemporaryDirectory()
        let base = "target: \(url)\nrespondents: 2\nconcurrency: 1\ntimeout: 5s\nseed: 1\n"
        let withSession = try directory.write(
            "with.plan", base + "api:\n  headers:\n    Authorization: Bearer ${TOKEN}\n    Cookie: ${SESSION}\n")
        let without = try directory.write("without.plan", base)
        let environment = ProcessInfo.processInfo.environment.merging(["TOKEN": token, "SESSION": session]) { $1 }
        let run = try ChildProcess(surveyBot: ["run", withSession, "--out", directory.path, "--quiet"], environment: environment)
        #expect(await run.wait(seconds: 60) == 0, "\(run.standardError)")
        let refused = try ChildProcess(surveyBot: ["run", without, "--out", directory.path, "--quiet"], environment: environment)
        // Every respondent's questions refused: none completes, and the implicit
        // survey.completion_rate > 0 fails the run.
        #expect(await refused.wait(seconds: 60) == 1, "\(refused.standardError)")

        let stats = try await fetchStats(url)
        // Two respondents, each 1 questions call and 3 submits, all on the one session.
        #expect(stats.sessions == [token: 8], "\(stats)")
        #expect(stats.endpoints["session"] == ["200": 1])
        // The run without the session: each respondent's questions refused (401 is not retried by default).
        #expect(stats.endpoints["questions"] == ["200": 2, "401": 2], "\(stats)")
        let report = try RunReport.read(path: directory.path + "/without-latest.json")
        #expect(report.stepReports["questions"]?.status == ["401": 2])
        // The token and the session id are secrets: in no output and no report file.
        let secret = String(token.dropFirst())
        let sessionID = String(session.dropFirst("session=s".count))
        for text in [run.standardOutput, run.standardError, refused.standardOutput, refused.standardError] {
            #expect(!text.contains(secret) && !text.contains(sessionID))
        }
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where !file.hasSuffix(".plan") {
            let text = try String(contentsOfFile: directory.path + "/" + file, encoding: .utf8)
            #expect(!text.contains(secret) && !text.contains(sessionID), "\(file)")
        }
    }
}
