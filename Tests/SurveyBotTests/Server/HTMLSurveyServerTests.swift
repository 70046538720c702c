import Testing

@testable import SurveyBot
@testable import SurveyJourney
@testable import SurveyWire

/// One answer of the `html` shape, as a browser reads it.
private struct Answered {
    var status: Int
    var headers: [String]
    var body: String

    /// A hidden input's value on the page; `""` when it has none.
    func field(_ name: String) -> String { HTMLForm.value(of: name, in: body) ?? "" }

    /// The ids of the question blocks on the page, in order.
    var questions: [String] {
        body.components(separatedBy: "<div class=\"question\" id=\"question-").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// The session cookie it sets; nil for none.
    var cookie: String? {
        headers.first { $0.hasPrefix("Set-Cookie: survey_session=") }.map {
            String($0.dropFirst("Set-Cookie: ".count).prefix { $0 != ";" })
        }
    }
}

/// A reference server's state serving the `html` shape, driven in process as a browser drives it.
private struct Browser {
    let state: ReferenceServerState

    init(survey: ServedSurvey = .typed, questions: Int = 3) {
        var configuration = ReferenceServerConfiguration()
        configuration.api = .html
        configuration.survey = survey
        let asked = survey == .typed ? [] : (1...questions).map { SurveyQuestion(id: QuestionID($0), text: "Question \($0)?") }
        state = ReferenceServerState(configuration: configuration, questions: asked, loops: 1)
    }

    func send(_ method: String, _ path: String = "/survey", cookie: String? = nil, form: String? = nil) -> Answered {
        var request = HTTPServerRequest(method: method, path: path, body: Array((form ?? "").utf8))
        request.cookie = cookie
        guard case .respond(let response) = state.handle(request) else {
            Issue.record("\(method) \(path) not answered")
            return Answered(status: 0, headers: [], body: "")
        }
        let text = String(decoding: response.bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts[0].components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        return Answered(status: status, headers: Array(head.dropFirst()), body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// Opens the survey: the cookie and page 1.
    func start() -> (String, Answered) {
        let page = send("GET")
        return (page.cookie ?? "", page)
    }

    /// Posts `page`'s form back with `answers` (`name=value&…`, encoded).
    func post(_ page: Answered, cookie: String, _ answers: String, move: String = "next") -> Answered {
        send(
            "POST", cookie: cookie,
            form: "csrf_token=\(page.field("csrf_token"))&page_key=\(page.field("page_key"))&\(answers)&move=\(move)")
    }

    var stats: ReferenceServerStats { state.snapshot(server: nil) }
}

@Suite struct HTMLSurveyServerTests {
    @Test func theStartOpensASessionWithACookieAndGivesPageOneAsAForm() throws {
        let browser = Browser()
        let (cookie, page) = browser.start()
        #expect(page.status == 200)
        #expect(page.headers.contains("Content-Type: text/html; charset=utf-8"))
        #expect(page.headers.contains { $0.hasPrefix("Set-Cookie: survey_session=HS_") && $0.hasSuffix("; Path=/; HttpOnly") })
        #expect(cookie.hasPrefix("survey_session=HS_"))
        #expect(page.body.contains(#"<form method="post" action="/survey">"#))
        #expect(page.field("csrf_token").count == 16 && page.field("page_key").count == 16)
        #expect(page.questions == ["q1", "q2", "q3"])
        #expect(page.body.contains(#"<input type="radio" name="q1" id="q1-c1" value="c1" required><label for="q1-c1">Red</label>"#))
        #expect(page.body.contains(#"<input type="checkbox" name="q2" id="q2-c4" value="c4"><label for="q2-c4">Plane</label>"#))
        #expect(page.body.contains(#"<input type="number" name="q3" id="q3" min="0" max="10" step="1" required>"#))
        #expect(page.body.contains(#"<button type="submit" name="move" value="next">Next</button>"#))
        // What a plan's `question_choices: form` reads of it.
        let choices = HTMLChoices(page: page.body)
        #expect(choices.details(of: "q1")?.choices.map(\.id) == ["c1", "c2", "c3"] && choices.details(of: "q1")?.required == true)
        #expect(choices.details(of: "q3")?.minimum == 0 && choices.details(of: "q3")?.maximum == 10)
        // Every session its own cookie, token and keys.
        let (other, second) = browser.start()
        #expect(
            other != cookie && second.field("csrf_token") != page.field("csrf_token") && second.field("page_key") != page.field("page_key"))
        #expect(browser.stats.endpoints["session"] == ["200": 2] && browser.stats.shownByQuestion["q1"] == 2)
    }

    @Test func aPostWithoutItsSessionTokenOrPageKeyIsRefusedWithTheReason() {
        let browser = Browser()
        let (cookie, page) = browser.start()
        let answers = "q1=c2&q3=4"
        let noCookie = browser.send("POST", form: "csrf_token=\(page.field("csrf_token"))&page_key=\(page.field("page_key"))&\(answers)")
        #expect(noCookie.status == 403 && noCookie.body.contains("the survey_session cookie is missing"))
        let unknown = browser.post(page, cookie: "survey_session=HS_0000000000000000", answers)
        #expect(unknown.status == 403 && unknown.body == "the session is unknown: open /survey again\n")
        let forged = browser.send("POST", cookie: cookie, form: "csrf_token=abc&page_key=\(page.field("page_key"))&\(answers)")
        #expect(forged.status == 403 && forged.body == "the CSRF token is missing or wrong\n")
        let wrongKey = browser.send("POST", cookie: cookie, form: "csrf_token=\(page.field("csrf_token"))&page_key=0&\(answers)")
        #expect(wrongKey.status == 400 && wrongKey.body.hasPrefix("the page key is stale or wrong"))
        // Another session's token is as wrong as a forged one.
        let (_, otherPage) = browser.start()
        #expect(browser.post(otherPage, cookie: cookie, answers).status == 403)
        // Taken once; the same form again (a double click, a retry) meets a stale key.
        let next = browser.post(page, cookie: cookie, answers)
        #expect(next.status == 200 && next.questions == ["q6"])
        #expect(browser.post(page, cookie: cookie, answers).status == 400)
        let stats = browser.stats
        #expect(stats.endpoints["submit"] == ["403": 4, "400 stale": 2, "200": 1])
        #expect(stats.stored.answers == 2 && stats.invalidSubmits == 0)
    }

    @Test func answersNoPersonCouldGiveAreRefusedWithTheirReason() {
        let browser = Browser()
        let (cookie, page) = browser.start()
        let refusals = [
            ("q1=c9&q3=4", "q1: 'c9' is not one of its choices"),
            ("q1=c1&q3=11", "q3: 11 is above its maximum 10"),
            ("q1=c1&q3=seven", "q3: 'seven' is not a whole number"),
            ("q1=c1&q1=c2&q3=4", "q1 is answered twice"),
            ("q1=c1&q2=c1&q2=c1&q3=4", "q2: 'c1' is chosen twice"),
            ("q1=c1&q3=4&q6=c1", "q6 is on page p2, not p1"),
        ]
        for (answers, reason) in refusals {
            let refused = browser.post(page, cookie: cookie, answers)
            #expect(refused.status == 400 && refused.body == reason + "\n", "\(answers)")
        }
        // The key stays good: the page is taken once its answers are.
        #expect(browser.post(page, cookie: cookie, "q1=c2&q2=c1&q2=c3&q3=0&q9=ignored").status == 200)
        let stats = browser.stats
        #expect(stats.invalidSubmits == refusals.count && stats.endpoints["submit"] == ["400": refusals.count, "200": 1])
        #expect(stats.answersByQuestion == ["q1": ["c2": 1], "q2": ["c1": 1, "c3": 1], "q3": ["0": 1]])
    }

    @Test func aRequiredQuestionLeftEmptyGivesThePageAgainWithANewKey() {
        let browser = Browser()
        let (cookie, page) = browser.start()
        // An empty number is what a browser sends for an input left empty.
        let again = browser.post(page, cookie: cookie, "q1=c3&q2=c4&q3=")
        #expect(again.status == 200 && again.questions == ["q1", "q2", "q3"])
        #expect(again.body.contains(#"<p class="error" role="alert">q3 is required</p>"#))
        #expect(again.field("page_key") != page.field("page_key") && again.field("csrf_token") == page.field("csrf_token"))
        // What was given is kept, as a browser shows it.
        #expect(again.body.contains(#"value="c3" required checked>"#) && again.body.contains(#"value="c4" checked>"#))
        #expect(browser.post(page, cookie: cookie, "q1=c3&q3=5").status == 400, "the first key is stale now")
        let next = browser.post(again, cookie: cookie, "q1=c3&q3=5")
        #expect(next.status == 200 && next.questions == ["q6"])
        let stats = browser.stats
        #expect(stats.endpoints["submit"] == ["200 again": 1, "400 stale": 1, "200": 1])
        #expect(stats.shownByQuestion["q1"] == 2 && stats.stored.answers == 2 && stats.invalidSubmits == 0)
    }

    @Test func redOnPageOneAsksWhyOnPageTwoAndOnlyThen() {
        let browser = Browser()
        let (red, redPage) = browser.start()
        let redTwo = browser.post(redPage, cookie: red, "q1=c1&q3=9")
        #expect(redTwo.questions == ["q5", "q6"])
        #expect(redTwo.body.contains(#"<textarea name="q5" id="q5" rows="3" required></textarea>"#))
        let (blue, bluePage) = browser.start()
        let blueTwo = browser.post(bluePage, cookie: blue, "q1=c3&q3=2")
        #expect(blueTwo.questions == ["q6"])
        let refused = browser.post(blueTwo, cookie: blue, "q5=because&q6=c1")
        #expect(refused.status == 400 && refused.body == "q5 is not shown: it is asked only when q1 is c1\n")
        #expect(browser.post(redTwo, cookie: red, "q6=c1").body.contains("q5 is required"))
        let stats = browser.stats
        #expect(stats.shownByQuestion["q5"] == 2 && stats.shownByQuestion["q6"] == 3)
    }

    @Test func aWholeWalkEndsWithThankYouAndIsStoredAndCountedByQuestionAndValue() {
        let browser = Browser()
        let (cookie, one) = browser.start()
        let two = browser.post(one, cookie: cookie, "q1=c1&q2=c2&q2=c4&q3=8")
        let three = browser.post(two, cookie: cookie, "q5=it+is+warm&q6=c2")
        #expect(three.questions == ["q7", "q8", "q4"])
        #expect(three.body.contains(#"<button type="submit" name="move" value="submit">Submit</button>"#))
        #expect(browser.stats.stored.responses == 0, "stored only when the last page is taken")
        let done = browser.post(three, cookie: cookie, "q7=c5&q8=&q4=nothing+more", move: "submit")
        #expect(done.status == 200 && done.body.contains("<h1>Thank you</h1>") && !done.body.contains("<form"))
        let after = browser.post(three, cookie: cookie, "q7=c5")
        #expect(after.status == 400 && after.body == "the survey is finished\n")
        let stats = browser.stats
        #expect(stats.stored.responses == 1 && stats.stored.answers == 7)
        // What `serve` says when it stops, in the shape's words.
        #expect(
            ServeCommand.served(stats, api: .html)
                == "served 1 session requests and 4 answer posts; stored 1 responses with 7 answers")
        #expect(
            stats.answersByQuestion == [
                "q1": ["c1": 1], "q2": ["c2": 1, "c4": 1], "q3": ["8": 1], "q5": ["(text)": 1], "q6": ["c2": 1], "q7": ["c5": 1],
                "q4": ["(text)": 1],
            ])
        #expect(stats.json.contains(#""responses":1"#))
    }

    @Test func thePlainSurveyIsServedAsRequiredTexts() {
        let browser = Browser(survey: .plain, questions: 4)
        let (cookie, one) = browser.start()
        #expect(one.questions == ["q1", "q2", "q3"])
        #expect(one.body.contains(#"<textarea name="q2" id="q2" rows="3" required></textarea>"#))
        let two = browser.post(one, cookie: cookie, "q1=a&q2=b&q3=c")
        #expect(two.questions == ["q4"] && two.body.contains(#"value="submit""#))
        #expect(browser.post(two, cookie: cookie, "q4=").body.contains("q4 is required"))
        #expect(browser.stats.stored.responses == 0 && browser.stats.stored.answers == 3)
    }

    @Test func otherPathsAndMethodsAreNotTheSurvey() {
        let browser = Browser()
        #expect(browser.send("GET", "/sessions").status == 404)
        #expect(browser.send("DELETE").status == 405)
        #expect(browser.stats.endpoints["other"] == ["404": 1])
    }
}
