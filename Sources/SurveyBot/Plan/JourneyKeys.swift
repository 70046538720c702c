import SurveyEngine
import SurveyJourney
import SurveyWire

/// One key of a step of `journey`, as `PlanKey` is one of the plan: its name, what it takes, its
/// default, what it means, where its value lands in the step, and how the plan digest writes it.
struct StepKey: Sendable {
    /// How a step's key goes into the plan digest (`Plan.canonicalJourney`): an item
    /// `label: value` of the step's canonical form, or part of another key's item.
    enum Digest: Sendable {
        /// Always an item.
        case always(label: String, @Sendable (StepDigesting) -> String)
        /// An item only when it gives one (a key added after digests were first written, so that
        /// a plan without it keeps its digest).
        case whenGiven(label: String, @Sendable (StepDigesting) -> String?)
        /// Digested in the item of another key of the step, whose value it changes (`text` in `body`'s).
        case within(JourneyKeys.Name)
    }

    let name: JourneyKeys.Name
    let shape: PlanKey.Shape
    /// The kind of value, as the key reference names it.
    let kind: String
    /// The default, as the key reference shows it.
    let defaultText: String
    /// One line for the key reference.
    let doc: String
    /// Reads the key's entry into the step, reporting what is wrong to the decoder; `path` is
    /// the key's as errors name it (`journey.open.request`).
    let decode: @Sendable (inout PlanDecoder, PlanEntry, _ path: String, inout JourneyStep) -> Void
    let digest: Digest
}

/// What a step's key is digested from: the plan (its values from the environment), the step,
/// and the step's block (`journey.open`).
struct StepDigesting {
    let plan: Plan
    let step: JourneyStep
    let base: String

    /// A text value of the step as shown: `${NAME}` for each part of it from the environment.
    func shown(_ key: JourneyKeys.Name, _ value: String) -> String { plan.shownText("\(base).\(key.rawValue)", value) }

    /// The step's body as shown: `${NAME}` for each part from the environment, a form's field by field.
    func shownBody(_ body: String) -> String {
        switch step.bodyFormat {
        case .json: return shown(.body, body)
        case .text: return shown(.text, body)
        case .form:
            // Each value from the environment as the body holds it: form-encoded.
            let fields = plan.environmentText.filter { $0.key.hasPrefix("\(base).form.") }.values.flatMap { $0 }
            return Plan.redacting(body, paths: fields, encoded: CompiledTemplate.formEncoded)
        }
    }
}

extension StepKey {
    /// A key holding one value of `kind`, written to `field` and digested as its value.
    static func value<T: DigestValue & Sendable>(
        _ name: JourneyKeys.Name, _ kind: ValueKind<T>, into field: WritableKeyPath<JourneyStep, T> & Sendable, default text: String,
        _ doc: String
    ) -> StepKey {
        value(
            name, kind, into: field, default: text,
            digest: .always(label: name.rawValue) { $0.step[keyPath: field].digestText(in: $0.plan, at: "\($0.base).\(name.rawValue)") },
            doc)
    }

    /// A key holding one value of `kind`, written to `field`, digested as `digest` says.
    static func value<T: Sendable>(
        _ name: JourneyKeys.Name, _ kind: ValueKind<T>, into field: WritableKeyPath<JourneyStep, T> & Sendable, default text: String,
        digest: Digest, _ doc: String
    ) -> StepKey {
        StepKey(
            name: name, shape: .value, kind: kind.summary, defaultText: text, doc: doc,
            decode: { decoder, entry, path, step in
                if let parsed = decoder.read(entry, path, kind) { step[keyPath: field] = parsed }
            }, digest: digest)
    }

    /// A key whose value is absent unless given, written to `field`; the digest writes `absent`
    /// in its place, or, when nil, leaves the key out unless it is given.
    static func optional<T: DigestValue & Sendable>(
        _ name: JourneyKeys.Name, _ kind: ValueKind<T>, into field: WritableKeyPath<JourneyStep, T?> & Sendable, default text: String,
        absent: String?, _ doc: String
    ) -> StepKey {
        let label = name.rawValue
        let value: @Sendable (StepDigesting) -> String? = { digesting in
            digesting.step[keyPath: field].map { $0.digestText(in: digesting.plan, at: "\(digesting.base).\(label)") }
        }
        return StepKey(
            name: name, shape: .value, kind: kind.summary, defaultText: text, doc: doc,
            decode: { decoder, entry, path, step in
                if let parsed = decoder.read(entry, path, kind) { step[keyPath: field] = parsed }
            },
            digest: absent.map { absent in .always(label: label) { value($0) ?? absent } } ?? .whenGiven(label: label, value))
    }

    /// A key read by its own code: blocks of data, and keys that set more than one field.
    static func custom(
        _ name: JourneyKeys.Name, _ shape: PlanKey.Shape = .value, kind: String, default text: String, _ doc: String, digest: Digest,
        decode: @escaping @Sendable (inout PlanDecoder, PlanEntry, _ path: String, inout JourneyStep) -> Void
    ) -> StepKey {
        StepKey(name: name, shape: shape, kind: kind, defaultText: text, doc: doc, decode: decode, digest: digest)
    }
}

/// The keys of one step of `journey`, once: the decoder walks a step's block with them (as
/// `PlanKey`s whose paths name the step, `keys(_:at:)`), unknown keys are suggested from them,
/// the docs' table of step keys is made from them (`documented`), and the plan digest writes
/// each step from them (`Plan.canonicalJourney`). A step's `retry` block takes the keys of
/// `retry.submit` (`PlanKeys.retryKeys`).
enum JourneyKeys {
    /// A step's keys by name, for the checks between them (`PlanDecoder.seen(_:_:)`).
    enum Name: String, Sendable, CaseIterable {
        case request, runs, headers, body, form, text
        case contentType = "content_type"
        case timeout, think, pages
        case answersKey = "answers_key"
        case answersValue = "answers_value"
        case answersItem = "answers_item"
        case answersGroup = "answers_group"
        case questions
        case questionID = "question_id"
        case questionText = "question_text"
        case questionChoices = "question_choices"
        case choiceID = "choice_id"
        case choiceLabel = "choice_label"
        case questionType = "question_type"
        case questionRequired = "question_required"
        case questionMin = "question_min"
        case questionMax = "question_max"
        case questionGroup = "question_group"
        case groupID = "group_id"
        case capture, expect, idempotent, always
    }

    /// The kinds `runs` takes, named and said once, by the registry (`JourneyStep.Runs.allCases`):
    /// `once`, `per_question`, … for the key's kind; each with its doc for its text.
    static var runsKinds: (names: String, docs: String) {
        let kinds = JourneyStep.Runs.allCases.map { "`\($0.rawValue)`" }
        let names = kinds.count > 1 ? kinds.dropLast().joined(separator: ", ") + " or " + kinds[kinds.count - 1] : kinds.joined()
        return (names, JourneyStep.Runs.allCases.map { "`\($0.rawValue)`: \($0.doc)" }.joined(separator: "; "))
    }

    /// Every key of a step, in the order of the key reference. Made when asked for: the kinds
    /// `runs` takes are the registry's at that moment (`JourneyStep.Runs.registered`).
    static var all: [StepKey] {
        [
            .value(
                .request, .call(defaultMethod: "GET"), into: \.call, default: "none: every step has one",
                digest: .always(label: "request") { $0.plan.shownCall($0.step.step) },
                "the step's method and path (`GET` without a method), a template: `${row.…}`, `${respondent.id}`, "
                    + "`${session.…}` of the steps before it, and in a step per question `${question.id}` and `${answer}`"),
            .value(
                .runs, ValueKind.word.checked(summary: runsKinds.names) { _ in nil }, into: \.runs, default: "`once`",
                runsKinds.docs
                    + ". A journey has one step that sends the answers at most, after the step that reads the (first) `questions`"),
            .custom(
                .headers, .entries, kind: "block of `Name: value`", default: "none",
                "header fields of this step, sent after `api.headers`; values are templates like the `request`'s, and never shown",
                // Header values are never shown, so never digested: names only, in the plan's order.
                digest: .always(label: "headers") { "[" + $0.step.headers.map(\.name).joined(separator: ", ") + "]" },
                decode: { decoder, entry, path, step in step.headers = decoder.headers(entry, at: path) }),
            .custom(
                .body, kind: "text", default: "none (a step per question: the contract's `{\"id\": 1, \"answer\": \"red\"}`)",
                "the step's JSON body, a template like `api.submit_body`: each variable goes in as a JSON value, so that no value "
                    + "breaks the JSON",
                digest: .always(label: "body") { digesting in digesting.step.body.map { digesting.shownBody($0) } ?? "none" },
                decode: { decoder, entry, path, step in
                    if let body = decoder.read(entry, path, ValueKind.text.expecting("a JSON body")) { step.body = body }
                }),
            .custom(
                .form, .entries, kind: "block of `name: value`", default: "none",
                "an HTML form's fields as the body, in order, sent as `application/x-www-form-urlencoded`: each name and value "
                    + "percent-encoded (a space as `+`), variables too, so that no value adds a field. `\"*\": ${session.NAME}` "
                    + "puts first the fields of a form captured whole (`form *`), but those set again here or by an answer; a "
                    + "step that sends answers sends them after the fields. Instead of `body`",
                // Its fields are the body's; the form captured whole whose fields go first, its own item.
                digest: .whenGiven(label: "form_fields") { $0.step.formFields },
                decode: { decoder, entry, path, step in
                    guard let form = decoder.readForm(entry, path) else { return }
                    step.body = form.body
                    step.formFields = form.fields
                    step.bodyFormat = .form
                }),
            .custom(
                .text, kind: "text", default: "none",
                "a body sent as written, variables too (nothing is escaped), as `content_type`. Instead of `body`", digest: .within(.body),
                decode: { decoder, entry, path, step in
                    guard let s = decoder.scalar(entry.value, keyLocation: entry.keyLocation, path: path, expected: "a body") else {
                        return
                    }
                    step.body = s.text
                    if case .json = step.bodyFormat { step.bodyFormat = .text(contentType: "text/plain; charset=utf-8") }
                }),
            .custom(
                .contentType, kind: "text", default: "`text/plain; charset=utf-8`",
                "with `text`: the body's `Content-Type` (`application/xml`, `application/json-rpc`)",
                // How the body is written, which `form` and `text` also set.
                digest: .always(label: "body_format") { "\($0.step.bodyFormat)" },
                decode: { decoder, entry, path, step in
                    guard let type = decoder.read(entry, path, .text) else { return }
                    do throws(HTTPSyntaxError) {
                        try HTTPSyntax.checkFieldValue(type, name: "Content-Type")
                        step.bodyFormat = .text(contentType: type)
                    } catch {
                        decoder.error(error.description, at: entry.value.location)
                    }
                }),
            .optional(
                .timeout, .positiveDuration("timeout"), into: \.timeout, default: "the `timeout`", absent: "run",
                "per attempt of this step, instead of the run's `timeout`: a slow export, a quick health check"),
            .optional(
                .think, .thinkTime, into: \.think, default: "the `think` for a step that sends answers; none", absent: "run",
                "this step's think time, as `think` takes it: before each answer of a step that sends answers, instead of the "
                    + "run's; before the call of a step run once (reading a page before posting it), which has none without it"),
            .value(
                .pages, .integer(in: 1...10_000, "pages"), into: \.pages, default: "\(JourneyStep.defaultPages)",
                // Written for every page loop, and only for one.
                digest: .whenGiven(label: "pages") { $0.step.runs == .perPage ? "\($0.step.pages)" : nil },
                "for a page loop: how many pages it posts at most. A respondent still given questions after the last is "
                    + "abandoned (`page_limit`): a survey that never ends, or a page the server keeps sending back"),
            .custom(
                .answersKey, kind: "text", default: "`${question.id}`",
                "for a step per survey or per page: `${answers}` is a JSON object of every answer, each under this key, a "
                    + "template filled in per question (LimeSurvey's `123456X1X${question.id}`); with a `form`, each answer is a "
                    + "field of this name, after the form's fields",
                // How `${answers}` lays out the answers, which `answers_item` also sets.
                digest: .always(label: "answers") { digesting in
                    switch digesting.step.answers {
                    case .object(let key): "object " + digesting.shown(.answersKey, key)
                    case .list(let item): "list " + digesting.shown(.answersItem, item)
                    }
                },
                decode: { decoder, entry, path, step in
                    if let key = decoder.read(entry, path, .text) { step.answers = .object(key: key) }
                }),
            .optional(
                .answersValue, .text, into: \.answersValue, default: "`${answer}`", absent: nil,
                "for a step per survey or per page whose `${answers}` is an object: each answer's value, a JSON template filled "
                    + "in per question, instead of the answer as a JSON string (Qualtrics' choices: `{${answer}: {\"selected\": true}}`)"),
            .custom(
                .answersItem, kind: "text", default: "none",
                "for a step per survey or per page: `${answers}` is a JSON list instead, of this template filled in per question "
                    + "(`{\"question_id\": ${question.id}, \"answers\": [{\"text\": ${answer}}]}`)", digest: .within(.answersKey),
                decode: { decoder, entry, path, step in
                    if let item = decoder.read(entry, path, .text) { step.answers = .list(item: item) }
                }),
            .optional(
                .answersGroup, .text, into: \.answersGroup, default: "none", absent: nil,
                "for a step per survey or per page whose questions came in groups (`question_group`): `${answers}` is a JSON "
                    + "list of this template, one per group, in which `${answers}` is the group's answers (laid out as "
                    + "`answers_key` or `answers_item` say), `${group.id}` its id and `${group.FIELD}` another of its fields (SurveyMonkey's pages: "
                    + "`{\"id\": ${group.id}, \"questions\": ${answers}}`)"),
            .custom(
                .questions, kind: "JSON path, or `regex PATTERN`", default: "none",
                "where this step's 2xx response lists the survey's questions (`$` for a top-level list; `$.survey.groups[*].questions[*]` "
                    + "across lists), as `api.questions_list` reads them; or, in an HTML page, every match of a regular expression, "
                    + "its first group the question's id and its second, if any, the text. One step reads the questions, and a "
                    + "page loop the next pages'; a response without them is `malformed_response`, and the respondent is abandoned "
                    + "(`questions_unavailable`) — but a page loop's response without questions is its last",
                digest: .always(label: "questions") {
                    $0.step.questions.map {
                        ($0.pattern.map { "regex \($0)" } ?? "\($0.list.text) \($0.id.text) \($0.text.text)")
                            + ($0.details.map { " \($0.digestText)" } ?? "")
                    } ?? "none"
                },
                decode: { decoder, entry, path, step in
                    guard let s = decoder.scalar(entry.value, keyLocation: entry.keyLocation, path: path, expected: "a JSON path") else {
                        return
                    }
                    if s.text.hasPrefix("regex ") {
                        let text = s.text.dropFirst(6)
                        let pattern = text.trimmingCharacters(in: .whitespaces)
                        do throws(TextPattern.Invalid) {
                            step.questionShape.pattern = try TextPattern(pattern)
                        } catch {
                            // At the pattern, past `regex ` (and the quote).
                            var at = s.location
                            at.column += (s.isQuoted ? 1 : 0) + 6 + text.prefix { $0 == " " }.count
                            decoder.error("\(error.reason) for '\(path)'", at: at)
                        }
                    } else if let list = decoder.read(entry, path, .jsonPath) {
                        step.questionShape.list = list
                    }
                }),
            .value(
                .questionID, .jsonPath, into: \.questionShape.id, default: "`id`", digest: .within(.questions),
                "with `questions`: where each question holds its id, an integer or a string"),
            .value(
                .questionText, .jsonPath, into: \.questionShape.text, default: "`question`", digest: .within(.questions),
                "with `questions`: where each question holds its text"),
        ] + detailKeys + [
            .custom(
                .capture, .entries, kind: "block of `name: SOURCE`", default: "none",
                "values taken from this step's 2xx response into `${session.name}`, for the steps after it: `$.json.path`, "
                    + "`header Name`, `cookie Name` (a cookie it sets), `regex PATTERN` (its first group, or the whole match), "
                    + "`form FIELD` (an HTML `<input>`'s value, by name), `form *` (every field of the page's form, as a browser "
                    + "sends it back, for a `form`'s `\"*\"`). A response without one is `malformed_response`, and the "
                    + "respondent is abandoned (`capture_not_found`). Captured values are secrets",
                digest: .always(label: "capture") { step in
                    "["
                        + step.step.captures.map { "\($0.name): \(step.plan.shownCapture($0, in: "\(step.base).capture"))" }
                        .joined(separator: ", ") + "]"
                },
                decode: { decoder, entry, path, step in step.captures = decoder.captures(entry, at: path) }),
            .custom(
                .expect, kind: "list of checks", default: "a 2xx",
                "what the response must be to count as a success (below, \"Checks\"): `status == 200` or `status in [200, 404]` "
                    + "instead of any 2xx, and checks that must all hold — `$.error not exists`, `$.result.status == \"OK\"`, "
                    + "`body contains saved`, `header Content-Type matches json`. A response that fails one is `rejected`, its "
                    + "sample naming the check and what the server sent",
                digest: .always(label: "expect") { step in
                    // A check with a value from the environment is digested by the variable's name, as
                    // written: item by item, in the plan's order.
                    if let written = step.plan.environmentText["\(step.base).expect"] { return written.map(\.display).description }
                    return step.step.expect.map {
                        (($0.statuses.map { ["status \($0)"] } ?? []) + $0.checks.map(\.description)).description
                    }
                        ?? "none"
                },
                decode: { decoder, entry, path, step in step.expect = decoder.readExpectation(entry, path) }),
            .value(
                .idempotent, .boolean, into: \.idempotent, default: "by its method: `false` for POST and PATCH",
                "whether sending the request twice does what sending it once does. A step that is not is never retried after "
                    + "its request may have reached the server — a timeout, a connection reset or closed after the request was "
                    + "written — since the server may have stored it (counted as `retries_unsafe`); a request that never left is "
                    + "retried either way, and so is a response the policy retries (a `503`, a `rejected`)"),
            .value(
                .always, .boolean, into: \.always, default: "`false`",
                "run this step at the end of the journey whatever happened before it — a logout, releasing a session key — "
                    + "after an abandonment too, when the captures it uses have values (never once the run has stopped); its "
                    + "failure abandons no one"),
        ]
    }

    /// The order of a step's items in the plan digest, by the key that writes each: the order
    /// they were first written in, kept so that digests stay as they were. The items of keys
    /// not listed follow them in the table's order, then the retry policy's.
    static let digestOrder: [Name] = [
        .request, .runs, .headers, .body, .contentType, .timeout, .think, .questions, .capture, .expect, .answersKey, .idempotent,
        .always, .pages, .form, .answersValue,
    ]

    /// The keys in the order the digest writes them (`digestOrder`).
    static let inDigestOrder: [StepKey] =
        digestOrder.compactMap { name in all.first { $0.name == name } } + all.filter { !digestOrder.contains($0.name) }

    /// The path of a step's block: `journey.open`.
    static func path(_ step: Step) -> String { "journey.\(step.name)" }

    /// The path of a step's key: `journey.open.request`.
    static func path(_ step: Step, _ key: Name) -> String { "journey.\(step.name).\(key.rawValue)" }

    /// The step and the key of it a path names, the key nil when it is none of `Name`:
    /// `journey.open.headers.X-Key` is `open`'s `headers`.
    static func key(at path: String) -> (step: Step, key: Name?)? {
        guard path.hasPrefix("journey.") else { return nil }
        let parts = path.dropFirst("journey.".count).split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard let step = parts.first, !step.isEmpty else { return nil }
        return (Step(String(step)), parts.count > 1 ? Name(rawValue: String(parts[1])) : nil)
    }

    /// The policy of a declared step, from the defaults of `retry.questions` but a 400.
    static func retryKeys(_ step: Step) -> [PlanKey] {
        PlanKeys.retryKeys(
            step, base: "\(path(step)).retry", defaults: PlanKeys.defaultRetry(nil),
            doc: "the step's retry policy: the keys of `retry.submit` (below), with the defaults of `retry.questions`")
    }

    /// The keys of `step`, the journey's `index`-th, as `PlanKey`s whose paths name the step
    /// (`journey.open.request`), writing into that step of `Plan.run.declaredJourney` and into
    /// the run's retry policy for it. The plan digest writes them in the journey's item.
    static func keys(_ step: Step, at index: Int) -> [PlanKey] {
        all.map { key in
            let keyPath = path(step, key.name)
            return PlanKey(
                path: keyPath, shape: key.shape, kind: key.kind, defaultText: key.defaultText, doc: key.doc, digest: .within("journey"),
                applyDefault: { _ in },
                decode: { decoder, entry, plan in
                    guard var journey = plan.run.declaredJourney, index < journey.steps.count else { return }
                    key.decode(&decoder, entry, keyPath, &journey.steps[index])
                    plan.run.declaredJourney = journey
                })
        } + retryKeys(step)
    }

    /// The keys as the docs list them, for a step named `<step>`.
    static let documented = keys(Step("<step>"), at: 0)

    /// Whether `name` can name a step: a letter, then letters, digits, `_` and `-`; at most 64.
    static func isStepName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic, name.unicodeScalars.count <= 64
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
        }
    }
}

extension JourneyStep {
    /// Where its response lists the questions: the survey contract's paths until a key gives
    /// one (`questions`, `question_id`, `question_text`).
    var questionShape: SurveyQuestion.Shape {
        get { questions ?? .contract }
        set { questions = newValue }
    }
}

extension ValueKind where Value == String {
    /// Any text, named `expected` in errors: "a JSON body".
    func expecting(_ expected: String) -> ValueKind {
        ValueKind(expected: expected, summary: summary, format: format, parse: parse)
    }
}
