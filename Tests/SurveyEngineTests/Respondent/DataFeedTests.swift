import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// Respondents with their own data: rows, variables, answers from rows, look-alike shapes, and
/// the login with its captures.
@Suite struct DataFeedTests {
    static let rows = RespondentData(
        columns: ["member", "panel", "colour", "answer.2"],
        rows: [["m 1", "north/x", "blue \"sky\"", ""], ["m2", "south", "red", "from row"]])

    func dataContext(
        _ transport: ScriptedTransport, api: SurveyAPI = SurveyAPI(), data: RespondentData? = rows,
        answers: AnswerBook = AnswerBook(fallback: ["x"]), login: RetryPolicy = .never,
        recorder: MetricsRecorder = MetricsRecorder(lanes: 1)
    ) throws -> SurveyContext {
        var configuration = RunConfiguration(load: .closed(respondents: 1), api: api, answers: answers)
        configuration.data = data
        configuration.retry[.login] = login
        let requests = try SurveyRequests(api: api, target: target, columns: data?.columns ?? [])
        return SurveyContext(
            configuration: configuration, requests: requests, seed: 1, transport: transport, clock: VirtualClock().clock,
            recorder: recorder, interruption: OnceFlag(), runStart: 1_000_000_000)
    }

    @Test func rowValuesGoIntoPathHeadersAndBodyEachEncodedForItsPlace() async throws {
        var api = SurveyAPI(
            questions: .init(method: "GET", path: "/panels/${row.panel}/questions"),
            submit: .init(method: "POST", path: "/q/${question.id}"),
            headers: [HTTPHeader(name: "X-Member", value: "${row.member}"), HTTPHeader(name: "X-N", value: "${respondent.id}")])
        api.submitBody = #"{"qid": ${question.id}, "value": ${answer}, "note": "by ${row.member}", "who": ${respondent.id}}"#
        let transport = ScriptedTransport(survey(questions: #"[{"id":7,"question":"a"}]"#))
        var respondent = Respondent(index: 5, seed: 1, lane: 0, row: 0)
        let result = await respondent.run(
            try dataContext(transport, api: api, answers: AnswerBook(fallback: ["${row.colour}"])))
        #expect(result.ending == .completed)
        let sent = transport.sent
        #expect(sent.map(\.path) == ["/panels/north%2Fx/questions", "/q/7"])
        #expect(sent[0].head.contains("X-Member: m 1\r\n"))
        #expect(sent[0].head.contains("X-N: 5\r\n"))
        #expect(sent[1].body == #"{"qid": 7, "value": "blue \"sky\"", "note": "by m 1", "who": 5}"#)
    }

    @Test func answerColumnsAnswerTheirQuestionAndEmptyCellsFallBack() async throws {
        let transport = ScriptedTransport(survey())
        var first = Respondent(index: 0, seed: 1, lane: 0, row: 0)
        var second = Respondent(index: 1, seed: 1, lane: 0, row: 1)
        let context = try dataContext(transport, answers: AnswerBook(byQuestion: [1: ["${row.colour}"]], fallback: ["x"]))
        _ = await first.run(context)
        _ = await second.run(context)
        let bodies = transport.sent.filter { $0.method == "POST" }.map(\.body)
        #expect(
            bodies == [
                #"{"id":1,"answer":"blue \"sky\""}"#, #"{"id":2,"answer":"x"}"#, #"{"id":3,"answer":"x"}"#,
                #"{"id":1,"answer":"red"}"#, #"{"id":2,"answer":"from row"}"#, #"{"id":3,"answer":"x"}"#,
            ])
    }

    @Test func lookAlikeQuestionsAreFoundByTheirShape() async throws {
        var api = SurveyAPI()
        api.questionsList = JSONPath(names: ["data", "items"])
        api.questionID = JSONPath(names: ["qid"])
        api.questionText = JSONPath(names: ["text"])
        let transport = ScriptedTransport(survey(questions: #"{"data":{"items":[{"qid":4,"text":"a"},{"qid":9,"text":"b"}]}}"#))
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(try dataContext(transport, api: api, data: nil))
        #expect(result == RespondentResult(ending: .completed, submitted: 2, unanswered: 0))
        #expect(transport.sent.filter { $0.method == "POST" }.map(\.body) == [#"{"id":4,"answer":"x"}"#, #"{"id":9,"answer":"x"}"#])
    }

    static func loginAPI(_ captures: [SurveyAPI.Capture]) -> SurveyAPI {
        var api = SurveyAPI(headers: [HTTPHeader(name: "Authorization", value: "Bearer ${session.token}")])
        api.login = .init(method: "POST", path: "/session")
        api.loginBody = #"{"member": ${row.member}}"#
        api.captures = captures
        return api
    }

    @Test func loginCapturesATokenThatLaterRequestsCarry() async throws {
        let transport = ScriptedTransport { sent, _ in
            switch sent.path {
            case "/session": ok(#"{"data":{"token":"t-\#(sent.body.contains("m2") ? 2 : 1)"}}"#)
            case "/questions": ok(questionsJSON)
            default: ok()
            }
        }
        let recorder = MetricsRecorder(lanes: 1)
        let context = try dataContext(
            transport, api: Self.loginAPI([.init(name: "token", source: .json(JSONPath(names: ["data", "token"])))]), recorder: recorder)
        var respondent = Respondent(index: 1, seed: 1, lane: 0, row: 1)
        let result = await respondent.run(context)
        #expect(result.ending == .completed)
        let sent = transport.sent
        #expect(sent.first?.path == "/session")
        #expect(sent.first?.body == #"{"member": "m2"}"#)
        #expect(sent.dropFirst().allSatisfy { $0.head.contains("Authorization: Bearer t-2\r\n") })
        #expect(recorder.snapshot()[.login].calls == 1)
        #expect(recorder.snapshot()[.login].succeeded == 1)
    }

    @Test func headerCaptureReadsTheResponseHeader() async throws {
        let transport = ScriptedTransport { sent, _ in
            switch sent.path {
            case "/session":
                .response(
                    TransportResponse(status: 200, headers: [HTTPHeader(name: "x-session-id", value: "s-9")]), serviceTime: .milliseconds(1)
                )
            case "/questions": ok(questionsJSON)
            default: ok()
            }
        }
        let context = try dataContext(transport, api: Self.loginAPI([.init(name: "token", source: .header("X-Session-Id"))]))
        var respondent = Respondent(index: 0, seed: 1, lane: 0, row: 0)
        #expect(await respondent.run(context).ending == .completed)
        #expect(transport.sent.last?.head.contains("Authorization: Bearer s-9\r\n") == true)
    }

    /// A login that answers a bare JSON string, or a JSON-RPC result, is captured by its path.
    @Test(arguments: [(#""k-7""#, "$"), (#"{"id":1,"result":"k-7","error":null}"#, "$.result"), (#"[{"key":"k-7"}]"#, "$[0].key")])
    func aCaptureTakesTheFirstValueItsPathSelects(body: String, path: String) async throws {
        let transport = ScriptedTransport { sent, _ in
            switch sent.path {
            case "/session": ok(body)
            case "/questions": ok(questionsJSON)
            default: ok()
            }
        }
        let context = try dataContext(transport, api: Self.loginAPI([.init(name: "token", source: .json(try JSONPath(parsing: path)))]))
        var respondent = Respondent(index: 0, seed: 1, lane: 0, row: 0)
        #expect(await respondent.run(context).ending == .completed)
        #expect(transport.sent.dropFirst().allSatisfy { $0.head.contains("Authorization: Bearer k-7\r\n") })
    }

    /// A captured JSON number goes out as the server wrote it, byte for byte: not through a
    /// `Double` that rounds 20 digits and writes `1e2` as `100.0`.
    @Test(arguments: ["12345678901234567890", "1e2", "1E+2", "0.10", "-0", "3.14159265358979323846", "123"])
    func aCapturedNumberIsSentAsItsJSONText(number: String) async throws {
        let transport = ScriptedTransport { sent, _ in
            switch sent.path {
            case "/session": ok(#"{"token": \#(number)}"#)
            case "/questions": ok(questionsJSON)
            default: ok()
            }
        }
        let context = try dataContext(
            transport, api: Self.loginAPI([.init(name: "token", source: .json(try JSONPath(parsing: "$.token")))]))
        var respondent = Respondent(index: 0, seed: 1, lane: 0, row: 0)
        #expect(await respondent.run(context).ending == .completed)
        #expect(transport.sent.count > 1)
        #expect(transport.sent.dropFirst().allSatisfy { $0.head.contains("Authorization: Bearer \(number)\r\n") })
    }

    /// A question field read as a number (`${question.gid}`) is its JSON text too.
    @Test func aNumericQuestionFieldIsItsJSONText() throws {
        guard case .array(let numbers) = try JSONValue.parse(Array(#"[1e2, 12345678901234567890, 0.10]"#.utf8)).get() else {
            Issue.record("not a list")
            return
        }
        #expect(numbers.map(\.json) == ["1e2", "12345678901234567890", "0.10"])
        #expect(numbers[0] == .number(100))
    }

    @Test func failedLoginAbandonsAfterItsRetries() async throws {
        let transport = ScriptedTransport { _, _ in status(503) }
        let recorder = MetricsRecorder(lanes: 1)
        let context = try dataContext(
            transport, api: Self.loginAPI([.init(name: "token", source: .json(JSONPath(names: ["token"])))]),
            login: retrying(2, on: ["5xx"]),
            recorder: recorder)
        var respondent = Respondent(index: 0, seed: 1, lane: 0, row: 0)
        #expect(await respondent.run(context).ending == .abandoned(.loginFailed))
        #expect(transport.sent.map(\.path) == ["/session", "/session"])
        #expect(recorder.snapshot().abandoned == [.loginFailed: 1])
    }

    @Test func missingCaptureAbandonsAndNamesTheCapture() async throws {
        let transport = ScriptedTransport { _, _ in ok(#"{"other":1}"#) }
        let recorder = MetricsRecorder(lanes: 1)
        let context = try dataContext(
            transport, api: Self.loginAPI([.init(name: "token", source: .json(JSONPath(names: ["token"])))]), recorder: recorder)
        var respondent = Respondent(index: 0, seed: 1, lane: 0, row: 0)
        #expect(await respondent.run(context).ending == .abandoned(.captureNotFound))
        #expect(transport.sent.count == 1)
        #expect(recorder.snapshot()[.login].errorSamples[.malformedResponse] == "capture 'token' not found at $.token")
    }

    @Test func captureWithALineBreakIsRefusedNotSent() async throws {
        let transport = ScriptedTransport { _, _ in ok(#"{"token":"a\r\nX-Evil: 1"}"#) }
        let context = try dataContext(transport, api: Self.loginAPI([.init(name: "token", source: .json(JSONPath(names: ["token"])))]))
        var respondent = Respondent(index: 0, seed: 1, lane: 0, row: 0)
        #expect(await respondent.run(context).ending == .abandoned(.captureNotFound))
        #expect(transport.sent.count == 1)
    }

    @Test func rowsAreTakenByOrderAndShardsNeverShareOne() {
        let data = RespondentData(columns: ["a"], rows: (0..<5).map { [String($0)] }, order: .sequential)
        #expect((0..<7).map { data.row(forRespondent: $0, seed: 1) } == [0, 1, 2, 3, 4, 0, 1])
        var unique = data
        unique.order = .unique
        #expect((0..<7).map { unique.row(forRespondent: $0, seed: 1) } == [0, 1, 2, 3, 4, nil, nil])
        for order in DataOrder.allCases {
            var sharded = data
            sharded.order = order
            let first = Set(
                (0..<20).filter { $0 % 2 == 0 }.compactMap { sharded.row(forRespondent: $0, shard: Shard(index: 1, count: 2), seed: 3) })
            let second = Set(
                (0..<20).filter { $0 % 2 == 1 }.compactMap { sharded.row(forRespondent: $0, shard: Shard(index: 2, count: 2), seed: 3) })
            #expect(first.isDisjoint(with: second), "\(order)")
            #expect(first.union(second) == Set(0..<5), "\(order)")
        }
        var random = data
        random.order = .random
        #expect((0..<10).map { random.row(forRespondent: $0, seed: 9) } == (0..<10).map { random.row(forRespondent: $0, seed: 9) })
    }

    @Test func uniqueRowsRunningOutStopTheRunAndSayWhy() async throws {
        var configuration = RunConfiguration(load: .closed(respondents: 10), concurrency: 2, seed: 1)
        configuration.data = RespondentData(columns: ["a"], rows: [["1"], ["2"], ["3"]], order: .unique)
        let transport = ScriptedTransport(survey())
        let coordinator = try RunCoordinator(configuration: configuration, target: target, transport: transport)
        let result = await coordinator.run()
        #expect(result.metrics.respondentsStarted == 3)
        #expect(result.stoppedBy == .data)
    }

    @Test func shardsOfARunTakeDisjointRowsAndTogetherEveryRowOnce() async throws {
        var rowsSeen: [[String]] = []
        for index in 1...2 {
            var configuration = RunConfiguration(
                load: .closed(respondents: 10), concurrency: 2, seed: 1, shard: Shard(index: index, count: 2))
            configuration.api.questions = .init(method: "GET", path: "/q/${row.a}")
            configuration.data = RespondentData(columns: ["a"], rows: (0..<5).map { ["r\($0)"] }, order: .unique)
            let transport = ScriptedTransport(survey())
            let result = await (try RunCoordinator(configuration: configuration, target: target, transport: transport)).run()
            #expect(result.stoppedBy == .data)
            rowsSeen.append(transport.sent.filter { $0.method == "GET" }.map(\.path).sorted())
        }
        #expect(rowsSeen == [["/q/r0", "/q/r2", "/q/r4"], ["/q/r1", "/q/r3"]])
    }

    @Test func openModelArrivalsStopWhenTheRowsRunOut() async throws {
        var configuration = RunConfiguration(
            load: .open(rate: Rate(perSecond: 1000), ramp: []), concurrency: 10, duration: .seconds(1), seed: 1)
        configuration.data = RespondentData(columns: ["a"], rows: [["1"], ["2"]], order: .unique)
        let transport = ScriptedTransport(survey())
        let result = await
            (try RunCoordinator(configuration: configuration, target: target, transport: transport, clock: VirtualClock().clock))
            .run()
        #expect(result.metrics.respondentsStarted == 2)
        #expect(result.stoppedBy == .data)
    }

    @Test func aRowThatWouldBreakAHeaderStopsTheRunBeforeAnythingIsSent() {
        var configuration = RunConfiguration(load: .closed(respondents: 1), seed: 1)
        configuration.api.headers = [HTTPHeader(name: "X-Member", value: "${row.member}")]
        configuration.data = RespondentData(columns: ["member"], rows: [["ok"], ["bad\r\nX-Evil: 1"]])
        let transport = ScriptedTransport(survey())
        #expect(throws: HTTPSyntaxError.self) {
            _ = try RunCoordinator(configuration: configuration, target: target, transport: transport)
        }
        #expect(transport.sent.isEmpty)
    }

    @Test func templatesAreReadOnceIntoLiteralsAndVariables() throws {
        let template = try TextTemplate(parsing: "/p/${row.a}/${respondent.id}?q=${session.t}")
        #expect(
            template.segments == [
                .literal("/p/"), .variable(.row("a")), .literal("/"), .variable(.respondentID), .literal("?q="), .variable(.session("t")),
            ])
        #expect(throws: TemplateError.self) { try TextTemplate(parsing: "${rows.a}") }
        #expect(throws: TemplateError.self) { try TextTemplate(parsing: "${row.a") }
    }

    /// No value leaves its path segment: `.` and `..` alone go out percent-encoded, not as dot
    /// segments a server or proxy would resolve (`/surveys/../questions` is `/questions`).
    @Test func aDotOrTwoDotsStayInTheirPathSegment() throws {
        let template = try CompiledTemplate(
            TextTemplate(parsing: "/s/${row.a}/q/${row.b}/${row.c}"), .path, columns: ["a", "b", "c"], captures: [])
        let path = template.string(CompiledTemplate.Values(row: ["..", ".", "..a"], respondentID: 0, session: []))
        #expect(path == "/s/%2E%2E/q/%2E/..a")
    }

    @Test func jsonValuesCannotBreakTheBody() throws {
        let template = try CompiledTemplate(
            TextTemplate(parsing: #"{"a": ${row.a}, "b": "x${row.a}", "n": ${question.id}}"#), .json, columns: ["a"], captures: [])
        let values = CompiledTemplate.Values(row: ["\"}, \"evil\": \"\\\n"], respondentID: 0, session: [], questionID: 42)
        let body = template.string(values)
        #expect(body == #"{"a": "\"}, \"evil\": \"\\\n", "b": "x\"}, \"evil\": \"\\\n", "n": 42}"#)
        guard case .success(let parsed) = JSONValue.parse(Array(body.utf8)) else {
            Issue.record("not JSON: \(body)")
            return
        }
        #expect(parsed["evil"] == nil)
    }
}
