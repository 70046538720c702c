/// The order in which a respondent walks the questions.
/// The raw values are the plan's words.
public enum QuestionOrder: String, Sendable, Hashable, CaseIterable {
    /// As the questions list gives them.
    case sequential
    /// Shuffled anew by each respondent, from its seeded random stream.
    case random
    /// Last question first.
    case reverse
}
