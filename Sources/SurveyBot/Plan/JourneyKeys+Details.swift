import SurveyEngine
import SurveyJourney

/// The keys of a step that reads, with its questions, what the survey says of each
/// (`QuestionDetails.Shape`): its choices, type, required flag, bounds and group; all digested
/// with `questions`.
extension JourneyKeys {
    static var detailKeys: [StepKey] {
        [
            .custom(
                .questionChoices, kind: "JSON path, or `form`", default: "none",
                "with `questions`: where each question lists its choices, a path inside it — a list of objects (`choice_id`, "
                    + "`choice_label`), a list of values, or an object keyed by choice id (Qualtrics') — or, with `questions: regex`, "
                    + "`form`: the values the page's radio buttons, checkboxes and `<option>`s offer the field named by the "
                    + "question's id (also its type: the kind of input, and `required`). A question without choices is no "
                    + "breach: a text question lists none",
                digest: .within(.questions),
                decode: { decoder, entry, path, step in
                    guard let s = decoder.scalar(entry.value, keyLocation: entry.keyLocation, path: path, expected: "a JSON path") else {
                        return
                    }
                    if s.text == "form", !s.isQuoted {
                        step.questionShape.detailsShape.choices = .form
                    } else if let choices = decoder.read(entry, path, .jsonPath) {
                        step.questionShape.detailsShape.choices = .path(choices)
                    }
                }),
            .value(
                .choiceID, .jsonPath, into: \.questionShape.detailsShape.choiceID, default: "`id`", digest: .within(.questions),
                "with `question_choices`: where a choice listed as an object holds its id, which the answer sends"),
            .value(
                .choiceLabel, .jsonPath, into: \.questionShape.detailsShape.choiceLabel, default: "`label`", digest: .within(.questions),
                "with `question_choices`: where a choice holds its label (`choice(\"Blue\")`, `${answer.label}`); its id without one"),
            .detail(
                .questionType, into: \.type, "with `questions`: where each question holds its type, by which `types` answers and shapes it"),
            .detail(
                .questionRequired, into: \.required,
                "with `questions`: where each question says it must be answered (`true`, `1`, `\"Y\"`, `\"yes\"`): never left "
                    + "out by `skip_optional`"),
            .detail(.questionMin, into: \.minimum, "with `questions`: where a question holds the least number it takes, for `number()`"),
            .detail(.questionMax, into: \.maximum, "with `questions`: where a question holds the greatest number it takes, for `number()`"),
            .custom(
                .questionGroup, kind: "JSON path", default: "none",
                "with `questions` across lists: the groups they are listed in, a parent of their path (`$.pages[*]` of "
                    + "`$.pages[*].questions[*]`), so that a step sending answers can lay them out by group (`answers_group`)",
                digest: .within(.questions),
                decode: { decoder, entry, path, step in
                    if let group = decoder.read(entry, path, .jsonPath) {
                        step.questionShape.detailsShape.group = QuestionDetails.Group(path: group)
                    }
                }),
            .custom(
                .groupID, kind: "JSON path", default: "`id`", "with `question_group`: where each group holds its id (`${group.id}`)",
                digest: .within(.questions),
                decode: { decoder, entry, path, step in
                    guard let id = decoder.read(entry, path, .jsonPath) else { return }
                    var group = step.questionShape.detailsShape.group ?? QuestionDetails.Group(path: JSONPath(names: []))
                    group.id = id
                    step.questionShape.detailsShape.group = group
                }),
        ]
    }
}

extension StepKey {
    /// A path inside each question to one of its details (`QuestionDetails.Shape`), none unless given.
    static func detail(
        _ name: JourneyKeys.Name, into field: WritableKeyPath<QuestionDetails.Shape, JSONPath?> & Sendable, _ doc: String
    ) -> StepKey {
        custom(
            name, kind: "JSON path", default: "none", doc, digest: .within(.questions),
            decode: { decoder, entry, path, step in
                if let parsed = decoder.read(entry, path, .jsonPath) { step.questionShape.detailsShape[keyPath: field] = parsed }
            })
    }
}

extension SurveyQuestion.Shape {
    /// Where the questions' details are, none read until a key says (`question_choices`, …).
    var detailsShape: QuestionDetails.Shape {
        get { details ?? QuestionDetails.Shape() }
        set { details = newValue }
    }
}
