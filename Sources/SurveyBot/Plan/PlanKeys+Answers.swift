import SurveyEngine
import SurveyJourney

extension PlanKeys {
    /// The keys of answers read from the survey beside `answers`: by type, and how often an
    /// optional question is left out.
    static let answerKeys: [PlanKey] = [
        .custom(
            "types", .entries, kind: "block of `TYPE:` blocks", default: "none",
            "how each type of question is answered, by its type as the survey names it (the step's `question_type`): `answer` "
                + "(`choice()`, `number(0..10)`, `words(2..8)`, a value or a list), and its JSON shape where the step's "
                + "would not do: `value` (like `answers_value`; also what `${answer}` is in a step per question's JSON body) or "
                + "`item` (like `answers_item`); `each`, a template per chosen value, `${answer}` then the list of them "
                + "(SurveyMonkey's `{\"choice_id\": ${answer}}`). A question's own answer comes first, then its type's, then `\"*\"`",
            digest: .whenGiven { plan in
                plan.run.answers.types.isEmpty
                    ? nil
                    : "{"
                        + plan.run.answers.types.sorted { $0.key < $1.key }.map { type, rule in
                            "\(type): [\(AnswerSyntax.text(of: rule.answer)), \(rule.value ?? "-"), \(rule.item ?? "-"), \(rule.each ?? "-")]"
                        }.joined(separator: ", ") + "}"
            },
            decode: { $0.readTypes($1, into: &$2) }),
        .value(
            "skip_optional", .fraction, default: 0, into: \.run.answers.skipOptional, digested: .whenGiven,
            "how often a respondent leaves out a question the survey does not mark required (`question_required`), as people "
                + "skip optional questions: counted as `answers.declined`, apart from `answers.skipped`. A required question is "
                + "never left out"),
    ]
}
