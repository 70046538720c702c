/// The words every format shares for what the survey saw, question by question: the table's
/// columns and rows, the answers given, the questions never reached.
extension ReportWording {
    /// The per-question table's headings, in every format that shows it.
    static let questionColumns = [
        "question", "shown", "answered", "declined", "skipped, no answer", "unanswered", "refused", "answers given",
    ]

    /// How the row of the questions past the engine's limit is named.
    static let beyondLimitLabel = "(further questions)"

    /// Each question's row, in `Questions.ordered` order, then the questions past the limit
    /// together: the id, its counts (`refused` is part of `unanswered`), and the answers given.
    static func questionRows(_ questions: RunReport.Questions) -> [[String]] {
        func row(_ id: String, _ question: RunReport.Question) -> [String] {
            [
                id, String(question.shown), String(question.answered), String(question.declined),
                String(question.skippedNoAnswer), String(question.unanswered), String(question.refused), answersGiven(question),
            ]
        }
        var rows = questions.orderedIDs.map { row($0, questions.byID[$0]!) }
        if let beyond = questions.beyondLimit { rows.append(row(beyondLimitLabel, beyond)) }
        return rows
    }

    /// The answers given, most frequent first, each with its share: `yes 12 (60%), no 8 (40%)`;
    /// `(other)` last, for those past the ones counted one by one. Empty when none was given.
    static func answersGiven(_ question: RunReport.Question) -> String {
        let given = question.given
        guard given > 0 else { return "" }
        return question.rankedAnswers.map { "\($0.answer) \($0.count) (\(Readable.percent(Double($0.count) / Double(given))))" }
            .joined(separator: ", ")
    }

    /// `7, 9`: the questions the plan answers by id that no respondent was shown (a branch never
    /// reached); nil when there are none.
    static func unreached(_ questions: RunReport.Questions) -> String? {
        questions.unreached.isEmpty ? nil : questions.unreached.joined(separator: ", ")
    }

    /// The questions the one-line summary names among those refused, the most refused first.
    static let mostRefusedShown = 5

    /// One line of what the survey saw: `10 questions shown 1,200 times, 1,180 answers accepted,
    /// 20 unanswered (5 refused: 3 ×4, 7 ×1); never shown: 9`. Nil for a report without the section.
    static func questions(_ report: RunReport) -> String? {
        guard let questions = report.questions else { return nil }
        let total = questions.total
        let count = questions.byID.count
        var text = "\(count) question\(count == 1 ? "" : "s") shown \(total.shown) time\(total.shown == 1 ? "" : "s")"
        text += ", \(total.answered) answered"
        if total.declined > 0 { text += ", \(total.declined) declined" }
        if total.skippedNoAnswer > 0 { text += ", \(total.skippedNoAnswer) skipped (no answer)" }
        if total.unanswered > 0 { text += ", \(total.unanswered) unanswered" }
        if total.refused > 0 {
            // The most refused few: a survey of hundreds of questions still fits a line.
            let refused = questions.orderedIDs.compactMap { id in questions.byID[id].flatMap { $0.refused > 0 ? (id, $0.refused) : nil } }
            let most = refused.enumerated().sorted { $0.element.1 != $1.element.1 ? $0.element.1 > $1.element.1 : $0.offset < $1.offset }
            let shown = most.prefix(Self.mostRefusedShown).map { "\($0.element.0) ×\($0.element.1)" }
            let more = refused.count > Self.mostRefusedShown ? ", …" : ""
            text += " (\(total.refused) refused: \(shown.joined(separator: ", "))\(more))"
        }
        if let unreached = unreached(questions) { text += "; never shown: \(unreached)" }
        return text
    }
}
