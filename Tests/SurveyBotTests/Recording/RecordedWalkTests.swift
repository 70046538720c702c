import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport
@testable import SurveyWire

/// Walks no one here wrote by hand: headless Chromium, driven by Playwright, through the
/// reference server (`Fixtures/record.py`, `Fixtures/README.md`). Each is imported, checked by
/// `validate`, and the plan, unedited but for its target, runs several respondents against the
/// builtin server of the same shape.
@Suite struct RecordedWalkTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

    /// The JSON-RPC walk's login, which its import makes variables: the recorded user and the
    /// dummy password `record.py` typed (the reference server takes any).
    static let rpcLogin = ["SURVEY_USER": "admin", "SURVEY_PASSWORD": "dummy-Passw0rd"]

    static func load(_ name: String) throws -> HARFile {
        try HARFile.read(path: "\(fixtures)/\(name)").get()
    }

    @Test func thePagesWalkImportsIntoItsSteps() throws {
        let walk = try Self.load("pages-walk1.har")
        let again = try Self.load("pages-walk2.har")
        let imported = try RecordingImport.make(walk, again: again, options: .init(name: "pages", source: "pages-walk1.har")).get()
        let plan = RecordingImportTests.plan(imported)
        #expect(imported.names == ["stats", "sessions", "sessions_2", "sessions_2", "sessions_2", "sessions_3"])
        #expect(plan.contains("  sessions:\n    request: POST /sessions\n"))
        #expect(
            plan.contains(
                "    questions: $.questions\n    question_id: id\n    question_text: text\n    capture:\n      session: $.session\n"))
        #expect(plan.contains("  sessions_2:\n    request: POST /sessions/${session.session}\n    runs: per_page\n"))
        #expect(plan.contains("    body: '{\"answers\": ${answers}}'\n    questions: $.questions\n"))
        #expect(plan.contains("  sessions_3:\n    request: DELETE /sessions/${session.session}\n"))
        #expect(
            plan.hasSuffix(
                "answers:\n  q1: [\"light red\", \"pale pink\"]\n  q2: [\"dark green\", \"deep blue\"]\n  q3: [\"sky blue\", \"warm grey\"]\n"
                    + "  q4: [\"light red\", \"pale pink\"]\n  q5: [\"dark green\", \"deep blue\"]\n  q6: [\"sky blue\", \"warm grey\"]\n"
                    + "  q7: [\"light red\", \"pale pink\"]\n"
            ))
        #expect(plan.contains("    expect:\n      - status == 201\n") == false)
        #expect(imported.summary.contains { $0.hasPrefix("correlation: ${session.session} from step 'sessions' (its JSON $.session) → ") })
        // The answers that differ between the walks are the answers' lists, not values sent as the first walk has them.
        #expect(imported.summary.contains { $0.contains("are a page loop") && $0.hasSuffix("one is picked per respondent)") })
        #expect(!imported.summary.contains { $0.contains("sends at JSON $.answers.") })
    }

    @Test func theLoginWalkSendsItsTokenBackAsTheBrowserDid() throws {
        let imported = try RecordingImport.make(try Self.load("login-walk.har"), options: .init(name: "login", source: "login-walk.har"))
            .get()
        let plan = RecordingImportTests.plan(imported)
        #expect(imported.names == ["stats", "session", "questions", "submit", "submit_2", "submit_3", "session_2"])
        #expect(plan.contains("    capture:\n      token: $.token\n"))
        #expect(plan.contains("      Authorization: Bearer ${session.token}\n"))
        #expect(imported.secrets.isEmpty)
        #expect(!plan.contains("Cookie"))
    }

    /// LimeSurvey RemoteControl's shape (`serve --api jsonrpc`): every call a POST to `/rpc`, the
    /// session key `get_session_key` returned sent back first in each later call's `params`.
    @Test func theJSONRPCWalkSendsItsSessionKeyInEachCallsParams() throws {
        let walk = try Self.load("jsonrpc-walk1.har")
        let again = try Self.load("jsonrpc-walk2.har")
        let imported = try RecordingImport.make(walk, again: again, options: .init(name: "rpc", source: "jsonrpc-walk1.har")).get()
        let plan = RecordingImportTests.plan(imported)
        #expect(imported.names == ["stats", "rpc", "rpc_2", "rpc_3", "rpc_4"])
        #expect(plan.contains("    capture:\n      result: $.result\n"))
        for call in ["list_questions", "add_response", "release_session_key"] {
            #expect(plan.contains("\"method\": \"\(call)\", \"params\": [${session.result}"), "\(call)")
        }
        #expect(plan.contains("\"900001X1X1\": \"light red\", \"900001X1X2\": \"dark green\""))
        #expect(
            imported.summary.contains {
                $0.hasPrefix("correlation: ${session.result} from step 'rpc' (its JSON $.result) → step 'rpc_2' JSON $.params[0]")
            })
        // The login's positional parameters, which no member names, are the user's and the password's variables.
        #expect(plan.contains(#"body: "{\"method\": \"get_session_key\", \"params\": [\"${SURVEY_USER}\", \"${SURVEY_PASSWORD}\"]"#))
        #expect(imported.secrets.map(\.name) == ["SURVEY_USER", "SURVEY_PASSWORD"])
        #expect(!plan.contains("Passw0rd") && !imported.summary.joined().contains("Passw0rd"))
    }

    /// The JSON-RPC walk's plan, unedited but for its target, against the reference server of its
    /// shape on loopback: every respondent's `add_response` is stored with its four answers, none
    /// refused inside its `200` (which the run alone would not see).
    @Test func theJSONRPCPlanStoresEachRespondentsResponse() async throws {
        let directory = try TemporaryDirectory()
        let plan = directory.path + "/rpc.plan"
        let imported = await runCommand(["import", "\(Self.fixtures)/jsonrpc-walk1.har", "--no-think", "--output", plan])
        #expect(imported.status == .success, "\(imported.err)")
        #expect(!imported.err.contains("Passw0rd") && !imported.out.contains("Passw0rd"))
        var configuration = ReferenceServerConfiguration()
        configuration.api = .jsonRPC
        configuration.questions = .builtin(count: 4)
        let group = EventLoopGroup(threads: 1)
        let server = try ReferenceServer(configuration: configuration, group: group)
        try await tearingDown(after: {
            let run = await runCommand(
                [
                    "run", plan, "--target", "http://127.0.0.1:\(server.port)", "--respondents", "3", "--out", directory.path, "--format",
                    "json",
                ], environment: Self.rpcLogin)
            #expect(run.status == .success, "\(run.err)\n\(run.out)")
            let stats = server.stats()
            #expect(stats.stored == (3, 12))
            #expect(stats.endpoints["submit"] == ["200": 3])
            #expect(stats.endpoints["session"] == ["200": 6])
        }) {
            await server.shutdown()
            group.shutdown()
        }
    }

    /// The imported plans run as they are against the builtin server of the recorded shape,
    /// and every respondent completes: the server's own counts agree.
    @Test(arguments: [
        // The builtin server's check of answers names its questions 1, 2, …, the pages shape's q1, q2, …:
        // a fallback satisfies it, and is never sent, since every question has its recorded answer.
        ("pages-walk1.har", ["--set", "builtin.api=pages", "--set", "builtin.questions=7", "--set", "answers.*=never-sent"]),
        ("login-walk.har", ["--set", "builtin.login=true", "--set", "builtin.questions=3"]),
        ("jsonrpc-walk1.har", ["--set", "builtin.api=jsonrpc", "--set", "builtin.questions=4"]),
    ])
    func theImportedPlanRunsAgainstTheServerItWasRecordedFrom(recording: String, server: [String]) async throws {
        let directory = try TemporaryDirectory()
        let plan = directory.path + "/walk.plan"
        let imported = await runCommand(["import", "\(Self.fixtures)/\(recording)", "--no-think", "--output", plan])
        #expect(imported.status == .success, "\(imported.err)")
        let run = await runCommand(
            ["run", plan, "--target", "builtin", "--respondents", "4", "--concurrency", "2", "--out", directory.path, "--format", "json"]
                + server, environment: recording.hasPrefix("jsonrpc") ? Self.rpcLogin : [:])
        #expect(run.status == .success, "\(run.err)\n\(run.out)")
        let report = try RunReport.read(path: directory.path + "/walk-latest.json")
        #expect(report.respondents.completed == 4)
    }
}
