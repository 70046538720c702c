import SurveyEngine
import SurveyJourney
import SurveyWire

/// The checks of every template (`${row.…}` and its kin) against the data and captures it
/// names and the place it is used in, run once every key is read; and the checks of the data
/// feed's rows against where their values go.
extension PlanDecoder {
    /// The first `${NAME}` in `text` that names an environment variable rather than a run-time one.
    static func environmentName(in text: String) -> String? {
        var rest = Substring(text)
        while let start = rest.range(of: "${") {
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else { return nil }
            let name = String(rest[start.upperBound..<end])
            if !PlanInterpolation.isRunTimeVariable(name), PlanInterpolation.isVariableName(name) { return name }
            rest = rest[rest.index(after: end)...]
        }
        return nil
    }

    /// Remembers a value that may hold run-time variables, for `checkTemplates`.
    mutating func noteTemplate(_ path: String, _ value: PlanScalar) {
        if value.text.contains("${") { templates.append(TemplateUse(path, value)) }
    }

    /// Every template against what it may use: a column of the data file, a capture of the
    /// login, and only the variables that have a value where it is used. Then every data row
    /// against where its values go (`RespondentData.problems`), each error at its row's line.
    mutating func checkTemplates(_ plan: inout Plan) {
        plan.run.data?.order = plan.dataOrder
        if let order = seen(.dataOrder), plan.run.data == nil, seen(.data) == nil {
            error("'data_order' needs 'data' (the CSV file whose rows respondents take)", at: order.keyLocation)
        }
        var uses = templates
        for key in Self.requestKeys + journeyRequestKeys(plan) {
            guard let entry = seen[key], case .scalar(let s) = entry.value else { continue }
            if s.text.contains("${") { uses.append(TemplateUse(key, s)) }
        }
        if !plan.run.api.captures.isEmpty, plan.run.api.login == nil, let capture = seen(.apiCapture) {
            error("'api.capture' needs 'api.login': captures are taken from the login's response", at: capture.keyLocation)
        }
        if plan.run.api.loginBody != nil, plan.run.api.login == nil, let body = seen(.apiLoginBody) {
            error("'api.login_body' needs 'api.login'", at: body.keyLocation)
        }
        for use in uses { check(use, plan) }
        checkRunTimeVariablesOutsideRequests(plan)
        for key in ["api.submit_body", "api.login_body"] + journeyKeys(Self.stepJSONKeys, plan) {
            guard let entry = seen[key], case .scalar(let s) = entry.value else { continue }
            checkJSON(key, s)
        }
        checkTypeShapes(plan)
        guard let data = plan.run.data, let file = plan.dataFile else { return }
        for problem in data.problems(for: plan.run, limit: PlanLimits.maxPrintedErrors) {
            let line = problem.row < file.lines.count ? Int(file.lines[problem.row]) : 1
            // A proxy's value is pointed at; a header's problem is somewhere in its row.
            let location =
                problem.column == plan.run.proxyColumn
                ? file.location(ofColumn: data.columns.firstIndex(of: problem.column) ?? 0, row: problem.row)
                : SourceLocation(origin: .file(file.errorPath), line: line, column: 1)
            report(Diagnostic("row \(problem.row + 1): \(problem.description) (values of data files are never shown)", at: location))
        }
    }

    /// The keys whose values are filled in per respondent, besides `api.headers` and `answers`.
    /// The keys of the default journey's requests, which may hold run-time variables.
    private static let requestKeys = ["api.questions", "api.submit", "api.login", "api.submit_body", "api.login_body"]
    /// The keys of a declared journey's steps that are requests' templates: its `request`, its
    /// bodies and how it lays out answers (its `headers` and `form` are noted as they are read).
    private static let stepRequestKeys: [JourneyKeys.Name] = [
        .request, .body, .text, .answersKey, .answersItem, .answersValue, .answersGroup,
    ]
    /// The keys of a step that sends every answer that are filled in per question.
    private static let perAnswerKeys: Set<JourneyKeys.Name> = [.answersKey, .answersItem, .answersValue]
    /// The keys of a step whose templates must be JSON once filled in.
    private static let stepJSONKeys: [JourneyKeys.Name] = [.body, .answersItem, .answersValue, .answersGroup]

    /// The paths of `keys` in each step of a declared journey, step by step.
    private func journeyKeys(_ keys: [JourneyKeys.Name], _ plan: Plan) -> [String] {
        (plan.run.declaredJourney?.names ?? []).flatMap { step in keys.map { JourneyKeys.path(step, $0) } }
    }

    /// The keys of a declared journey's requests.
    private func journeyRequestKeys(_ plan: Plan) -> [String] {
        journeyKeys(Self.stepRequestKeys, plan)
    }

    /// The step of the declared journey that a template's key is in (`journey.open.headers.X-Key`),
    /// whether it runs per question, and the captures of the steps before it.
    /// A step per survey's `answers_key` and `answers_item` are filled in per question.
    private func stepScope(_ path: String, _ plan: Plan) -> (step: Step, perQuestion: Bool, answers: Bool, capturedBefore: Set<String>)? {
        guard let journey = plan.run.declaredJourney, let (name, key) = JourneyKeys.key(at: path),
            let index = journey.steps.firstIndex(where: { $0.step == name })
        else { return nil }
        let step = journey.steps[index]
        let perAnswer = key.map(Self.perAnswerKeys.contains) ?? false
        return (
            step.step, step.runs == .perQuestion || perAnswer,
            (step.runs == .perSurvey || step.runs == .perPage) && (key == .body || key == .answersGroup),
            Set(journey.steps[..<index].flatMap(\.captures).map(\.name))
        )
    }

    /// Whether `path` is a type's `value` or `item` (`types.MC.value`): checked by `checkTypeShapes`.
    private static func isTypeShape(_ path: String) -> Bool {
        path.hasPrefix("types.") && (path.hasSuffix(".value") || path.hasSuffix(".item") || path.hasSuffix(".each"))
    }

    /// Each type's `value` and `item`: templates of one answer (`${answer}`, `${answer.label}`,
    /// `${question.…}`, the row, the respondent and the session, but not `${answers}`), JSON once
    /// filled in; and shapes some step uses — a `value` where answers go as an object or one at a
    /// time, an `item` where they go as a list.
    private mutating func checkTypeShapes(_ plan: Plan) {
        let senders = (plan.run.declaredJourney?.steps ?? plan.run.journey.steps).filter { $0.runs.carries != .none }
        for (path, entry) in seen where Self.isTypeShape(path) {
            guard case .scalar(let s) = entry.value, !s.isFromEnvironment else { continue }
            let isItem = path.hasSuffix(".item")
            if isItem, !senders.contains(where: { if case .list = $0.answers, $0.runs.carries == .all { true } else { false } }) {
                error(
                    "'\(path)' is an item of a list, but no step lays out ${answers} as a list ('answers_item'): give 'value' instead",
                    at: entry.keyLocation)
                continue
            }
            guard let template = try? TextTemplate(parsing: s.text) else {
                templates.append(TemplateUse(path, s))
                continue
            }
            for variable in template.variables {
                switch variable {
                case .answers, .groupID, .groupField:
                    error("\(variable) cannot be used in '\(path)': it shapes one answer", at: s.location)
                case .row, .session, .respondentID, .questionID, .questionField, .answer, .answerLabel:
                    break
                }
            }
            checkJSON(path, s)
        }
    }

    /// Keys whose own kind says so already (`ValueKind.url`).
    private static let checkedByKind: Set<String> = ["target", Plan.proxyKey]

    /// A run-time variable in any other key (the name, a file, a directory) has no value: it
    /// would be kept as written, so it is an error at the variable.
    private mutating func checkRunTimeVariablesOutsideRequests(_ plan: Plan) {
        let requests = Set(Self.requestKeys + journeyRequestKeys(plan))
        let entries = seen.filter {
            !requests.contains($0.key) && !Self.checkedByKind.contains($0.key) && !Self.isTypeShape($0.key)
        }.sorted {
            ($0.value.keyLocation.line, $0.value.keyLocation.column) < ($1.value.keyLocation.line, $1.value.keyLocation.column)
        }
        for (path, entry) in entries {
            // A value from the environment is a secret, and no template: it is never searched.
            guard case .scalar(let s) = entry.value, !s.isFromEnvironment, s.text.contains("${") else { continue }
            let use = TemplateUse(path, s)
            let scalars = Array(use.text.unicodeScalars)
            // Each `${` in order, as `variableLocations` finds them.
            let starts = scalars.indices.filter { scalars[$0] == "$" && $0 + 1 < scalars.count && scalars[$0 + 1] == "{" }
            for (number, start) in starts.enumerated() {
                guard let end = scalars[(start + 2)...].firstIndex(of: "}") else { break }
                let name = String(String.UnicodeScalarView(scalars[(start + 2)..<end]))
                guard PlanInterpolation.isRunTimeVariable(name) else { continue }
                error(
                    "${\(name)} has no value in '\(path)': run-time variables are filled in only in the requests "
                        + "(api.questions, api.submit, api.login, their bodies, api.headers; a journey step's request, "
                        + "headers and body) and answers",
                    at: use.variableLocations[number])
                break
            }
        }
    }

    /// A body template must be JSON once filled in: checked with every variable as a sample
    /// value (a string `"x"`, a number `1`).
    private mutating func checkJSON(_ key: String, _ s: PlanScalar) {
        guard let template = try? TextTemplate(parsing: s.text) else { return }
        // A variable where it cannot go (`${answers}` inside a string) says so, not what the JSON then lacks.
        do throws(TemplateError) {
            try template.checkPlacesInJSON()
        } catch {
            self.error("'\(key)': \(error.description)", at: s.location)
            return
        }
        if case .failure(let problem) = JSONValue.parse(template.sampleJSON()) {
            error("'\(key)' is not JSON once its variables are filled in: \(problem)", at: s.location)
        }
    }

    private mutating func check(_ use: TemplateUse, _ plan: Plan) {
        let template: TextTemplate
        do throws(TemplateError) {
            template = try TextTemplate(parsing: use.text)
        } catch {
            var hint = ""
            if let name = Self.environmentName(in: use.text) {
                hint = "; single quotes keep '${\(name)}' as written: give the value in double quotes to read the environment variable"
            }
            self.error("\(error.description) in '\(use.path)'\(hint)", at: use.location)
            return
        }
        let place = use.path
        let scope = stepScope(place, plan)
        let declared = plan.run.declaredJourney != nil
        let perQuestion = scope?.perQuestion ?? (place == "api.submit" || place == "api.submit_body")
        let beforeLogin = scope == nil && (place == "api.login" || place == "api.login_body")
        let places = use.variableLocations
        for (index, variable) in template.variables.enumerated() {
            let use = TemplateUse(path: use.path, text: use.text, location: index < places.count ? places[index] : use.location)
            switch variable {
            case .row(let column):
                guard let data = plan.run.data else {
                    if seen(.data) == nil {
                        error("\(variable) in '\(place)' needs 'data' (a CSV file with a column '\(column)')", at: use.location)
                    }
                    continue
                }
                if !data.columns.contains(column) {
                    let hint = Suggestions.closest(to: column, in: data.columns).map { " (did you mean '\($0)'?)" } ?? ""
                    error(
                        "\(variable) in '\(place)': the data file has no column '\(column)'\(hint); its columns: "
                            + data.columns.joined(separator: ", "), at: use.location)
                }
            case .session(let name):
                if beforeLogin {
                    error("\(variable) cannot be used in '\(place)': the session is captured from the login's response", at: use.location)
                } else if !plan.run.journey.captures.contains(where: { $0.name == name }) {
                    let source = declared ? "a step's 'capture'" : "'api.capture' (and 'api.login')"
                    error("\(variable) in '\(place)' needs a capture '\(name)' in \(source)", at: use.location)
                } else if let scope, !scope.capturedBefore.contains(name) {
                    error("\(variable) cannot be used in '\(place)': no step before '\(scope.step)' captures '\(name)'", at: use.location)
                }
            case .questionID, .questionField, .answer, .answerLabel:
                if !perQuestion {
                    let allowed =
                        declared
                        ? "a step that runs per_question, or the 'answers_key', 'answers_item' or 'answers_value' of a step per survey or per page"
                        : "'api.submit' and 'api.submit_body'"
                    error("\(variable) can only be used in \(allowed), not in '\(place)'", at: use.location)
                }
            case .groupID, .groupField:
                if JourneyKeys.key(at: place)?.1 != .answersGroup {
                    error(
                        "\(variable) can only be used in the 'answers_group' of a step per survey or per page, not in '\(place)'",
                        at: use.location)
                }
            case .answers:
                if scope?.answers != true {
                    error(
                        "\(variable) can only be used in the JSON body of a step that runs per_survey or per_page, not in '\(place)'",
                        at: use.location)
                }
            case .respondentID: break
            }
        }
    }
}

/// A value that holds run-time variables, where it was written.
struct TemplateUse: Sendable, Hashable {
    var path: String
    var text: String
    var location: SourceLocation
    /// Whether the text is on its line as written — unquoted, nothing from the environment, one
    /// line — so that a variable's column is the value's plus its offset.
    var isVerbatim = false

    init(path: String, text: String, location: SourceLocation) {
        self.path = path
        self.text = text
        self.location = location
    }

    init(_ path: String, _ value: PlanScalar) {
        self.init(path: path, text: value.text, location: value.location)
        isVerbatim = !value.isQuoted && !value.isFromEnvironment && !value.text.contains("\n")
    }

    /// Where each `${` of the text is, in order: exact for verbatim text, else the value's place.
    var variableLocations: [SourceLocation] {
        let scalars = Array(text.unicodeScalars)
        var locations: [SourceLocation] = []
        for index in scalars.indices where scalars[index] == "$" && index + 1 < scalars.count && scalars[index + 1] == "{" {
            var place = location
            if isVerbatim { place.column += index }
            locations.append(place)
        }
        return locations
    }
}
