import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// `survey-bot replay` against a scripted survey on loopback and a recording of a walk of it,
/// written here as a browser saves one: the page, a script, a login that hands out a token, a
/// submit that sends it back, and another origin's beacon.
///
/// Serialized: each replay is a run, which installs the process's signal handling while it
/// runs, and two at once would take it from each other.
@Suite(.serialized) struct ReplayEndToEndTests {
    /// What the scripted server does differently from the walk that was recorded.
    enum Change {
        case none
        /// The login answers 503.
        case loginUnavailable
        /// The submit answers with other members.
        case submitReshaped
    }

    /// The survey: `GET /` a page, `POST /login` a fresh token each time, `POST /submit`
    /// accepted only with the last token handed out (403 otherwise).
    final class Survey: Sendable {
        let change: Change
        let issued = Mutex<[String]>([])

        init(_ change: Change) {
            self.change = change
        }

        func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
            let json = [HTTPHeader(name: "Content-Type", value: "application/json")]
            switch (request.method, String(request.pathWithoutQuery)) {
            case ("GET", "/"):
                let page = "<html><head><title>Survey</title></head><body><form><input name=\"member\" value=\"\"></form></body></html>"
                return .respond(
                    EncodedResponse(
                        HTTPServerResponse(
                            status: 200, headers: [HTTPHeader(name: "Content-Type", value: "text/html")], body: Array(page.utf8))))
            case ("POST", "/login"):
                if change == .loginUnavailable { return .respond(EncodedResponse(HTTPServerResponse(status: 503))) }
                let token = issued.withLock { issued in
                    issued.append("tok-\(issued.count)-\(UInt32.random(in: 100_000...999_999))")
                    return issued[issued.count - 1]
                }
                return .respond(
                    EncodedResponse(HTTPServerResponse(status: 200, headers: json, body: Array(#"{"token": "\#(token)"}"#.utf8))))
            case ("POST", "/submit"):
                let sent = (try? JSONValue.parse(request.body).get())?["token"]
                guard case .string(let token)? = sent, token == issued.withLock({ $0.last }) else {
                    return .respond(
                        EncodedResponse(HTTPServerResponse(status: 403, headers: json, body: Array(#"{"error": "bad token"}"#.utf8))))
                }
                let body = change == .submitReshaped ? #"{"saved": true}"# : #"{"ok": true, "id": 7}"#
                return .respond(EncodedResponse(HTTPServerResponse(status: 200, headers: json, body: Array(body.utf8))))
            default:
                return .respond(EncodedResponse(HTTPServerResponse(status: 404)))
            }
        }
    }

    /// A HAR 1.2 file of the walk at `origin`, as Chrome writes one (trimmed to what it needs).
    static func recording(origin: String) -> String {
        func entry(_ method: String, _ url: String, body: String? = nil, status: Int, type: String, response: String?) -> String {
            let post = body.map { #", "postData": {"mimeType": "application/json", "text": \#(JSONValue.quoted($0))}"# } ?? ""
            let text = response.map { #", "text": \#(JSONValue.quoted($0))"# } ?? ""
            return #"""
                {"startedDateTime": "2026-11-29T01:00:00.000Z", "time": 12,
                 "request": {"method": "\#(method)", "url": "\#(url)", "httpVersion": "HTTP/1.1", "headers": [{"name": "User-Agent", "value": "Chrome"}], "queryString": [], "cookies": []\#(post), "headersSize": -1, "bodySize": -1},
                 "response": {"status": \#(status), "statusText": "", "httpVersion": "HTTP/1.1", "headers": [{"name": "Content-Type", "value": "\#(type)"}], "cookies": [],
                   "content": {"size": -1, "mimeType": "\#(type)"\#(text)}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
                 "cache": {}, "timings": {"send": 1, "wait": 10, "receive": 1}}
                """#
        }
        let entries = [
            entry(
                "GET", "\(origin)/", status: 200, type: "text/html",
                response: "<html><head><title>Survey</title></head><body><form><input name=\"member\" value=\"\"></form></body></html>"),
            entry("GET", "\(origin)/app.js", status: 200, type: "text/javascript", response: "var survey = 1;"),
            entry(
                "POST", "\(origin)/login", body: #"{"member": 1}"#, status: 200, type: "application/json",
                response: #"{"token": "tok-rec-1234567"}"#),
            entry("GET", "https://analytics.example/collect?e=login", status: 204, type: "text/plain", response: nil),
            entry(
                "POST", "\(origin)/submit", body: #"{"token": "tok-rec-1234567", "answer": "yes"}"#, status: 200, type: "application/json",
                response: #"{"ok": true, "id": 7}"#),
        ]
        return
            #"{"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "pages": [], "entries": [\#(entries.joined(separator: ",\n"))]}}"#
    }

    /// The plan of the walk; `hardCoded` sends the recorded token instead of the one captured.
    static func plan(target: String, hardCoded: Bool) -> String {
        let token = hardCoded ? #""tok-rec-1234567""# : "${session.token}"
        return lines(
            "name: walk", "target: \(target)", "timeout: 5s", "journey:", "  home:", "    request: GET /", "  login:",
            "    request: POST /login",
            #"    body: '{"member": 1}'"#, "    capture:", "      token: $.token", "  submit:", "    request: POST /submit",
            #"    body: '{"token": \#(token), "answer": "yes"}'"#)
    }

    /// Serves `change`, writes the recording and the plan, and replays it.
    private func replay(_ change: Change, hardCoded: Bool = false) async throws -> CommandResult {
        let survey = Survey(change)
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { survey.handle($0) }
        let origin = "http://127.0.0.1:\(server.port)"
        let directory = try TemporaryDirectory()
        let har = try directory.write("walk.har", Self.recording(origin: origin))
        let plan = try directory.write("walk.plan", Self.plan(target: origin, hardCoded: hardCoded))
        var result: CommandResult?
        try await tearingDown {
            result = await runCommand(["replay", plan, har])
        } _: {
            await server.shutdown()
            group.shutdown()
        }
        return try #require(result)
    }

    @Test func aPlanThatCapturesTheTokenMatchesTheRecordingStepByStep() async throws {
        let result = try await replay(.none)
        #expect(result.status == .success, "\(result.out)\(result.err)")
        #expect(result.out.contains("ok: every step matched the recording"))
        let rows = result.out.split(separator: "\n").filter { $0.hasPrefix("home") || $0.hasPrefix("login") || $0.hasPrefix("submit") }
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { $0.contains("200") && $0.contains("same (") }, "\(result.out)")
    }

    @Test func aHardCodedTokenDivergesAtTheSubmitAndIsNamedWithItsSource() async throws {
        let result = try await replay(.none, hardCoded: true)
        #expect(result.status == .failure, "\(result.out)\(result.err)")
        #expect(result.out.contains("first divergence: step submit (POST /submit): status 200 → 403"), "\(result.out)")
        #expect(
            result.out.contains(
                "hint: step submit sends 'tok-r…' (15 characters) in its body, which the recording's step login received in its JSON "
                    + "$.token (the replay's step login received another value there) — it probably needs a capture"), "\(result.out)")
        #expect(!result.out.contains("tok-rec-1234567") && !result.err.contains("tok-rec-1234567"))
    }

    @Test func aChangedStatusIsTheFirstDivergenceAndWhatWasNotReplayedIsListed() async throws {
        let result = try await replay(.loginUnavailable)
        #expect(result.status == .failure, "\(result.out)\(result.err)")
        #expect(result.out.contains("first divergence: step login (POST /login): status 200 → 503"), "\(result.out)")
        #expect(result.out.contains("submit (not replayed)"), "\(result.out)")
    }

    @Test func aResponseOfAnotherShapeDivergesNamingTheMembers() async throws {
        let result = try await replay(.submitReshaped)
        #expect(result.status == .failure, "\(result.out)\(result.err)")
        #expect(
            result.out.contains(
                "first divergence: step submit (POST /submit): its response has another shape: $.id missing; $.ok missing; $.saved added"),
            "\(result.out)")
    }

    @Test func aRecordingThatIsNoHARIsBadInputAtItsPlaceAndNothingIsSent() async throws {
        let directory = try TemporaryDirectory()
        let har = try directory.write("walk.har", "{\"log\": {\"entries\": [}}")
        let plan = try directory.write("walk.plan", Self.plan(target: "http://127.0.0.1:9", hardCoded: false))
        let result = await runCommand(["replay", plan, har])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("\(har):1:"), "\(result.err)")
        #expect(result.err.contains("nothing was sent"))
        let missing = await runCommand(["replay", plan])
        #expect(missing.status == .validationFailure && missing.err.contains("missing expected argument '<recording>'"))
    }
}
