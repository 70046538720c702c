import SurveyEngine
import SurveyJourney
import SurveyMetrics

/// What the survey saw, question by question: the report's `questions` section, made from the
/// run's `QuestionTable`, read back, checked and merged. Answers are shown as the plan shows
/// them (`${NAME}` for a part from the environment), a data row's as `(from the data)`: the
/// report never holds a value it may not show.
extension RunReport {
    /// Every question's figures by id, those past the engine's limit together, and the
    /// questions the plan answers by id that no respondent was shown.
    struct Questions: Codable, Sendable, Equatable {
        /// Each question's figures, by its id as text.
        var byID: [String: Question]
        /// The questions past `QuestionTable.questionLimit`, together; absent when none was.
        var beyondLimit: Question?
        /// The ids the plan (or the data feed's `answer.<id>` columns) answers that no respondent
        /// was shown, in the order reports list questions (`ordered`): a branch never reached.
        var unreached: [String]

        enum CodingKeys: String, CodingKey {
            case byID = "by_id"
            case beyondLimit = "beyond_limit"
            case unreached
        }
    }

    /// One question's figures: see `QuestionFigures`.
    struct Question: Codable, Sendable, Equatable {
        var shown = 0
        var answered = 0
        var declined = 0
        var skippedNoAnswer = 0
        var unanswered = 0
        /// Of `unanswered`: the server refused the answer (a step per question's 4xx or `rejected`).
        var refused = 0
        /// The answers given, each as shown → how often; at most `QuestionFigures.valueLimit`.
        var answers: [String: Int] = [:]
        /// The answers given beyond those counted one by one: `(other)` in every format.
        var otherAnswers = 0

        enum CodingKeys: String, CodingKey {
            case shown, answered, unanswered, refused, answers
            case declined = "declined"
            case skippedNoAnswer = "skipped_no_answer"
            case otherAnswers = "other_answers"
        }

        /// Every answer given, `(other)` included.
        var given: Int { answers.values.reduce(otherAnswers, +) }

        /// The answers given, most frequent first (ties by text), `(other)` last when any.
        var rankedAnswers: [(answer: String, count: Int)] {
            var ranked = answers.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map {
                (answer: $0.key, count: $0.value)
            }
            if otherAnswers > 0 { ranked.append((Questions.otherLabel, otherAnswers)) }
            return ranked
        }
    }
}

extension RunReport.Questions {
    /// How every format names the answers counted together.
    static let otherLabel = "(other)"

    /// The section of a run's figures, answers shown as `plan` shows them.
    init(_ table: QuestionTable, plan: Plan) {
        let shown = plan.shownAnswers
        var ids = Set(plan.run.answers.byQuestion.keys.map(\.text))
        ids.formUnion(plan.run.answers.pickers.keys.map(\.text))
        ids.formUnion((plan.run.data?.answerColumns.keys).map { $0.map(\.text) } ?? [])
        self.init(table, planIDs: ids) { shown[$0.text] ?? shown["*"] ?? [] }
    }

    /// The section of `table`, a plan's `n`-th answer shown as `choices(id)[n]`, `planIDs` the
    /// questions the plan answers by id. Questions whose ids differ only in being a number or a
    /// string are one question here, as the report keys them by text.
    init(_ table: QuestionTable, planIDs: Set<String>, choices: (QuestionID) -> [String]) {
        func question(_ figures: QuestionFigures, choices: [String]) -> RunReport.Question {
            var question = RunReport.Question(
                shown: figures.shown, answered: figures.answered, declined: figures.declined,
                skippedNoAnswer: figures.skippedNoAnswer, unanswered: figures.unanswered, refused: figures.refused,
                otherAnswers: figures.otherValues)
            for (value, count) in figures.values {
                let text: String
                switch value {
                case .choice(let place): text = place >= 0 && place < choices.count ? choices[place] : "#\(place + 1)"
                case .fromData: text = RunReport.Answers.fromData
                case .text(let value): text = value
                }
                question.answers[text, default: 0] += count
            }
            return question
        }
        var byID: [String: RunReport.Question] = [:]
        for (id, figures) in table.byID {
            let made = question(figures, choices: choices(id))
            byID[id.text] = byID[id.text].map { $0.adding(made) } ?? made
        }
        self.byID = byID
        beyondLimit = table.beyondLimit == QuestionFigures() ? nil : question(table.beyondLimit, choices: [])
        // Past the limit, a plan's question may have been shown without its own figures.
        let reached = { (id: String) in (byID[id]?.shown ?? 0) > 0 || (table.beyondLimit.shown > 0) }
        unreached = Self.ordered(planIDs.filter { !reached($0) })
    }

    /// Question ids in the order every format lists them: numbers by value, then the rest by text.
    static func ordered(_ ids: some Sequence<String>) -> [String] {
        func number(_ id: String) -> Bool { !id.isEmpty && id.utf8.allSatisfy { (0x30...0x39).contains($0) } }
        return ids.sorted { left, right in
            switch (number(left), number(right)) {
            case (true, true):
                let (a, b) = (left.drop { $0 == "0" }, right.drop { $0 == "0" })
                return a.count != b.count ? a.count < b.count : a != b ? a < b : left < right
            case (true, false): return true
            case (false, true): return false
            case (false, false): return left < right
            }
        }
    }

    /// The questions with figures, in `ordered` order.
    var orderedIDs: [String] { Self.ordered(byID.keys) }

    /// Every question's figures added up, with those past the limit.
    var total: RunReport.Question {
        byID.values.reduce(beyondLimit ?? RunReport.Question()) { $0.adding($1) }
    }

    /// The engine's table back from the section: each answer as its shown text (or `fromData`).
    var table: QuestionTable {
        var table = QuestionTable()
        for (id, question) in byID { table.byID[QuestionID(id)] = question.figures }
        if let beyondLimit { table.beyondLimit = beyondLimit.figures }
        return table
    }

    /// The section of shards run as one: counts add, answers past the limit join `(other)`,
    /// and a question is unreached only when no shard reached it. Nil when no part has one.
    static func merged(_ parts: [Self?]) -> Self? {
        let present = parts.compactMap { $0 }
        guard let first = present.first else { return nil }
        var table = QuestionTable()
        for part in present { table.merge(part.table) }
        var unreached = Set(first.unreached)
        for part in present.dropFirst() { unreached.formIntersection(part.unreached) }
        return Self(table, planIDs: unreached) { _ in [] }
    }

    /// The first figure no run writes, or nil: a count out of range, more answers or questions
    /// than the engine keeps one by one, more refused than unanswered, an unreached id twice.
    func problem(maxCount: Int) -> String? {
        if byID.count > QuestionTable.questionLimit {
            return "'questions.by_id' holds \(byID.count) questions, more than the \(QuestionTable.questionLimit) a run keeps"
        }
        var entries = byID.sorted { $0.key < $1.key }.map { (field: "questions.by_id.\($0.key)", question: $0.value) }
        if let beyondLimit { entries.append(("questions.beyond_limit", beyondLimit)) }
        for (field, question) in entries {
            let counts = [
                ("shown", question.shown), ("answered", question.answered), ("declined", question.declined),
                ("skipped_no_answer", question.skippedNoAnswer), ("unanswered", question.unanswered), ("refused", question.refused),
                ("other_answers", question.otherAnswers),
            ]
            for (name, value) in counts where !(0...maxCount).contains(value) {
                return "'\(field).\(name)' is \(value), out of range"
            }
            for (answer, value) in question.answers.sorted(by: { $0.key < $1.key }) where !(0...maxCount).contains(value) {
                return "'\(field).answers.\(answer)' is \(value), out of range"
            }
            if question.answers.count > QuestionFigures.valueLimit {
                return "'\(field).answers' holds \(question.answers.count) answers, more than the \(QuestionFigures.valueLimit) a run keeps"
            }
            if question.refused > question.unanswered {
                return "'\(field).refused' is \(question.refused), more than its 'unanswered' (\(question.unanswered))"
            }
        }
        if Set(unreached).count != unreached.count { return "'questions.unreached' names a question twice" }
        return nil
    }
}

extension RunReport.Question {
    /// The engine's figures back: each answer as its shown text, or `fromData`.
    var figures: QuestionFigures {
        var figures = QuestionFigures()
        figures.shown = shown
        figures.answered = answered
        figures.declined = declined
        figures.skippedNoAnswer = skippedNoAnswer
        figures.unanswered = unanswered
        figures.refused = refused
        figures.otherValues = otherAnswers
        for (answer, count) in answers {
            figures.values[answer == RunReport.Answers.fromData ? .fromData : .text(answer), default: 0] += count
        }
        return figures
    }

    /// Both questions' figures added up: answers past the limit join `(other)`.
    func adding(_ other: Self) -> Self {
        var figures = self.figures
        figures.merge(other.figures)
        return Self(
            shown: figures.shown, answered: figures.answered, declined: figures.declined,
            skippedNoAnswer: figures.skippedNoAnswer, unanswered: figures.unanswered, refused: figures.refused,
            answers: Dictionary(
                figures.values.map { (value, count) -> (String, Int) in
                    switch value {
                    case .text(let text): (text, count)
                    case .fromData: (RunReport.Answers.fromData, count)
                    case .choice(let place): ("#\(place + 1)", count)
                    }
                }, uniquingKeysWith: +),
            otherAnswers: figures.otherValues)
    }
}
