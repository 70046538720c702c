import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport

/// The report's `questions` section: answers shown as the plan shows them, questions never
/// reached named, shards merged exactly, a moved distribution in the diff, and what no run
/// writes refused when a report is read back.
@Suite struct QuestionReportTests {
    static func plan(_ answers: String, environment: [String: String] = [:]) throws -> Plan {
        let text = """
            name: q
            target: http://127.0.0.1:1
            respondents: 1
            answers:
            \(answers)
            """
        return try PlanLoader(environment: environment).load(text: text, path: "q.plan").get()
    }

    static func figures(shown: Int, answered: Int, values: [AnswerValue: Int] = [:]) -> QuestionFigures {
        var figures = QuestionFigures()
        (figures.shown, figures.answered, figures.values) = (shown, answered, values)
        return figures
    }

    @Test func anAnswerFromTheEnvironmentIsShownByItsNameAndADataRowsAsSuch() throws {
        let plan = try Self.plan("  1: [\"${SECRET}\", open]\n  \"*\": fine", environment: ["SECRET": "hunter2"])
        var table = QuestionTable()
        table.byID[QuestionID(1)] = Self.figures(shown: 4, answered: 4, values: [.choice(0): 2, .choice(1): 1, .fromData: 1])
        table.byID[QuestionID(5)] = Self.figures(shown: 1, answered: 1, values: [.choice(0): 1])
        let questions = RunReport.Questions(table, plan: plan)
        #expect(questions.byID["1"]?.answers == ["${SECRET}": 2, "open": 1, "(from the data)": 1])
        #expect(questions.byID["5"]?.answers == ["fine": 1], "the \"*\" answers, for a question without its own")
        var metrics = ReportFixtures.metrics()
        metrics.questions = table
        let report = ReportFixtures.report(metrics: metrics, plan: plan)
        for format in ReportFormat.allCases {
            let text = try format.render(report)
            #expect(!text.contains("hunter2"), "\(format) shows the environment's value")
        }
        #expect(try ReportFormat.markdown.render(report).contains("${SECRET} 2 (50%)"))
    }

    @Test func aQuestionThePlanAnswersButNoRespondentWasShownIsNamed() throws {
        let plan = try Self.plan("  1: a\n  2: b\n  10: c\n  9: d\n  \"*\": fine")
        var table = QuestionTable()
        table.byID[QuestionID(1)] = Self.figures(shown: 3, answered: 3)
        table.byID[QuestionID(2)] = Self.figures(shown: 0, answered: 0)
        let questions = RunReport.Questions(table, plan: plan)
        #expect(questions.unreached == ["2", "9", "10"], "by number, not by text")
        var metrics = ReportFixtures.metrics()
        metrics.questions = table
        let report = ReportFixtures.report(metrics: metrics, plan: plan)
        #expect(try ReportFormat.markdown.render(report).contains("no respondent reached them): 2, 9, 10."))
        #expect(try ReportFormat.text.render(report).contains("never shown: 2, 9, 10"))
    }

    /// Two shards' reports of the fixture run, each with question 1's answers of its own.
    static func shards(_ first: [AnswerValue: Int], _ second: [AnswerValue: Int]) -> [(path: String, report: RunReport)] {
        [first, second].enumerated().map { index, values in
            var metrics = ReportFixtures.metrics()
            metrics.questions = QuestionTable()
            var figures = Self.figures(shown: 10 + index, answered: 9, values: values)
            (figures.unanswered, figures.refused, figures.skippedNoAnswer, figures.otherValues) = (1, index, 2, index)
            metrics.questions.byID[QuestionID(1)] = figures
            return ("s\(index + 1).json", ReportFixtures.report(metrics: metrics, shard: Shard(index: index + 1, count: 2)))
        }
    }

    @Test func aMergeAddsTheShardsQuestionsAndKeepsEverySumExact() throws {
        let first = Dictionary(uniqueKeysWithValues: (0..<15).map { (AnswerValue.text("a\($0)"), 2) })
        let second = Dictionary(uniqueKeysWithValues: (0..<15).map { (AnswerValue.text("b\($0)"), 1) })
        let parts = Self.shards(first, second)
        let merged = try #require(try RunReport.merged(parts).questions)
        let question = try #require(merged.byID["1"])
        #expect(question.shown == 21 && question.answered == 18 && question.unanswered == 2)
        #expect(question.refused == 1 && question.skippedNoAnswer == 4)
        #expect(question.answers.count == QuestionFigures.valueLimit, "30 answers in all: 20 kept one by one")
        #expect((0..<15).allSatisfy { question.answers["a\($0)"] == 2 }, "the most frequent are kept")
        #expect(question.given == 30 + 15 + 1, "every answer counted once, the rest in (other)")
        #expect(question.otherAnswers == 10 + 1)
        // Read back and merged with itself: the same sums, twice.
        let again = try #require(RunReport.Questions.merged([merged, merged]))
        #expect(again.byID["1"]?.given == 2 * question.given && again.byID["1"]?.answers.count == 20)
        #expect(merged.unreached == ["2"], "the smoke plan answers question 2, which neither shard was shown")
    }

    @Test func aQuestionIsUnreachedInAMergeOnlyWhenNoShardReachedIt() throws {
        let plan = try Self.plan("  1: a\n  2: b\n  3: c")
        var one = QuestionTable()
        one.byID[QuestionID(1)] = Self.figures(shown: 1, answered: 1)
        var two = QuestionTable()
        two.byID[QuestionID(2)] = Self.figures(shown: 1, answered: 1)
        let merged = RunReport.Questions.merged([RunReport.Questions(one, plan: plan), RunReport.Questions(two, plan: plan), nil])
        #expect(merged?.unreached == ["3"])
        #expect(RunReport.Questions.merged([nil, nil]) == nil, "reports of versions before it: no section")
    }

    @Test func aDiffShowsAQuestionWhoseAnswersMoved() throws {
        let base = Self.shards([.text("pizza"): 5, .text("pasta"): 5], [:])[0].report
        let new = Self.shards([.text("pizza"): 9, .text("pasta"): 1], [:])[0].report
        let diff = ReportDiff(base: base, new: new, tolerances: .init())
        let change = try #require(diff.questions.first { $0.question == "1" })
        #expect(change.distributionChange == 0.4)
        #expect(change.largestMove == QuestionChange.Move(answer: "pasta", base: 0.5, new: 0.1))
        #expect(diff.movedQuestions.map(\.question) == ["1"])
        let text = try DiffFormat.text.render(diff)
        #expect(text.contains("questions: 1 of 2 questions moved"), "question 2 is unreached in both: nothing moved")
        #expect(text.contains("40%") && text.contains("pasta 50% → 10%"), "\(text)")
        #expect(try DiffFormat.json.render(diff).contains("\"distribution_change\" : 0.4"))
        let same = ReportDiff(base: base, new: base, tolerances: .init())
        #expect(same.movedQuestions.isEmpty && same.questionsText == "none of 2 questions moved (shown, not judged)")
        #expect(diff.passed == same.passed, "shown, never judged")
    }

    @Test func aQuestionsIdAndAnswersAreEscapedInEveryFormatThatShowsThem() throws {
        let report = ReportEscapingTests.hostileReport()
        let html = HTMLReport.render(report)
        #expect(!html.contains("<img src=x>") && !html.contains("heading<!--"))
        #expect(html.contains("&lt;img src=x&gt; 2 (100%)") && html.contains("# heading&lt;!--"))
        let text = TextReport.render(report)
        #expect(text.contains("never shown: u`|\\u{1B}[2J") && !text.unicodeScalars.contains("\u{1B}"))
        let metrics = PrometheusReport.render(report)
        #expect(metrics.contains(#"question="q|1\n# heading<!--",outcome="refused"} 1"#))
        #expect(!metrics.contains("\u{1B}[31m"), "no answer's value is a series")
    }

    /// The fixture report's JSON with `edit` made to its question 1, read back.
    func readBack(_ edit: (inout [String: Any]) -> Void) throws -> String? {
        var metrics = ReportFixtures.metrics()
        metrics.questions.byID[QuestionID(1)]?.values = [.text("x"): 20]
        let text = try ReportFormat.json.render(ReportFixtures.report(metrics: metrics))
        var document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var questions = try #require(document["questions"] as? [String: Any])
        var byID = try #require(questions["by_id"] as? [String: Any])
        var question = try #require(byID["1"] as? [String: Any])
        edit(&question)
        byID["1"] = question
        questions["by_id"] = byID
        document["questions"] = questions
        let directory = try TemporaryDirectory()
        let path = try directory.write("r.json", String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self))
        do {
            _ = try RunReport.read(path: path)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func whatNoRunWritesIsRefusedNamingTheField() throws {
        #expect(try readBack { _ in } == nil, "the fixture itself reads back")
        let answers = Dictionary(uniqueKeysWithValues: (0...QuestionFigures.valueLimit).map { ("v\($0)", 1) })
        #expect(try readBack { $0["answers"] = answers }?.contains("'questions.by_id.1.answers' holds 21 answers") == true)
        #expect(try readBack { $0["refused"] = 5 }?.contains("'questions.by_id.1.refused' is 5, more than its 'unanswered' (1)") == true)
        #expect(try readBack { $0["shown"] = -1 }?.contains("'questions.by_id.1.shown' is -1, out of range") == true)
        #expect(try readBack { $0["answers"] = ["x": 1 << 51] }?.contains("'questions.by_id.1.answers.x' is") == true)
    }
}
