import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// A reference server serving the typed survey in `api` on loopback, a client for it, and teardown.
private func withTypedServer(
    _ api: SurveyStyle, faults: ServerFaults = ServerFaults(), _ body: (ReferenceServer, TypedClient) async throws -> Void
) async throws {
    var configuration = ReferenceServerConfiguration()
    configuration.api = api
    configuration.survey = .typed
    configuration.faults = faults
    let group = EventLoopGroup(threads: 2)
    let server = try ReferenceServer(configuration: configuration, group: group)
    let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
    let client = try HTTPClient(target: target, group: group, configuration: .init(timeout: .seconds(30)))
    try await tearingDown(after: { try await body(server, TypedClient(client: client, target: target)) }) {
        await client.shutdown()
        await server.shutdown()
        group.shutdown()
    }
}

/// Calls on the typed survey: each a status and the JSON body (`null` for none).
private struct TypedClient {
    let client: HTTPClient
    let target: HTTPTarget

    /// A failed call is recorded as an issue and reads as status 0.
    func call(_ method: String, _ path: String, _ body: String? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation) async -> (
        Int, JSONValue
    ) {
        do {
            let request = HTTPRequest(
                try HTTPRequest.Template(method: method, path: path, target: target), body: body.map { Array($0.utf8) }, collectBody: true)
            let response = try await client.send(request).received.get()
            return (response.status, response.body.isEmpty ? .null : try JSONValue.parse(response.body).get())
        } catch {
            Issue.record("\(method) \(path): \(error)", sourceLocation: sourceLocation)
            return (0, .null)
        }
    }

    /// Opens a `pages` session: its id and the first page's question ids.
    func open() async -> (String, [String]) {
        let (status, body) = await call("POST", "/sessions")
        #expect(status == 201)
        guard case .string(let session)? = body["session"] else {
            Issue.record("no session in \(body.json)")
            return ("", [])
        }
        return (session, ids(body))
    }

    /// Posts a page's answers (a JSON object) to a session: the status, the error or the next
    /// page's question ids.
    func page(_ session: String, _ answers: String) async -> (Int, String?, [String]) {
        let (status, body) = await call("POST", "/sessions/\(session)", "{\"answers\": \(answers)}")
        return (status, error(body), ids(body))
    }

    /// Posts a `one_post` response: the status and the error.
    func respond(_ pages: String) async -> (Int, String?) {
        let (status, body) = await call("POST", "/responses", "{\"pages\": \(pages)}")
        return (status, error(body))
    }

    private func ids(_ body: JSONValue) -> [String] {
        guard case .array(let questions)? = body["questions"] else { return [] }
        return questions.compactMap { if case .string(let id)? = $0["id"] { id } else { nil } }
    }

    private func error(_ body: JSONValue) -> String? {
        if case .string(let reason)? = body["error"] { reason } else { nil }
    }
}

/// Valid answers to every page, as a `one_post` response, with `q1` answered `colour`.
private func response(colour: String = "c1", why: String? = #""Because""#) -> String {
    let q5 = why.map { "{\"id\": \"q5\", \"answer\": \($0)}, " } ?? ""
    return """
        [{"id": "p1", "questions": [{"id": "q1", "answer": "\(colour)"}, {"id": "q3", "answer": 7}]}, \
        {"id": "p2", "questions": [\(q5){"id": "q6", "answer": "c2"}]}]
        """
}

@Suite struct TypedSurveyServerTests {
    @Test func aPageListsEachQuestionWithItsTypeChoicesBoundsAndRequiredFlag() async throws {
        try await withTypedServer(.pages) { _, client in
            let (status, body) = await client.call("POST", "/sessions")
            #expect(status == 201)
            let expected = """
                [{"id": "q1", "text": "Favourite colour?", "type": "single", "required": true,
                  "choices": [{"id": "c1", "label": "Red"}, {"id": "c2", "label": "Green"}, {"id": "c3", "label": "Blue"}]},
                 {"id": "q2", "text": "Which do you own?", "type": "multiple", "required": false,
                  "choices": [{"id": "c1", "label": "Car"}, {"id": "c2", "label": "Bike"}, {"id": "c3", "label": "Boat"}, {"id": "c4", "label": "Plane"}]},
                 {"id": "q3", "text": "How likely to recommend?", "type": "number", "required": true, "min": 0, "max": 10}]
                """
            let questions = try JSONValue.parse(Array(expected.utf8)).get()
            #expect(body["questions"] == questions)
            #expect(body["done"] == .bool(false))
        }
    }

    /// Page 1's answers, each refused (with its reason) or taken.
    @Test(
        arguments: [
            (#"{"q1": "c1", "q2": ["c1", "c3"], "q3": 7}"#, nil),
            (#"{"q1": "c1", "q3": "7"}"#, nil),
            (#"{"q1": "c3", "q3": 0}"#, nil),
            (#"{"q1": "c9", "q3": 7}"#, "q1: 'c9' is not one of its choices"),
            (#"{"q1": 1, "q3": 7}"#, "q1: expected a choice id (a string)"),
            (#"{"q1": "c1", "q2": "c1", "q3": 7}"#, "q2: expected a list of choice ids"),
            (#"{"q1": "c1", "q2": [], "q3": 7}"#, "q2: the list is empty: choose at least one, or leave the question out"),
            (#"{"q1": "c1", "q2": ["c1", "c1"], "q3": 7}"#, "q2: 'c1' is chosen twice"),
            (#"{"q1": "c1", "q2": ["c5"], "q3": 7}"#, "q2: 'c5' is not one of its choices"),
            (#"{"q1": "c1", "q3": 11}"#, "q3: 11 is above its maximum 10"),
            (#"{"q1": "c1", "q3": -1}"#, "q3: -1 is below its minimum 0"),
            (#"{"q1": "c1", "q3": 7.5}"#, "q3: 7.5 is not a whole number"),
            (#"{"q1": "c1", "q3": "seven"}"#, "q3: 'seven' is not a whole number"),
            (#"{"q1": "c1", "q3": true}"#, "q3: expected a whole number"),
            (#"{"q1": "c1"}"#, "q3 is required"),
            (#"{"q3": 7}"#, "q1 is required"),
            (#"{"q1": "c1", "q3": 7, "q4": "hi"}"#, "q4 is on page p3, not p1"),
            (#"{"q1": "c1", "q3": 7, "q9": "hi"}"#, "q9 is not a question of the survey"),
            (#"{"q1": "c1", "q1": "c2", "q3": 7}"#, "q1 is answered twice"),
        ] as [(String, String?)])
    func pagesTakeEachTypeAsItsTypeSays(answers: String, refusal: String?) async throws {
        try await withTypedServer(.pages) { server, client in
            let (session, _) = await client.open()
            let (status, error, next) = await client.page(session, answers)
            if let refusal {
                #expect(status == 400)
                #expect(error == refusal)
                #expect(server.stats().invalidSubmits == 1)
                #expect(server.stats().stored.answers == 0 && server.stats().answersByQuestion.isEmpty)
            } else {
                #expect(status == 200, "\(error ?? "")")
                #expect(next.contains("q6"))
            }
        }
    }

    @Test func theBranchQuestionIsOnItsPageExactlyWhenTheEarlierAnswerSelectsIt() async throws {
        try await withTypedServer(.pages) { server, client in
            let (red, _) = await client.open()
            let (green, _) = await client.open()
            #expect(await client.page(red, #"{"q1": "c1", "q3": 5}"#).2 == ["q5", "q6"])
            #expect(await client.page(green, #"{"q1": "c2", "q3": 5}"#).2 == ["q6"])
            // Not shown to green: refused; shown to red, and required: refused when left out.
            let notShown = await client.page(green, #"{"q5": "why not", "q6": "c1"}"#)
            #expect(notShown.0 == 400 && notShown.1 == "q5 is not shown: it is asked only when q1 is c1")
            let missing = await client.page(red, #"{"q6": "c1"}"#)
            #expect(missing.0 == 400 && missing.1 == "q5 is required")
            #expect(await client.page(red, #"{"q5": "bright", "q6": "c1"}"#).0 == 200)
            #expect(await client.page(green, #"{"q6": "c3"}"#).0 == 200)
            // The last page's questions are all optional: an empty page is taken, and the survey is done.
            let (status, body) = await client.call("POST", "/sessions/\(green)", #"{"answers": {}}"#)
            #expect(status == 200 && body["done"] == .bool(true) && body["questions"] == .array([]))
            let stats = server.stats()
            #expect(stats.shownByQuestion == ["q1": 2, "q2": 2, "q3": 2, "q5": 1, "q6": 2, "q7": 2, "q8": 2, "q4": 2])
            #expect(stats.stored.responses == 1)
        }
    }

    @Test func aPagePostedAgainAfterTheServerMovedOnIsAConflict() async throws {
        try await withTypedServer(.pages) { server, client in
            let (session, _) = await client.open()
            #expect(await client.page(session, #"{"q1": "c2", "q3": 3}"#).0 == 200)
            #expect(await client.page(session, #"{"q1": "c2", "q3": 3}"#).0 == 409)
            #expect(server.stats().answersByQuestion == ["q1": ["c2": 1], "q3": ["3": 1]])
        }
    }

    @Test func theWholeSurveyIsListedWithTheBranchsCondition() async throws {
        try await withTypedServer(.onePost) { server, client in
            let (status, body) = await client.call("GET", "/survey")
            #expect(status == 200)
            guard case .array(let pages)? = body["survey"]?["pages"] else {
                Issue.record("no pages in \(body.json)")
                return
            }
            let layout = pages.map { page -> String in
                guard case .string(let id)? = page["id"], case .array(let questions)? = page["questions"] else { return "?" }
                return id + ":" + questions.map { if case .string(let id)? = $0["id"] { id } else { "?" } }.joined(separator: ",")
            }
            #expect(layout == ["p1:q1,q2,q3", "p2:q5,q6", "p3:q7,q8,q4"])
            guard case .array(let second)? = pages[1]["questions"] else { return }
            #expect(second[0]["shown_if"] == .object([("question", .string("q1")), ("choice", .string("c1"))]))
            #expect(second[1]["shown_if"] == nil)
            #expect(second[0]["type"] == .string("text") && second[0]["required"] == .bool(true))
            #expect(server.stats().shownByQuestion.values.allSatisfy { $0 == 1 } && server.stats().shownByQuestion.count == 8)
        }
    }

    @Test func oneResponseRefusesTheBranchAnswerWhenItsConditionDoesNotHold() async throws {
        try await withTypedServer(.onePost) { server, client in
            #expect(await client.respond(response(colour: "c2")) == (400, "q5 is not shown: it is asked only when q1 is c1"))
            #expect(await client.respond(response(colour: "c1", why: nil)) == (400, "q5 is required"))
            #expect(await client.respond(response(colour: "c2", why: nil)).0 == 201)
            #expect(await client.respond(response(colour: "c1")).0 == 201)
            #expect(server.stats().answersByQuestion["q5"] == ["(text)": 1])
            #expect(server.stats().invalidSubmits == 2)
        }
    }

    @Test(arguments: [
        (#"[{"id": "p2", "questions": [{"id": "q3", "answer": 7}]}]"#, "q3 is on page p1, not p2"),
        (#"[{"id": "p9", "questions": []}]"#, "p9 is not a page of the survey"),
        (#"[{"id": "p1", "questions": []}, {"id": "p1", "questions": []}]"#, "page p1 is given twice"),
        (#"[{"id": "p1", "questions": [{"id": "q1"}]}]"#, "q1 has no answer"),
        (#"[{"questions": []}]"#, "a page without its id"),
        (#"[{"id": "p1", "questions": [{"id": "q1", "answer": "c1"}, {"id": "q1", "answer": "c2"}]}]"#, "q1 is answered twice"),
        (#"[{"id": "p1", "questions": [{"id": "q1", "answer": "c2"}, {"id": "q3", "answer": 2}]}]"#, "q6 is required"),
        (#"[]"#, "q1 is required"),
    ])
    func oneResponseKeepsEachAnswerUnderItsOwnPage(pages: String, refusal: String) async throws {
        try await withTypedServer(.onePost) { server, client in
            #expect(await client.respond(pages) == (400, refusal))
            #expect(server.stats().stored.responses == 0)
        }
    }

    /// The later pages' types, which page 1 does not have: a text, and a number with other bounds.
    @Test func theLaterPagesTypesAreCheckedToo() async throws {
        try await withTypedServer(.onePost) { _, client in
            func with(_ page3: String) -> String {
                String(response().dropLast()) + ", {\"id\": \"p3\", \"questions\": [\(page3)]}]"
            }
            #expect(await client.respond(with(#"{"id": "q4", "answer": 3}"#)) == (400, "q4: expected a text (a string)"))
            #expect(await client.respond(with(#"{"id": "q8", "answer": 0}"#)) == (400, "q8: 0 is below its minimum 1"))
            #expect(await client.respond(with(#"{"id": "q8", "answer": "13"}"#)) == (400, "q8: 13 is above its maximum 12"))
            #expect(await client.respond(with(#"{"id": "q7", "answer": ["c5", "c6"]}"#)) == (400, "q7: 'c6' is not one of its choices"))
            #expect(await client.respond(with(#"{"id": "q7", "answer": ["c5", "c1"]}, {"id": "q4", "answer": ""}"#)).0 == 201)
        }
    }

    @Test func statsCountTheStoredAnswersByQuestionAndValue() async throws {
        try await withTypedServer(.onePost) { server, client in
            let full = """
                [{"id": "p1", "questions": [{"id": "q1", "answer": "c1"}, {"id": "q2", "answer": ["c2", "c4"]}, {"id": "q3", "answer": 7}]}, \
                {"id": "p2", "questions": [{"id": "q5", "answer": "it is warm"}, {"id": "q6", "answer": "c1"}]}, \
                {"id": "p3", "questions": [{"id": "q7", "answer": ["c1"]}, {"id": "q8", "answer": "3"}, {"id": "q4", "answer": "no"}]}]
                """
            #expect(await client.respond(full).0 == 201)
            #expect(await client.respond(response(colour: "c3", why: nil)).0 == 201)
            #expect(await client.respond(response(colour: "c1")).0 == 201)
            // A refused response adds nothing.
            #expect(await client.respond(response(colour: "c9")).0 == 400)
            #expect(await client.call("GET", "/survey").0 == 200)
            let stats = server.stats()
            #expect(
                stats.answersByQuestion == [
                    "q1": ["c1": 2, "c3": 1], "q2": ["c2": 1, "c4": 1], "q3": ["7": 3], "q4": ["(text)": 1], "q5": ["(text)": 2],
                    "q6": ["c1": 1, "c2": 2], "q7": ["c1": 1], "q8": ["3": 1],
                ])
            #expect(stats.stored.responses == 3 && stats.stored.answers == 8 + 3 + 4)
            #expect(stats.shownByQuestion["q5"] == 1)
            // `/__stats` says the same, and reads back to the same counts.
            let (status, body) = await client.call("GET", "/__stats")
            #expect(status == 200)
            #expect(body["stored"]?["answers_by_question"]?["q1"] == .object([("c1", .integer(2)), ("c3", .integer(1))]))
            #expect(ReferenceServerStats.parse(Array(body.json.utf8)) == server.stats())
        }
    }

    @Test func theFaultsStillMeetTheTypedRoutes() async throws {
        var refusing = ServerFaults()
        refusing.failRate = 1
        try await withTypedServer(.pages, faults: refusing) { server, client in
            let (session, _) = await client.open()
            // A wrong answer is refused for what it is; a right one by the fault, and nothing is stored.
            #expect(await client.page(session, #"{"q1": "c9", "q3": 1}"#).1 == "q1: 'c9' is not one of its choices")
            let refused = await client.page(session, #"{"q1": "c1", "q3": 1}"#)
            #expect(refused.0 == 400 && refused.1 == "the page was refused")
            let stats = server.stats()
            #expect(stats.endpoints["submit"] == ["400": 2] && stats.invalidSubmits == 1)
            #expect(stats.stored.answers == 0 && stats.answersByQuestion.isEmpty)
        }
        var failing = ServerFaults()
        failing.errorRate = 1
        try await withTypedServer(.onePost, faults: failing) { server, client in
            #expect(await client.call("GET", "/survey").0 == 500)
            #expect(await client.respond(response()).0 == 500)
            #expect(server.stats().shownByQuestion.isEmpty && server.stats().stored.responses == 0)
        }
    }

    @Test func theContractListsEveryQuestionAndChecksEachSubmitByItsType() async throws {
        try await withTypedServer(.contract) { server, client in
            let (status, list) = await client.call("GET", "/questions")
            #expect(status == 200)
            // The contract's own reading of a list of questions, and the typed fields beside it.
            let questions = try SurveyQuestion.list(from: Array(list.json.utf8)).get()
            #expect(questions.map(\.id.text) == ["q1", "q2", "q3", "q5", "q6", "q7", "q8", "q4"])
            #expect(questions.first?.text == "Favourite colour?")
            guard case .array(let items) = list else { return }
            #expect(items[2]["type"] == .string("number") && items[2]["max"] == .integer(10))
            #expect(items[3]["shown_if"] == .object([("question", .string("q1")), ("choice", .string("c1"))]))
            func submit(_ body: String) async -> (Int, JSONValue) { await client.call("POST", "/question/submit", body) }
            #expect(await submit(#"{"id": "q2", "answer": ["c1", "c4"]}"#).0 == 200)
            #expect(await submit(#"{"id": "q3", "answer": "9"}"#).0 == 200)
            #expect(await submit(#"{"id": "q4", "answer": "none"}"#).0 == 200)
            let refused = await submit(#"{"id": "q3", "answer": 12}"#)
            #expect(refused.0 == 400 && refused.1["error"] == .string("q3: 12 is above its maximum 10"))
            #expect(await submit(#"{"id": "q9", "answer": "x"}"#).1["error"] == .string("q9 is not a question of the survey"))
            #expect(await submit(#"{"id": "q1"}"#).1["error"] == .string("q1 has no answer"))
            let stats = server.stats()
            #expect(stats.answersByQuestion == ["q2": ["c1": 1, "c4": 1], "q3": ["9": 1], "q4": ["(text)": 1]])
            #expect(stats.stored.answers == 3 && stats.invalidSubmits == 3)
            #expect(stats.shownByQuestion.count == 8 && stats.shownByQuestion["q5"] == 1)
        }
    }

    @Test func serveTakesTheTypedSurveyForTheContractPagesAndOnePostShapes() throws {
        func configuration(_ arguments: [String]) throws -> ReferenceServerConfiguration {
            guard case .arguments(let parsed) = try ArgumentParser(spec: ServeCommand.spec).parse(arguments) else {
                throw UsageError("not arguments")
            }
            return try ServeCommand.configuration(from: parsed)
        }
        #expect(try configuration(["--api", "pages", "--survey", "typed"]).survey == .typed)
        #expect(try configuration(["--api", "one_post", "--survey", "typed"]).survey == .typed)
        #expect(try configuration(["--api", "pages"]).survey == .plain)
        #expect(try configuration(["--survey", "typed"]).survey == .typed)
        #expect(throws: UsageError.self) { try configuration(["--api", "jsonrpc", "--survey", "typed"]) }
        #expect(throws: UsageError.self) { try configuration(["--api", "pages", "--survey", "typed", "--questions", "4"]) }
        #expect(throws: UsageError.self) { try configuration(["--api", "pages", "--survey", "typd"]) }
    }

    @Test func everyPageHasAQuestionShownToEveryone() {
        // A page loop ends at a page without questions: no page may be empty for any respondent.
        for page in TypedSurvey.standard.pages {
            #expect(TypedSurvey(pages: [page]).shown(page: 0, holding: []).isEmpty == false)
        }
    }

    @Test func theTypedSurveyIsRefusedWhereNoShapeServesIt() throws {
        var configuration = ReferenceServerConfiguration()
        configuration.survey = .typed
        let group = EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        configuration.api = .jsonRPC
        #expect(throws: ReferenceServer.StartError.self) { try ReferenceServer(configuration: configuration, group: group) }
    }
}
