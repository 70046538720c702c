import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// A look-alike backend with a login, served in the test on loopback: each member logs in and
/// gets its own token (in the body) and session id (in a header), and every later call must
/// carry both. The real executable runs a plan with a CSV feed against it.
@Suite struct DataFeedEndToEndTests {
    /// What the backend saw: calls per token, and the answers given, by member.
    final class Backend: Sendable {
        let seen = Mutex<(logins: [String: Int], questions: [String: Int], submits: [String: [String]], refused: Int)>(([:], [:], [:], 0))

        static func token(_ member: String) -> String { "tok-\(String(member.reversed()))" }
        static func member(ofToken token: String) -> String? {
            token.hasPrefix("tok-") ? String(token.dropFirst(4).reversed()) : nil
        }

        func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
            let path = request.path
            let json = try? JSONValue.parse(request.body).get()
            if request.pathWithoutQuery == "/v2/session" {
                guard case .string(let member)? = json?["member"] else { return refuse() }
                seen.withLock { $0.logins[member, default: 0] += 1 }
                let body = #"{"data":{"token":"\#(Self.token(member))"}}"#
                return .respond(
                    EncodedResponse(
                        HTTPServerResponse(
                            status: 200,
                            headers: [
                                HTTPHeader(name: "Content-Type", value: "application/json"),
                                HTTPHeader(name: "X-Session-Id", value: "sid-\(member)"),
                            ], body: Array(body.utf8))))
            }
            if request.pathWithoutQuery == "/v2/questions" {
                // /v2/questions?token=…&sid=…: both must name the same member.
                let query = path.split(separator: "?").last.map(String.init) ?? ""
                var fields: [String: String] = [:]
                for pair in query.split(separator: "&") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    if parts.count == 2 { fields[parts[0]] = parts[1].removingPercentEncoding }
                }
                guard let token = fields["token"], let member = Self.member(ofToken: token), fields["sid"] == "sid-\(member)" else {
                    return refuse()
                }
                seen.withLock { $0.questions[member, default: 0] += 1 }
                let body = #"{"data":{"items":[{"qid":1,"text":"Colour?"},{"qid":2,"text":"Why?"}]}}"#
                return .respond(EncodedResponse(.json(200, Array(body.utf8))))
            }
            if request.pathWithoutQuery == "/v2/answers" {
                guard case .string(let token)? = json?["token"], let member = Self.member(ofToken: token),
                    case .integer(let id)? = json?["questionId"], case .string(let value)? = json?["value"]
                else { return refuse() }
                seen.withLock { $0.submits[member, default: []].append("\(id)=\(value)") }
                return .respond(EncodedResponse(.json(200, Array("{}".utf8))))
            }
            return refuse()
        }

        private func refuse() -> HTTPServerAction {
            seen.withLock { $0.refused += 1 }
            return .respond(EncodedResponse(.json(401, Array("{}".utf8))))
        }
    }

    @Test func everyRespondentLogsInWithItsRowAndCarriesItsOwnSession() async throws {
        let backend = Backend()
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, handler: backend.handle)
        let directory = try TemporaryDirectory()
        _ = try directory.write(
            "people.csv", "member,colour,answer.2\r\nm-ann,\"blue, dark\",because\r\nm-bob,red,\r\nm-cy,\"say \"\"green\"\"\",sure\r\n")
        let plan = try directory.write(
            "login.plan",
            """
            target: http://127.0.0.1:\(server.port)/v2
            respondents: 10
            concurrency: 2
            seed: 3
            data: people.csv
            data_order: unique
            api:
              login: /session
              login_body: '{"member": ${row.member}}'
              capture:
                token: $.data.token
                sid: header x-session-id
              questions: GET /questions?token=${session.token}&sid=${session.sid}
              questions_list: data.items
              question_id: qid
              question_text: text
              submit: POST /answers
              submit_body: '{"questionId": ${question.id}, "value": ${answer}, "token": ${session.token}}'
            answers:
              1: ${row.colour}
              "*": no reason
            report:
              formats: [json, markdown, text]
            """)
        try await tearingDown(
            after: {
                let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path])
                #expect(await run.wait(seconds: 30) == 0, "\(run.standardError)")
                let seen = backend.seen.withLock { $0 }
                #expect(seen.refused == 0)
                #expect(seen.logins == ["m-ann": 1, "m-bob": 1, "m-cy": 1])
                #expect(seen.questions == ["m-ann": 1, "m-bob": 1, "m-cy": 1])
                #expect(seen.submits["m-ann"]?.sorted() == ["1=blue, dark", "2=because"])
                #expect(seen.submits["m-bob"]?.sorted() == ["1=red", "2=no reason"])
                #expect(seen.submits["m-cy"]?.sorted() == ["1=say \"green\"", "2=sure"])

                let report = try RunReport.read(path: directory.path + "/login-latest.json")
                #expect(report.stoppedBy == "data")
                #expect(report.stepReports["login"]?.calls == 3)
                #expect(report.respondents.started == 3 && report.respondents.completed == 3)
                // No value of the data file, and no captured one, in any output.
                var outputs = [run.standardOutput, run.standardError]
                for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasPrefix("login-") {
                    outputs.append(try String(contentsOfFile: directory.path + "/" + file, encoding: .utf8))
                }
                for secret in ["m-ann", "m-bob", "dark", "because", "tok-", "sid-"] {
                    #expect(!outputs.contains { $0.contains(secret) }, "\(secret) was shown")
                }
            },
            {
                await server.shutdown()
                group.shutdown()
            })
    }

    /// Values of plans/data/respondents.csv: none may be shown.
    static let rowValues = ["m-001", "m-004", "m-008", "north", "yellow", "green", "yes, often", "sometimes", "purple"]

    /// The sessions a reference server with `seed` hands out first: the same in every run.
    static func sessions(seed: UInt64, count: Int) -> [SessionBook.Session] {
        let book = SessionBook()
        return (0..<count).compactMap { _ in book.open(seed: seed) }
    }

    /// The standard output and error of `run`, and every file it wrote in `directory`.
    static func outputs(of run: ChildProcess, in directory: TemporaryDirectory) throws -> [String: String] {
        var outputs = ["stdout": run.standardOutput, "stderr": run.standardError]
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            outputs[file] = try String(contentsOfFile: directory.path + "/" + file, encoding: .utf8)
        }
        return outputs
    }

    /// Fails for every secret that some output shows.
    static func expectNone(of secrets: [String], in outputs: [String: String], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        for secret in secrets {
            for (name, text) in outputs where text.contains(secret) {
                Issue.record("\(name) shows \(secret)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func theDataDrivenPlanLogsInEveryRespondentAgainstTheBuiltinServerUntilItsRowsRunOut() async throws {
        let directory = try TemporaryDirectory()
        let run = try ChildProcess(
            surveyBot: ["run", repositoryPath("plans/data-driven.plan"), "--out", directory.path, "--format", "json,markdown,text"])
        #expect(await run.wait(seconds: 30) == 0, "\(run.standardError)")
        let report = try RunReport.read(path: directory.path + "/data-driven-latest.json")
        #expect(report.stoppedBy == "data")
        #expect(report.respondents.started == 8 && report.respondents.completed == 8)
        #expect(report.answers.submitted == 40)
        #expect(report.plan.data == "data/respondents.csv: 8 rows, unique")
        // One login each, and no call refused for want of its session.
        #expect(report.stepReports["login"]?.status == ["200": 8])
        #expect(report.stepReports["questions"]?.status == ["200": 8])
        #expect(report.stepReports["submit"]?.status == ["200": 40])
        #expect(run.standardOutput.contains("stopped when the data rows ran out"), "\(run.standardOutput)")
        // The builtin server of a run with seed 7 handed out these sessions: neither their
        // tokens nor their cookies' values, nor any row value, may be shown.
        let sessions = Self.sessions(seed: 7, count: 8)
        let outputs = try Self.outputs(of: run, in: directory)
        #expect(outputs.keys.contains { $0.hasSuffix(".md") } && outputs.keys.contains { $0.hasSuffix(".txt") })
        Self.expectNone(of: Self.rowValues + sessions.map(\.token) + sessions.map(\.id), in: outputs)
    }

    @Test func everyRespondentOfTheDataDrivenPlanUsesItsOwnTokenAndCookie() async throws {
        // The same plan against `serve --login`, whose `/__stats` counts the survey calls
        // admitted with each token — and only with that token's own session cookie.
        let (server, url) = try await startServer(["--login", "--questions", "5", "--seed", "3"])
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let run = try ChildProcess(
            surveyBot: ["run", repositoryPath("plans/data-driven.plan"), "--target", url, "--out", directory.path, "--format", "json,text"])
        #expect(await run.wait(seconds: 30) == 0, "\(run.standardError)")
        let stats = try await fetchStats(url)
        #expect(stats.endpoints["session"] == ["200": 8], "\(stats)")
        #expect(stats.endpoints["questions"] == ["200": 8], "\(stats)")
        #expect(stats.endpoints["submit"] == ["200": 40], "\(stats)")
        // Eight logins, eight tokens, each carried (with its cookie) by one respondent's
        // questions call and five submits: no respondent used another's session.
        let sessions = Self.sessions(seed: 3, count: 8)
        #expect(stats.sessions == Dictionary(uniqueKeysWithValues: sessions.map { ($0.token, 6) }), "\(stats)")
        let report = try RunReport.read(path: directory.path + "/data-driven-latest.json")
        #expect(report.stepReports["login"]?.calls == 8)
        Self.expectNone(of: Self.rowValues + sessions.map(\.token) + sessions.map(\.id), in: try Self.outputs(of: run, in: directory))
    }

    @Test func aMalformedDataFileStopsTheRunBeforeAnythingIsSent() async throws {
        let backend = Backend()
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, handler: backend.handle)
        let directory = try TemporaryDirectory()
        let data = try directory.write("people.csv", "member,colour\nm-ann,blue\nm-bob,\"red\n")
        let plan = try directory.write(
            "bad.plan", "target: http://127.0.0.1:\(server.port)\ndata: people.csv\nanswers:\n  \"*\": ${row.colour}\n")
        try await tearingDown(
            after: {
                let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path])
                #expect(await run.wait(seconds: 30) == 2)
                #expect(run.standardError.contains("\(data):3:7: error: a quoted field is not closed"), "\(run.standardError)")
                #expect(server.connectionsAccepted == 0)
            },
            {
                await server.shutdown()
                group.shutdown()
            })
    }
}
