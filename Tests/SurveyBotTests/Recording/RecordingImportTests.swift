import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// `survey-bot import`: what is kept and left out, the bodies and headers, the steps' names and
/// pauses — each checked on a hand-written recording, and each plan through `validate`'s loader.
@Suite struct RecordingImportTests {
    static let origin = "http://127.0.0.1:8080"

    /// The plan of `fixture`, which must pass validate (its secrets set to stand-ins).
    static func plan(_ imported: RecordingImport, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> String {
        let text = imported.planText
        if case .failure(let errors) = ImportCommand.check(text, path: "test.plan", imported: imported, environment: [:]) {
            Issue.record("the imported plan does not validate:\n\(errors)\n\(text)", sourceLocation: sourceLocation)
        }
        return text
    }

    @Test func keepsTheSurveysOwnRequestsAndListsTheRest() {
        var walk = HARFixture()
        walk.add("GET", "\(Self.origin)/start", type: "document", responseType: "text/html", response: "<html></html>")
        walk.add("GET", "\(Self.origin)/static/app.css", type: "stylesheet", responseType: "text/css")
        walk.add("GET", "\(Self.origin)/static/app.js?v=3", responseType: "application/javascript")
        walk.add("GET", "\(Self.origin)/logo.png", responseType: "image/png")
        walk.add("GET", "https://www.googletagmanager.com/gtag/js?id=G-1", type: "script")
        walk.add("GET", "https://fonts.example.com/f.woff2", type: "font")
        walk.add("GET", "\(Self.origin)/favicon.ico", type: "other", responseType: "image/x-icon")
        walk.add("OPTIONS", "\(Self.origin)/api/answers", type: "preflight", status: 204)
        walk.add("POST", "\(Self.origin)/api/answers", type: "fetch", body: "{\"q1\": \"blue\"}", status: 201)
        let imported = walk.imported()
        let plan = Self.plan(imported)
        #expect(imported.requests.map(\.entry.request.url.path) == ["/start", "/api/answers"])
        #expect(plan.contains("target: http://127.0.0.1:8080\n"))
        #expect(plan.contains("  start:\n    request: GET /start\n"))
        #expect(
            plan.contains(
                "  answers:\n    request: POST /api/answers\n    body: '{\"q1\": \"blue\"}'\n    expect:\n      - status == 201\n") == false
        )
        #expect(plan.contains("  answers:\n    request: POST /api/answers\n    body: '{\"q1\": \"blue\"}'\n"))
        let summary = imported.summary
        #expect(summary.first == "recorded 9 requests of http://127.0.0.1:8080: 2 kept as steps, 7 left out")
        #expect(summary.contains("left out: 3 static assets: /static/app.css, /static/app.js?v=***, /logo.png"))
        #expect(summary.contains("left out: 2 other origins: https://www.googletagmanager.com, https://fonts.example.com"))
        #expect(summary.contains("left out: 1 favicons: /favicon.ico"))
        #expect(summary.contains("left out: 1 CORS preflights (OPTIONS): /api/answers"))
    }

    @Test func bodiesBecomeThePlansKinds() {
        var walk = HARFixture()
        walk.add("GET", "\(Self.origin)/", type: "document", responseType: "text/html", response: "<p>hello</p>")
        walk.add(
            "POST", "\(Self.origin)/form", type: "document", body: "name=Ann+Lee&colour=blue&note=",
            bodyType: "application/x-www-form-urlencoded",
            status: 302)
        walk.add("POST", "\(Self.origin)/rpc", type: "xhr", body: "<call>it's</call>", bodyType: "application/xml")
        walk.add("PUT", "\(Self.origin)/api/answer", type: "fetch", body: "{\"text\": \"it's \\\"quoted\\\"\", \"n\": 1.50}")
        let plan = Self.plan(walk.imported())
        #expect(plan.contains("  home:\n    request: GET /\n"))
        #expect(plan.contains("    form:\n      name: Ann Lee\n      colour: blue\n      note: \"\"\n    expect:\n      - status == 302\n"))
        #expect(plan.contains("    text: \"<call>it's</call>\"\n    content_type: application/xml\n"))
        #expect(plan.contains("    body: '{\"text\": \"it''s \\\"quoted\\\"\", \"n\": 1.50}'\n"))
    }

    @Test func theBrowsersOwnHeadersAreLeftOut() {
        var walk = HARFixture()
        walk.add(
            "GET", "\(Self.origin)/api/questions", type: "fetch",
            headers: [
                (":authority", "127.0.0.1:8080"), ("User-Agent", "Mozilla/5.0"), ("Accept-Encoding", "gzip"), ("sec-ch-ua", "\"Chromium\""),
                ("Cookie", "a=1"), ("Referer", "\(Self.origin)/"), ("Accept", "application/json"), ("X-Requested-With", "XMLHttpRequest"),
                ("Content-Type", "application/json"),
            ])
        let plan = Self.plan(walk.imported())
        #expect(plan.contains("    headers:\n      Accept: application/json\n      X-Requested-With: XMLHttpRequest\n"))
        for name in [":authority", "User-Agent", "Accept-Encoding", "sec-ch-ua", "Referer", "Content-Type"] {
            #expect(!plan.contains("      \(name):"), "\(name)")
        }
    }

    @Test func stepsAreNamedFromTheirPaths() {
        var walk = HARFixture()
        walk.add("GET", "\(Self.origin)/index.php/246810?lang=en", type: "document", responseType: "text/html", response: "<p></p>")
        walk.add("POST", "\(Self.origin)/index.php/246810", type: "document", body: "a=1", bodyType: "application/x-www-form-urlencoded")
        walk.add("POST", "\(Self.origin)/api/v1/sessions", type: "fetch", body: "{}")
        walk.add("GET", "\(Self.origin)/2024/", type: "fetch")
        let imported = walk.imported()
        #expect(imported.names == ["index", "index_2", "sessions", "home"])
    }

    @Test func thinkTimesComeFromTheRecordedPauses() {
        var walk = HARFixture()
        walk.add("GET", "\(Self.origin)/a", type: "document", responseType: "text/html", response: "<p></p>", time: 0.1)
        walk.add("GET", "\(Self.origin)/b", type: "document", responseType: "text/html", response: "<p></p>", after: 2)
        walk.add("GET", "\(Self.origin)/c", type: "fetch", after: 0.05)
        let plan = Self.plan(walk.imported(thinkTimes: true))
        #expect(plan.contains("  b:\n    request: GET /b\n    think: 1500ms..2500ms\n"))
        #expect(plan.contains("  c:\n    request: GET /c\n  ") || plan.hasSuffix("  c:\n    request: GET /c\n"))
        let none = Self.plan(walk.imported(thinkTimes: false))
        #expect(!none.contains("think:"))
    }

    @Test func aRecordingOfNothingIsRefused() {
        let empty = HARFixture()
        guard case .failure(let failure) = RecordingImport.make(empty.file, options: .init(name: "t", source: "t.har")) else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.description == "the recording holds no request")
    }

    @Test func theCommandWritesThePlanAndSaysWhatItDid() async throws {
        var walk = HARFixture()
        walk.add("GET", "\(Self.origin)/", type: "document", responseType: "text/html", response: "<p></p>")
        walk.add("GET", "\(Self.origin)/style.css", type: "stylesheet")
        let directory = try TemporaryDirectory()
        let recording = directory.path + "/walk.har"
        try directory.write("walk.har", walk.text)
        let output = directory.path + "/out/walk.plan"
        try FileManager.default.createDirectory(atPath: directory.path + "/out", withIntermediateDirectories: true)
        let result = await runCommand(["import", recording, "--output", output])
        #expect(result.status == .success, "\(result.err)")
        #expect(result.out.isEmpty)
        #expect(result.err.contains("walk.har → \(output): 1 steps"))
        #expect(result.err.contains("  left out: 1 static assets: /style.css"))
        let validated = await runCommand(["validate", output])
        #expect(validated.status == .success, "\(validated.err)")
        let toStdout = await runCommand(["import", recording])
        #expect(toStdout.out.hasPrefix("# walk.plan — imported by survey-bot import from walk.har (test 1)."))
    }

    @Test func aFileThatIsNoRecordingExitsTwoAtItsPlace() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("bad.har", "{\"log\": {\"entries\": [}}")
        let result = await runCommand(["import", directory.path + "/bad.har"])
        #expect(result.status == .validationFailure)
        #expect(result.err.hasPrefix("\(directory.path)/bad.har:1:22: error: not JSON, so not a HAR file"))
        let missing = await runCommand(["import"])
        #expect(missing.status == .validationFailure)
        #expect(missing.err.hasPrefix("Error: missing expected argument '<recording>'"))
    }
}

extension RecordingImportTests {
    @Test func helpSaysWhatEachExitStatusMeans() async {
        let help = await runCommand(["import", "--help"]).out
        #expect(help.contains("USAGE: survey-bot import <recording> [--again <recording>] [--output <plan>] [--no-think]\n"))
        #expect(help.contains("    0  the plan was written, and passes validate\n"), "\(help)")
        #expect(help.contains("    1  the plan made does not pass validate"), "\(help)")
        #expect(help.contains("    2  usage, or a recording that cannot be read (file:line:col)"), "\(help)")
    }
}

extension RecordingImportTests {
    @Test func aResponseTheRecorderKeptNoBodyOfIsNamed() {
        var walk = HARFixture()
        walk.add("GET", "\(Self.origin)/", type: "document", responseHeaders: [("Content-Length", "120")], responseType: "text/html")
        walk.add("GET", "\(Self.origin)/empty", type: "fetch", status: 204)
        let imported = walk.imported()
        #expect(
            imported.summary.contains(
                "guess: step 'home' has no response body in the recording: a value it gave was looked for in its headers only"))
        #expect(!imported.summary.contains { $0.hasPrefix("guess: step 'empty'") })
    }
}

extension RecordingImportTests {
    static func pages(lastListsQuestions: Bool) -> HARFixture {
        var walk = HARFixture()
        walk.add(
            "POST", "\(Self.origin)/start", type: "fetch", body: "{}",
            response: "{\"questions\": [{\"qid\": \"Q1\", \"label\": \"Colour?\"}, {\"qid\": \"Q2\", \"label\": \"Size?\"}]}")
        walk.add(
            "POST", "\(Self.origin)/page", type: "fetch", body: "{\"lang\": \"en\", \"given\": {\"Q1\": \"red\", \"Q2\": \"big one\"}}",
            response: "{\"questions\": [{\"qid\": \"Q3\", \"label\": \"Why?\"}]}")
        walk.add(
            "POST", "\(Self.origin)/page", type: "fetch", body: "{\"lang\": \"en\", \"given\": {\"Q3\": \"it is\"}}",
            response: lastListsQuestions ? "{\"questions\": [{\"qid\": \"Q4\", \"label\": \"More?\"}]}" : "{\"questions\": []}")
        walk.add("GET", "\(Self.origin)/thanks", type: "fetch")
        return walk
    }

    @Test func postsOfOneShapeAreAPageLoopWithTheRecordedAnswers() {
        let imported = Self.pages(lastListsQuestions: false).imported()
        let plan = Self.plan(imported)
        #expect(imported.names == ["start", "page", "page", "thanks"])
        #expect(
            plan.contains(
                "  start:\n    request: POST /start\n    body: '{}'\n    questions: $.questions\n    question_id: qid\n    question_text: label\n"
            ))
        #expect(
            plan.contains(
                "  page:\n    request: POST /page\n    runs: per_page\n    body: '{\"lang\": \"en\", \"given\": ${answers}}'\n"
                    + "    questions: $.questions\n    question_id: qid\n    question_text: label\n    pages: 10\n  thanks:\n"))
        #expect(plan.hasSuffix("answers:\n  Q1: red\n  Q2: big one\n  Q3: it is\n"))
        #expect(imported.summary.contains { $0.hasPrefix("guess: step 'page' and the 1 posts after it, of one shape, are a page loop") })
    }

    /// A loop the recording did not end — its last response still lists questions — is left as
    /// plain steps: folded, it would post a page the recording never did.
    @Test func postsWhoseLastResponseListsQuestionsStayPlainSteps() {
        let imported = Self.pages(lastListsQuestions: true).imported()
        let plan = Self.plan(imported)
        #expect(imported.names == ["start", "page", "page_2", "thanks"])
        #expect(!plan.contains("per_page"))
        #expect(!plan.contains("answers:"))
        #expect(
            imported.summary.contains(
                "guess: step 'page' and the 1 posts after it look like a page loop but are left as steps: each post does not answer "
                    + "what the response before it listed, or the last response still lists questions"))
    }
}
