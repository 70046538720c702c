import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// A JSON-RPC survey API that refuses inside a `200`, as JSON-RPC servers do: without `expect`
/// a run of it reports every answer stored, with `expect` the report counts exactly the answers
/// the server stored and names why the others were refused.
@Suite struct InBandErrorsEndToEndTests {
    /// One POST endpoint: `open` (a key), `questions`, `answer` (refused in band for every third
    /// call, by count), `close`. Counts the rows it stored.
    final class RPC: Sendable {
        let state = Mutex<(answers: Int, stored: Int, refused: Int, keys: Int, closed: Int)>((0, 0, 0, 0, 0))

        func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
            guard request.method == "POST", request.pathWithoutQuery == "/rpc", case .success(let call) = JSONValue.parse(request.body),
                case .string(let method)? = call["method"]
            else { return reply(#"{"id":null,"result":null,"error":{"code":-32600,"message":"Invalid Request"}}"#) }
            switch method {
            case "open":
                let key = state.withLock { state -> Int in
                    state.keys += 1
                    return state.keys
                }
                return reply(#"{"id":1,"result":"key-\#(key)","error":null}"#)
            case "questions":
                return reply(
                    #"{"id":1,"result":[{"qid":"A1","title":"a"},{"qid":"A2","title":"b"},{"qid":"A3","title":"c"}],"error":null}"#)
            case "answer":
                let refused = state.withLock { state -> Bool in
                    state.answers += 1
                    let refused = state.answers % 3 == 0
                    if refused { state.refused += 1 } else { state.stored += 1 }
                    return refused
                }
                return reply(
                    refused ? #"{"id":1,"result":{"status":"Invalid session key"},"error":null}"# : #"{"id":1,"result":7,"error":null}"#)
            case "close":
                state.withLock { $0.closed += 1 }
                return reply(#"{"id":1,"result":"OK","error":null}"#)
            default:
                return reply(#"{"id":1,"result":null,"error":{"code":-32601,"message":"Method not found"}}"#)
            }
        }

        private func reply(_ body: String) -> HTTPServerAction {
            .respond(EncodedResponse(.json(200, Array(body.utf8))))
        }
    }

    static func plan(port: Int, expect: Bool) -> String {
        let check = expect ? "    expect:\n      - $.error not exists\n      - $.result.status not exists\n" : ""
        return """
            name: rpc
            target: http://127.0.0.1:\(port)
            respondents: 10
            concurrency: 2
            seed: 4
            journey:
              open:
                request: POST /rpc
                body: '{"method": "open", "params": []}'
                capture:
                  key: $.result
              questions:
                request: POST /rpc
                body: '{"method": "questions", "params": [${session.key}]}'
                questions: $.result
                question_id: qid
                question_text: title
              answer:
                request: POST /rpc
                body: '{"method": "answer", "params": [${session.key}, ${question.id}, ${answer}]}'
                runs: per_question
            \(check)    retry:
                  attempts: 1
              close:
                request: POST /rpc
                body: '{"method": "close", "params": [${session.key}]}'
                always: true
            answers:
              "*": yes
            thresholds:
              answer.success_rate: ">= 99%"

            """
    }

    @Test func aRefusalInsideA200IsRejectedAndTheReportAgreesWithWhatTheServerStored() async throws {
        let directory = try TemporaryDirectory()
        var outcomes: [(report: RunReport, status: Int32, stored: Int, refused: Int)] = []
        for expect in [false, true] {
            let rpc = RPC()
            let group = EventLoopGroup(threads: 1)
            let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, handler: rpc.handle)
            try await tearingDown(
                after: {
                    let plan = try directory.write("rpc.plan", Self.plan(port: server.port, expect: expect))
                    let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path, "--quiet"])
                    let status = await run.wait(seconds: 30)
                    let report = try RunReport.read(path: directory.path + "/rpc-latest.json")
                    let counts = rpc.state.withLock { $0 }
                    #expect(counts.keys == 10 && counts.closed == 10)
                    outcomes.append((report, status, counts.stored, counts.refused))
                },
                {
                    await server.shutdown()
                    group.shutdown()
                })
        }
        let (blind, blindStatus, blindStored, blindRefused) = outcomes[0]
        // Without checks, every answer looks stored, and the run passes: the failure the issue saw.
        #expect(blind.answers.submitted == 30 && blindStatus == 0)
        #expect(blindStored == 20 && blindRefused == 10)
        let (checked, status, stored, refused) = outcomes[1]
        #expect(status == 1, "the answer threshold fails: a third were refused")
        #expect(checked.answers.submitted == stored && checked.answers.unanswered == refused)
        let answer = try #require(checked.stepReports["answer"])
        #expect(answer.errors == ["rejected": refused])
        // A refused attempt counts as its error, not as its status, as a malformed body does.
        #expect(answer.status == ["200": stored])
        #expect(answer.errorSamples?["rejected"] == #"check '$.result.status not exists' failed: found "Invalid session key""#)
        #expect(checked.stepReports["close"]?.succeeded == 10)
    }
}
