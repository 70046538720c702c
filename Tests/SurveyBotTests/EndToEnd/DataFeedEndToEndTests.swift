import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport

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
                #expect(report.endpoints["login"]?.calls == 3)
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

    @Test func theDataDrivenPlanRunsAgainstTheBuiltinServerUntilItsRowsRunOut() async throws {
        let directory = try TemporaryDirectory()
        let run = try ChildProcess(surveyBot: ["run", repositoryPath("plans/data-driven.plan"), "--out", directory.path])
        #expect(await run.wait(seconds: 30) == 0, "\(run.standardError)")
        let report = try RunReport.read(path: directory.path + "/data-driven-latest.json")
        #expect(report.stoppedBy == "data")
        #expect(report.respondents.started == 8 && report.respondents.completed == 8)
        #expect(report.answers.submitted == 40)
        #expect(report.plan.data == "data/respondents.csv: 8 rows, unique")
        #expect(run.standardOutput.contains("stopped when the data rows ran out"), "\(run.standardOutput)")
        // Values of plans/data/respondents.csv: none may be shown.
        let values = ["m-001", "m-004", "north", "yellow", "yes, often", "sometimes", "purple"]
        let outputs = [
            run.standardOutput, run.standardError, try String(contentsOfFile: directory.path + "/data-driven-latest.json", encoding: .utf8),
        ]
        for value in values {
            #expect(!outputs.contains { $0.contains(value) }, "\(value) was shown")
        }
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
