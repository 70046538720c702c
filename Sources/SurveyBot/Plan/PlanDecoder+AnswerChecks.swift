import SurveyEngine
import SurveyJourney
import SurveyWire

/// The checks of answers read from the survey, run once every key is read: what a picker needs
/// the questions to be read with, and where a step's details and groups can go — each error at
/// the key to change.
extension PlanDecoder {
    /// The details a step reads go with its questions: `form` with a regex, a JSON path with a
    /// JSON list, a group that is a parent of the list; a group layout in a step that sends
    /// every answer in a JSON body.
    mutating func checkDetails(of step: JourneyStep) {
        let path = JourneyKeys.path(step.step)
        let name = step.step
        let detailKeys: [JourneyKeys.Name] = [
            .questionChoices, .choiceID, .choiceLabel, .questionType, .questionRequired, .questionMin, .questionMax, .questionGroup,
            .groupID,
        ]
        for key in detailKeys {
            guard let entry = seen(name, key) else { continue }
            if seen(name, .questions) == nil {
                error("'\(path).\(key.rawValue)' needs '\(path).questions': the details are read with the questions", at: entry.keyLocation)
            }
        }
        if let shape = step.questions, let details = shape.details, seen(name, .questions) != nil {
            if shape.pattern != nil {
                for key in detailKeys where key != .questionChoices {
                    guard let entry = seen(name, key) else { continue }
                    error(
                        "'\(path).\(key.rawValue)' goes with a JSON path in 'questions': with a regex, 'question_choices: form' reads "
                            + "each field's choices, type and required flag from the page", at: entry.keyLocation)
                }
                if case .path = details.choices, let entry = seen(name, .questionChoices) {
                    error("'\(path).question_choices' with a regex in 'questions' is 'form': the page's inputs", at: entry.value.location)
                }
            } else if details.choices == .form, let entry = seen(name, .questionChoices) {
                error("'\(path).question_choices: form' goes with 'questions: regex …' (an HTML page)", at: entry.value.location)
            }
            if let entry = seen(name, .groupID), seen(name, .questionGroup) == nil {
                error("'\(path).group_id' needs '\(path).question_group': where the groups are", at: entry.keyLocation)
            }
            if let group = details.group, seen(name, .questionGroup) != nil, !group.isParent(of: shape.list),
                let entry = seen(name, .questionGroup)
            {
                error(
                    "'\(path).question_group' must be a parent of the questions' path '\(shape.list)': its first steps "
                        + "(such as $.pages[*] of $.pages[*].questions[*])", at: entry.value.location)
            }
        }
        if let entry = seen(name, .answersGroup) {
            if step.runs.carries != .all {
                error("'\(path).answers_group' needs 'runs: per_survey' or 'per_page': it lays out every answer", at: entry.keyLocation)
            } else if step.bodyFormat == .form, step.body != nil {
                error("'\(path).answers_group' lays out a JSON body; a form sends its answers as fields", at: entry.keyLocation)
            }
        }
    }

    /// What the answers read from the survey need: its choices read by some step
    /// (`question_choices`), its bounds for `number()` (`question_min`, `question_max`), its
    /// types for `types` (`question_type`), its groups for `answers_group` (`question_group`).
    mutating func checkAnswersFromSurvey(_ plan: Plan) {
        let shapes = (plan.run.declaredJourney?.steps ?? []).compactMap(\.questions)
        let details = shapes.compactMap(\.details)
        let book = plan.run.answers
        var pickers: [(path: String, picker: AnswerPicker)] = book.pickers.map { ("answers.\($0.key.text)", $0.value) }
        if let fallback = book.fallbackPicker { pickers.append(("answers.*", fallback)) }
        for (type, rule) in book.types { pickers.append(("types.\(type).answer", rule.answer)) }
        for (path, picker) in pickers.sorted(by: { $0.path < $1.path }) {
            guard let at = pickerLocations[path] else { continue }
            let shown = AnswerSyntax.text(of: picker)
            if picker.needsChoices, !details.contains(where: { $0.choices != nil }) {
                error(
                    "\(shown) in '\(path)' picks among the choices the survey lists, but no step reads them: give the step with "
                        + "'questions' a 'question_choices' (a path inside each question, or 'form' for an HTML page)", at: at)
            }
            // An HTML page's number inputs give their bounds to `question_choices: form`.
            if case .number(nil) = picker, !details.contains(where: { ($0.minimum != nil && $0.maximum != nil) || $0.choices == .form }) {
                error(
                    "number() in '\(path)' takes the bounds the survey gives, but no step reads them: give 'question_min' and "
                        + "'question_max', or the bounds (number(0..10))", at: at)
            }
        }
        if !book.types.isEmpty, !details.contains(where: { $0.type != nil || $0.choices == .form }),
            let first = book.types.keys.sorted().first, let at = typeLocations[first]
        {
            error(
                "'types' answers questions by their type, but no step reads it: give the step with 'questions' a 'question_type' "
                    + "(a path inside each question)", at: at)
        }
        checkAnswersInHeaders(plan)
        if let journey = plan.run.declaredJourney {
            for step in journey.steps where step.answersGroup != nil {
                guard !details.contains(where: { $0.group != nil }), let entry = seen(step.step, .answersGroup) else { continue }
                error(
                    "'\(JourneyKeys.path(step.step)).answers_group' lays out the answers by group, but no step reads the groups: "
                        + "give the step with 'questions' a 'question_group'", at: entry.keyLocation)
            }
        }
    }

    /// An answer that goes into a header (`${answer}` in `api.headers` or a step's `headers`)
    /// holds no control character but a tab, whether the plan writes it or the environment gives
    /// it: it would end the header line. (A data row's are checked with the rows; a survey's
    /// choices when they are read.)
    private mutating func checkAnswersInHeaders(_ plan: Plan) {
        let headers = plan.run.api.headers + (plan.run.declaredJourney?.steps ?? []).flatMap(\.headers)
        let inHeader = headers.first { header in
            (try? TextTemplate(parsing: header.value))?.variables.contains { $0 == .answer || $0 == .answerLabel } ?? false
        }
        guard let header = inHeader, let entry = seen(.answers) else { return }
        let book = plan.run.answers
        var values: [(key: String, value: String)] = book.byQuestion.flatMap { id, texts in texts.map { ("answers.\(id.text)", $0) } }
        values += (book.fallback ?? []).map { ("answers.*", $0) }
        for (type, rule) in book.types {
            if case .fixed(let texts) = rule.answer { values += texts.map { ("types.\(type).answer", $0) } }
        }
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let scalar = value.unicodeScalars.first(where: { HTTPSyntax.isControl($0) && $0 != "\t" }) else { continue }
            error(
                "'\(key)' holds \(HTTPSyntax.describe(scalar)), which cannot go in the header \(header.name) (its ${answer})",
                at: entry.keyLocation)
        }
    }
}
