import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// A backend whose question ids are strings, as many survey platforms' are (`q1`,
/// LimeSurvey's `900001X1X2`), served in the test on loopback: the plan answers them by name,
/// a data column `answer.<id>` answers one, and each id goes back as the API gave it — a JSON
/// string in the body, percent-encoded in the path.
@Suite struct StringIDsEndToEndTests {
    /// What the backend saw: each submit's path and its JSON body's `id` and `value`.
    final class Backend: Sendable {
        let submits = Mutex<[(path: String, id: JSONValue?, value: JSONValue?)]>([])

        func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
            if request.pathWithoutQuery == "/questions" {
                let body = #"[{"id":"q1","question":"colour?"},{"id":"9X1 2","question":"food?"},{"id":3,"question":"age?"}]"#
                return .respond(EncodedResponse(.json(200, Array(body.utf8))))
            }
            let json = try? JSONValue.parse(request.body).get()
            submits.withLock { $0.append((request.path, json?["id"], json?["value"])) }
            return .respond(EncodedResponse(.json(200, Array("{}".utf8))))
        }
    }

    @Test func stringIdsAreAnsweredByNameAndSentBackAsTheAPIGaveThem() async throws {
        let backend = Backend()
        let group = EventLoopGroup(threads: 1)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, handler: backend.handle)
        let directory = try TemporaryDirectory()
        _ = try directory.write("people.csv", "member,answer.9X1 2\r\nann,pasta\r\n")
        let plan = try directory.write(
            "ids.plan",
            """
            target: http://127.0.0.1:\(server.port)
            respondents: 2
            concurrency: 1
            data: people.csv
            api:
              submit: POST /answers/${question.id}
              submit_body: '{"id": ${question.id}, "value": ${answer}}'
            answers:
              q1: blue
              3: "42"
            report:
              formats: [json]
            """)
        try await tearingDown(
            after: {
                let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path, "--quiet"])
                #expect(await run.wait(seconds: 30) == 0, "\(run.standardError)")
                let submits = backend.submits.withLock { $0 }
                #expect(submits.count == 6)
                for submit in submits {
                    switch submit.path {
                    case "/answers/q1": #expect(submit.id == .string("q1") && submit.value == .string("blue"))
                    case "/answers/9X1%202": #expect(submit.id == .string("9X1 2") && submit.value == .string("pasta"))
                    case "/answers/3": #expect(submit.id == .integer(3) && submit.value == .string("42"))
                    default: Issue.record("unexpected submit to \(submit.path)")
                    }
                }
                let report = try RunReport.read(path: directory.path + "/ids-latest.json")
                #expect(report.respondents.completed == 2)
                #expect(report.answers.submitted == 6)
            },
            {
                await server.shutdown()
                group.shutdown()
            })
    }

    /// A plan answers the reference server's string ids by name, and its submits name them as
    /// strings, which the server takes (`ReferenceServerTests` checks it refuses the wrong type).
    @Test func theReferenceServerServesStringIds() async throws {
        let directory = try TemporaryDirectory()
        let questions = try directory.write("q.json", #"[{"id":"q1","question":"a"},{"id":2,"question":"b"}]"#)
        let run = await runCommand([
            "run", try directory.write("s.plan", "respondents: 3\nbuiltin:\n  questions_file: \(questions)\nanswers:\n  q1: x\n  2: y\n"),
            "--out", directory.path, "--quiet",
        ])
        #expect(run.status == .success, "\(run.err)")
        let report = try RunReport.read(path: directory.path + "/s-latest.json")
        #expect(report.stepReports["submit"]?.status == ["200": 6])
    }
}
