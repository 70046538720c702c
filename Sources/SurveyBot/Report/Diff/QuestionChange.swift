/// How one question's figures moved between two reports: how often it was shown, the share of
/// those times it was answered, the answers the server refused, and how far the answers given
/// moved (the total variation distance between the two distributions: half the sum of the
/// changes of every answer's share, 0 for the same shares, 1 for none in common). Shown, never
/// judged: a survey's answers are the plan's choices, not the server's quality.
struct QuestionChange: Encodable, Equatable {
    var question: String
    /// Nil where the report has no figures for the question.
    var baseShown: Int?
    var newShown: Int?
    /// Answered of shown; nil when not shown.
    var baseAnsweredRate: Double?
    var newAnsweredRate: Double?
    var baseRefused: Int?
    var newRefused: Int?
    /// From 0 to 1; nil when either report gave the question no answer.
    var distributionChange: Double?
    /// The answer whose share moved most, with both shares; nil when none moved.
    var largestMove: Move?
    /// `base`, `new` or `both`: the reports in which the plan answers the question but no
    /// respondent was shown it (a branch never reached); nil when both reached it.
    var unreachedIn: String?

    /// Whether anything of the question moved: what the text, Markdown and HTML diffs list.
    var changed: Bool {
        baseShown != newShown || baseAnsweredRate != newAnsweredRate || baseRefused != newRefused || (distributionChange ?? 0) > 0
            || unreachedIn == "base" || unreachedIn == "new"
    }

    /// One answer's share of a question's answers in each report (0 where it was not given).
    struct Move: Encodable, Equatable {
        var answer: String
        var base: Double
        var new: Double
    }

    enum CodingKeys: String, CodingKey {
        case question
        case baseShown = "base_shown"
        case newShown = "new_shown"
        case baseAnsweredRate = "base_answered_rate"
        case newAnsweredRate = "new_answered_rate"
        case baseRefused = "base_refused"
        case newRefused = "new_refused"
        case distributionChange = "distribution_change"
        case largestMove = "largest_move"
        case unreachedIn = "unreached_in"
    }

    /// Every question either report counted or names unreached, in the order reports list
    /// them; empty when neither has the section (reports of versions before it).
    static func all(base: RunReport.Questions?, new: RunReport.Questions?) -> [QuestionChange] {
        guard base != nil || new != nil else { return [] }
        let ids = Set((base?.byID.keys).map(Array.init) ?? []).union((new?.byID.keys).map(Array.init) ?? [])
            .union(base?.unreached ?? []).union(new?.unreached ?? [])
        return RunReport.Questions.ordered(ids).map { id in
            QuestionChange(
                id, base: base?.byID[id], new: new?.byID[id], unreachedInBase: base?.unreached.contains(id) ?? false,
                unreachedInNew: new?.unreached.contains(id) ?? false)
        }
    }

    init(_ id: String, base: RunReport.Question?, new: RunReport.Question?, unreachedInBase: Bool, unreachedInNew: Bool) {
        question = id
        baseShown = base?.shown
        newShown = new?.shown
        func rate(_ question: RunReport.Question?) -> Double? {
            guard let question, question.shown > 0 else { return nil }
            return Self.rounded(Double(question.answered) / Double(question.shown))
        }
        baseAnsweredRate = rate(base)
        newAnsweredRate = rate(new)
        baseRefused = base?.refused
        newRefused = new?.refused
        unreachedIn =
            switch (unreachedInBase, unreachedInNew) {
            case (true, true): "both"
            case (false, true): "new"
            case (true, false): "base"
            case (false, false): nil
            }
        guard let base, let new, base.given > 0, new.given > 0 else { return }
        func shares(_ question: RunReport.Question) -> [String: Double] {
            var shares = question.answers.mapValues { Double($0) / Double(question.given) }
            if question.otherAnswers > 0 {
                shares[RunReport.Questions.otherLabel, default: 0] += Double(question.otherAnswers) / Double(question.given)
            }
            return shares
        }
        let (before, after) = (shares(base), shares(new))
        let moves = Set(before.keys).union(after.keys).sorted().map { Move(answer: $0, base: before[$0] ?? 0, new: after[$0] ?? 0) }
        distributionChange = Self.rounded(moves.reduce(0) { $0 + abs($1.new - $1.base) } / 2)
        largestMove = moves.max { abs($0.new - $0.base) < abs($1.new - $1.base) }.flatMap {
            $0.new == $0.base ? nil : Move(answer: $0.answer, base: Self.rounded($0.base), new: Self.rounded($0.new))
        }
    }

    private static func rounded(_ value: Double) -> Double { (value * 1_000_000).rounded() / 1_000_000 }

    /// The headings of the question table of the diff formats.
    static let columns = ["question", "shown", "answered", "refused", "answers moved", "largest move"]

    /// The row the text, Markdown and HTML diffs show: `100 → 120`, `98% → 90%`, `0 → 8`,
    /// `30%`, `yes 50% → 80%`; `never shown in new` where a branch was no longer reached.
    var cells: [String] {
        func pair(_ base: String?, _ new: String?) -> String { "\(base ?? "–") → \(new ?? "–")" }
        let percent = { (rate: Double?) in rate.map(Readable.percent) }
        var moved = distributionChange.map(Readable.percent) ?? "–"
        if let unreachedIn { moved = unreachedIn == "both" ? "never shown" : "never shown in \(unreachedIn)" }
        return [
            question, pair(baseShown.map(String.init), newShown.map(String.init)),
            pair(percent(baseAnsweredRate), percent(newAnsweredRate)),
            pair(baseRefused.map(String.init), newRefused.map(String.init)), moved,
            largestMove.map { "\($0.answer) \(Readable.percent($0.base)) → \(Readable.percent($0.new))" } ?? "–",
        ]
    }
}
