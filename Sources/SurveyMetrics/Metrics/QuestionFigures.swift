import SurveyJourney

/// What one question of the survey saw over a run: how often respondents reached it, what came
/// of the answers they gave it, how often they left it unanswered and why, and which answers
/// they gave. Kept bounded whatever the answers are: at most `valueLimit` distinct values are
/// counted one by one, the rest together in `otherValues`, so that free-text answers cost no
/// more than choices.
public struct QuestionFigures: Sendable, Hashable {
    /// Times a respondent reached the question in a step that sends answers.
    public var shown = 0
    /// Answers given to it whose call succeeded: submitted and accepted.
    public var answered = 0
    /// Times a respondent chose not to answer it (an optional question skipped).
    public var declined = 0
    /// Times it was left out for want of an answer in the plan: never sent.
    public var skippedNoAnswer = 0
    /// Answers given to it whose call still failed after its retries, or was cut by the run's stop.
    public var unanswered = 0
    /// Of `unanswered`, those a step per question's submit ended with a 4xx or `rejected`:
    /// the server refused that answer.
    public var refused = 0
    /// The answers given, each counted once per call it was put in, whatever came of the call:
    /// value → how often. At most `valueLimit` entries.
    public var values: [AnswerValue: Int] = [:]
    /// Answers given beyond the `valueLimit` distinct values counted one by one.
    public var otherValues = 0

    /// The distinct answers a question's figures count one by one.
    public static let valueLimit = 20

    /// Nothing counted yet.
    public init() {}

    /// Counts one event.
    mutating func add(_ event: QuestionEvent) {
        switch event {
        case .shown: shown += 1
        case .answered: answered += 1
        case .declined: declined += 1
        case .skippedNoAnswer: skippedNoAnswer += 1
        case .unanswered: unanswered += 1
        case .refused: refused += 1
        }
    }

    /// Counts one answer given: in place when its value is already counted (one hash, nothing
    /// allocated), as a new value while there is room, else in `otherValues`.
    mutating func add(_ value: AnswerValue) {
        if let index = values.index(forKey: value) {
            values.values[index] += 1
        } else if values.count < Self.valueLimit {
            values[value] = 1
        } else {
            otherValues += 1
        }
    }

    /// Every answer given, counted one by one or not.
    public var given: Int { values.values.reduce(otherValues, +) }

    /// Adds another part's figures (a lane's, a shard's). The values of both are kept one by one
    /// up to `valueLimit`, the most frequent first; the rest go to `otherValues`, so that every
    /// sum stays exact.
    public mutating func merge(_ other: QuestionFigures) {
        shown += other.shown
        answered += other.answered
        declined += other.declined
        skippedNoAnswer += other.skippedNoAnswer
        unanswered += other.unanswered
        refused += other.refused
        otherValues += other.otherValues
        values.merge(other.values, uniquingKeysWith: +)
        guard values.count > Self.valueLimit else { return }
        let ranked = values.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        values = Dictionary(uniqueKeysWithValues: ranked.prefix(Self.valueLimit).map { ($0.key, $0.value) })
        otherValues += ranked.dropFirst(Self.valueLimit).reduce(0) { $0 + $1.value }
    }
}

/// Something that happened to a question, counted in its `QuestionFigures`.
public enum QuestionEvent: Sendable, Hashable, CaseIterable {
    /// A respondent reached it in a step that sends answers.
    case shown
    /// The call that carried its answer succeeded.
    case answered
    /// The respondent chose not to answer it.
    case declined
    /// The plan has no answer for it: left out of the call.
    case skippedNoAnswer
    /// The call that carried its answer still failed after its retries, or the run's stop cut it.
    case unanswered
    /// A step per question's submit of its answer ended with a 4xx or `rejected` (also counted
    /// as `unanswered`).
    case refused
}

/// An answer as the figures keep it: never a value a report may not show. A plan's answer is
/// its place in the plan's list (the report shows it as the plan does, `${NAME}` for a part
/// from the environment), a data row's is only known to be one, and a value the survey offered
/// or a picker made is its text.
public enum AnswerValue: Sendable, Hashable, Comparable {
    /// The plan's `n`-th answer for the question: its own list's, or the `"*"` one's.
    case choice(Int)
    /// A data row's `answer.<id>` cell: a secret, never shown.
    case fromData
    /// A value that is no secret: a choice the survey offered, or one a picker made.
    case text(String)

    /// Choices first (by place), then data, then texts (by text): the order ties are broken in.
    public static func < (lhs: AnswerValue, rhs: AnswerValue) -> Bool {
        switch (lhs, rhs) {
        case (.choice(let left), .choice(let right)): left < right
        case (.choice, _): true
        case (.fromData, .text): true
        case (.text(let left), .text(let right)): left < right
        default: false
        }
    }
}

/// Every question's figures of a run, by id, bounded: past `questionLimit` ids a question's
/// figures are added to `beyondLimit`, so that a survey that invents an id per respondent
/// cannot grow them without end.
public struct QuestionTable: Sendable, Hashable {
    /// Each question's figures, by its id.
    public var byID: [QuestionID: QuestionFigures] = [:]
    /// The figures of the questions past `questionLimit`, together.
    public var beyondLimit = QuestionFigures()

    /// The question ids counted one by one.
    public static let questionLimit = 1_000

    /// Nothing counted yet.
    public init() {}

    /// The figures of `id` changed in place: one hash, nothing copied.
    mutating func update(_ id: QuestionID, _ body: (inout QuestionFigures) -> Void) {
        if let index = byID.index(forKey: id) {
            body(&byID.values[index])
        } else if byID.count < Self.questionLimit {
            var figures = QuestionFigures()
            body(&figures)
            byID[id] = figures
        } else {
            body(&beyondLimit)
        }
    }

    /// Adds another part's table: questions past the limit join `beyondLimit`.
    public mutating func merge(_ other: QuestionTable) {
        beyondLimit.merge(other.beyondLimit)
        for (id, figures) in other.byID { update(id) { $0.merge(figures) } }
    }

    /// Whether nothing was counted.
    public var isEmpty: Bool { byID.isEmpty && beyondLimit == QuestionFigures() }
}
