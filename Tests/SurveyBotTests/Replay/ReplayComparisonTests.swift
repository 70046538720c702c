import Testing

@testable import SurveyBot
@testable import SurveyWire

/// A replay beside its recording: pairing in order, the first divergence, and the value that
/// probably needed a capture.
@Suite struct ReplayComparisonTests {
    private func exchange(
        _ method: String, _ target: String, body: String = "", status: Int? = 200, response: String? = nil,
        type: String = "application/json", origin: String? = "http://127.0.0.1:8080"
    ) -> Exchange {
        Exchange(
            method: method, origin: origin, target: target, requestHeaders: [], requestBody: Array(body.utf8),
            response: status.map {
                Exchange.Response(
                    status: $0, headers: [HTTPHeader(name: "Content-Type", value: type)], body: response.map { Array($0.utf8) })
            }, failure: status == nil ? "timeout" : nil)
    }

    private func attempt(_ step: String, _ exchange: Exchange) -> ReplayedAttempt {
        ReplayedAttempt(step: step, call: 1, exchange: exchange, refusal: nil)
    }

    /// A login that hands out a token and a submit that sends it back, as a plan that hard-codes
    /// the recorded token declares them.
    private let plan = lines(
        "target: http://127.0.0.1:8080", "journey:", "  login:", "    request: POST /login", #"    body: '{"member": 1}'"#, "  submit:",
        "    request: POST /submit", #"    body: '{"token": "tok-rec-1234567", "answer": "yes", "member": ${respondent.id}}'"#)

    private var recording: [Exchange] {
        [
            exchange("GET", "/app.js", response: "var a", type: "text/javascript"),
            exchange("POST", "/login", body: #"{"member": 1}"#, response: #"{"token": "tok-rec-1234567"}"#),
            exchange("GET", "/login", origin: "https://cdn.example"),
            exchange("POST", "/submit", body: #"{"token": "tok-rec-1234567", "answer": "yes"}"#, response: #"{"ok": true}"#),
        ]
    }

    private func compare(_ replayed: [ReplayedAttempt], plan: Plan) -> (ReplayComparison, CaptureHint?) {
        var patterns: [(step: String, pattern: PathPattern)] = []
        var literals: [String: [CaptureHint.Literal]] = [:]
        for step in plan.run.journey.steps {
            patterns.append((step.step.name, PathPattern(method: step.call.method, path: step.call.path)))
            literals[step.step.name] = CaptureHint.literals(of: step, apiHeaders: plan.run.api.headers)
        }
        let comparison = ReplayComparison(recorded: recording, origin: "http://127.0.0.1:8080", replayed: replayed, patterns: patterns)
        return (comparison, CaptureHint.find(in: comparison, literals: literals, secrets: plan.secrets))
    }

    @Test func attemptsPairInOrderPassingOverWhatThePlanLeftOut() throws {
        let plan = try #require(expectPlan(self.plan))
        let (comparison, hint) = compare(
            [
                attempt("login", exchange("POST", "/login", response: #"{"token": "tok-new-7654321"}"#)),
                attempt("submit", exchange("POST", "/submit", response: #"{"ok": false}"#)),
            ], plan: plan)
        #expect(comparison.rows.map(\.recorded) == [1, 3])
        #expect(comparison.matches)
        #expect(comparison.rows.map(\.shape) == ["same (JSON, 2 paths)", "same (JSON, 2 paths)"])
        #expect(hint == nil)
        #expect(comparison.verdict(hint: nil, shownCall: { $0 }) == ["ok: every step matched the recording — same status, same shape"])
        // A recording without bodies vouches for the statuses alone, and the verdict says so.
        let bodiless = ReplayComparison(
            recorded: [exchange("POST", "/login", response: nil)], origin: nil,
            replayed: [attempt("login", exchange("POST", "/login", response: "{}"))],
            patterns: [("login", PathPattern(method: "POST", path: "/login"))])
        #expect(bodiless.matches)
        #expect(bodiless.verdict(hint: nil, shownCall: { $0 })[0].contains("the shape of 1 of 1 responses was not compared"))
    }

    @Test func aHardCodedTokenIsNamedWithWhereTheRecordingReceivedIt() throws {
        let plan = try #require(expectPlan(self.plan))
        let (comparison, hint) = compare(
            [
                attempt("login", exchange("POST", "/login", response: #"{"token": "tok-new-7654321"}"#)),
                attempt("submit", exchange("POST", "/submit", status: 403, response: #"{"error": "bad token"}"#)),
            ], plan: plan)
        #expect(comparison.firstDivergence == 1)
        #expect(comparison.rows[1].divergence == "status 200 → 403")
        let found = try #require(hint)
        #expect(found.value == "tok-rec-1234567")
        #expect(found.source == .json(path: "$.token", name: "token"))
        #expect(found.receiver == .step(label: "login", name: "login"))
        #expect(found.confirmed)
        #expect(found.sentence.contains("step submit sends 'tok-r…' (15 characters) in its body"))
        #expect(found.sentence.contains("the recording's step login received in its JSON $.token"))
        #expect(found.sentence.contains("'token: $.token' in login's capture"))
        #expect(!found.sentence.contains("tok-rec-1234567"))
    }

    @Test func aValueTheReplayReceivedAgainIsNoCapturesAndNeitherIsOneTheBrowserSentFirst() throws {
        let plan = try #require(expectPlan(self.plan))
        // The server gave the replay the recorded token again: the plan may send it as it is.
        let (_, same) = compare(
            [
                attempt("login", exchange("POST", "/login", response: #"{"token": "tok-rec-1234567"}"#)),
                attempt("submit", exchange("POST", "/submit", status: 500, response: #"{"ok": true}"#)),
            ], plan: plan)
        #expect(same == nil)
        #expect(
            CaptureHint.firstReceived(
                "tok-rec-1234567", in: [exchange("POST", "/a", body: "tok-rec-1234567", response: #"{"t": "tok-rec-1234567"}"#)][...])
                == nil)
    }

    @Test func aResponseOfAnotherShapeOrNoneDivergesAndARecordingThatGoesOnIsSaid() throws {
        let plan = try #require(expectPlan(self.plan))
        let (shape, _) = compare(
            [
                attempt("login", exchange("POST", "/login", response: #"{"session": "s"}"#)),
                attempt("submit", exchange("POST", "/submit", status: nil)),
            ], plan: plan)
        #expect(shape.firstDivergence == 0)
        #expect(shape.rows[0].divergence == "its response has another shape: $.token missing; $.session added")
        #expect(shape.rows[1].divergence == "no response (timeout) where the recording has 200")
        let (short, _) = compare([attempt("login", exchange("POST", "/login", response: #"{"token": "x"}"#))], plan: plan)
        #expect(
            short.firstDivergence == nil && short.unreplayed.map(\.index) == [3] && short.unreplayed.map(\.step) == ["submit"]
                && !short.matches)
        // Requests of one path that steps after the last replayed one stand for go to them in turn.
        let samePath = ReplayComparison(
            recorded: [exchange("GET", "/p"), exchange("POST", "/p"), exchange("POST", "/p"), exchange("POST", "/p")], origin: nil,
            replayed: [attempt("open", exchange("GET", "/p")), attempt("page", exchange("POST", "/p"))],
            patterns: ["open", "page", "page_2", "page_3"].map { ($0, PathPattern(method: $0 == "open" ? "GET" : "POST", path: "/p")) })
        #expect(samePath.unreplayed.map(\.step) == ["page_2", "page_3"])
        #expect(
            short.verdict(hint: nil, shownCall: { $0 })[0].contains(
                "request #4 (POST /submit), which the plan's steps stand for, not replayed"))
    }

    @Test func whereAValueCameIsTheMostSpecificSource() {
        func response(_ body: String, type: String = "text/html", headers: [HTTPHeader] = []) -> Exchange.Response {
            Exchange.Response(status: 200, headers: headers + [HTTPHeader(name: "Content-Type", value: type)], body: Array(body.utf8))
        }
        #expect(
            CaptureHint.source(of: "k-123456", in: response(#"<form><input type="hidden" name="csrf" value="k-123456"></form>"#))
                == .formField("csrf"))
        #expect(
            CaptureHint.source(of: "k-123456", in: response("", headers: [HTTPHeader(name: "Set-Cookie", value: "sid=k-123456; Path=/")]))
                == .cookie("sid"))
        #expect(
            CaptureHint.source(of: "k-123456", in: response("", headers: [HTTPHeader(name: "X-Key", value: "k-123456")]))
                == .header("X-Key"))
        #expect(
            CaptureHint.source(of: "k-123456", in: response(#"{"a": [{"b": "k-123456"}]}"#, type: "application/json"))
                == .json(path: "$.a[0].b", name: "b"))
        #expect(CaptureHint.source(of: "k-123456", in: response("var key = 'k-123456';")) == .body)
        #expect(
            CaptureHint.source(of: "k-123456", in: response(#"<input type="hidden" value="k-123456-and-more" name="csrf">"#))
                == .partOfFormField("csrf"))
    }

    @Test func literalsAreTheTemplatesTextOutsideItsVariablesButCredentials() throws {
        let plan = try #require(
            expectPlan(
                lines(
                    "target: http://127.0.0.1:8080", "journey:", "  open:", "    request: GET /s", "    capture:", "      k: form key",
                    "      move: form move", "  page:",
                    "    request: POST /s/abcdef123/next?key=${session.k}&sid=998877",
                    "    headers:", "      Authorization: Bearer secret-token-1", "      X-Page: pagekey-42", "    form:",
                    "      csrf: token-en99",
                    "      move: ${session.move}")))
        let step = try #require(plan.run.journey.steps.last)
        let literals = CaptureHint.literals(of: step, apiHeaders: plan.run.api.headers).map { "\($0.value) \($0.place)" }
        #expect(literals.contains("abcdef123 in its path"))
        #expect(literals.contains("998877 in its query"))
        #expect(literals.contains("pagekey-42 in its header X-Page"))
        #expect(literals.contains("token-en99 in its body"))
        #expect(!literals.contains { $0.contains("secret") || $0.contains("session") })
    }
}
