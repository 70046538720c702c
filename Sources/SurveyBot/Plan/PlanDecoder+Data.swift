import SurveyEngine
import SurveyJourney
import SurveyWire

/// The keys of data feeds and sessions: `data`, `api.capture`, the shapes of look-alike
/// backends, and the checks of every template (`${row.…}` and its kin) against the data and
/// captures they name.
extension PlanDecoder {
    /// `data: respondents.csv`, read now: a file that is not CSV is an error at its own line and
    /// column, before anything is sent.
    mutating func readData(_ entry: PlanEntry, into plan: inout Plan) {
        guard let s = scalar(entry.value, keyLocation: entry.keyLocation, path: "data", expected: "a path to a CSV file") else {
            return
        }
        guard !s.text.isEmpty else {
            error("'data' needs the path of a CSV file", at: s.location)
            return
        }
        var planPath = ""
        if case .file(let path) = s.location.origin { planPath = path }
        let path = DataFile.resolve(s.text, planPath: planPath)
        let shown = s.isFromEnvironment ? s.source.display : s.text
        // How errors name the file: as read, or by its variables' names when it came from the environment.
        let named = s.isFromEnvironment ? shown : path
        if let size = FileAccess.size(path), size > CSVReader.Limits.maxFileBytes {
            // Refused before a gigabyte is read only to be let go.
            report(CSVReader.tooLarge(path: named))
            return
        }
        let bytes: [UInt8]
        switch FileAccess.read(path, upTo: CSVReader.Limits.maxFileBytes + 1) {
        case .success(let read): bytes = read
        case .failure(let failure):
            // A path from the environment is shown by its variables' names, never as read.
            error("cannot read the data file \(named): \(failure.reason)", at: s.location)
            return
        }
        // Hashed first: the reader writes the rows over the file's bytes.
        let digest = "sha256:" + SHA256.hex(of: bytes)
        switch CSVReader.read(consume bytes, path: named) {
        case .success(let table):
            plan.run.data = RespondentData(columns: table.columns, rows: table.rows)
            plan.dataFile = DataFile(path: path, shownPath: shown, errorPath: named, lines: table.lines, digest: digest)
        case .failure(let diagnostic):
            // At the data file's line and column; its line is never quoted (its values are secrets).
            report(diagnostic)
        }
    }

    /// A path written in the plan file, resolved against the file's directory as `data:` is; a
    /// path given on the command line (`--set`) is the working directory's.
    func resolvedPath(_ written: String, of s: PlanScalar) -> String {
        guard case .file(let planPath) = s.location.origin else { return written }
        return DataFile.resolve(written, planPath: planPath)
    }

    /// How an error names a resolved file: as resolved, so that it says where it looked — but
    /// one from the environment by its variables' names, never as read.
    func named(_ path: String, shown: String, of s: PlanScalar) -> String {
        guard !s.isFromEnvironment else { return shown }
        return path == shown ? path : "\(shown) (looked for \(path))"
    }

    /// `api.capture:` entries `name: $.path.to.value` or `name: header Name`.
    mutating func readCaptures(_ entry: PlanEntry, into plan: inout Plan) {
        plan.run.api.captures = captures(entry, at: "api.capture")
    }

    /// The `name: $.path` or `name: header Name` entries of a block of captures, such as
    /// `api.capture` or a step's `capture`.
    mutating func captures(_ entry: PlanEntry, at block: String) -> [SurveyAPI.Capture] {
        var captures: [SurveyAPI.Capture] = []
        for capture in entries(entry.value, at: block) {
            let path = "\(block).\(capture.key)"
            guard PlanInterpolation.isVariableName(capture.key) else {
                error("a capture's name is letters, digits and '_' (for ${session.NAME}), found '\(capture.key)'", at: capture.keyLocation)
                continue
            }
            guard let s = scalar(capture.value, keyLocation: capture.keyLocation, path: path, expected: "a JSON path or a header") else {
                continue
            }
            let text = s.text.trimmingCharacters(in: .whitespaces)
            let word = text.prefix { $0 != " " }.lowercased()
            let argument = text.drop { $0 != " " }.trimmingCharacters(in: .whitespaces)
            if ["cookie", "form"].contains(word) {
                guard !argument.isEmpty, word == "form" || HTTPSyntax.isToken(argument) else {
                    error("expected a \(word == "form" ? "form field's" : "cookie's") name after '\(word)' for '\(path)'", at: s.location)
                    continue
                }
                captures.append(SurveyAPI.Capture(name: capture.key, source: word == "form" ? .formField(argument) : .cookie(argument)))
            } else if word == "regex" {
                do throws(TextPattern.Invalid) {
                    captures.append(SurveyAPI.Capture(name: capture.key, source: .regex(try TextPattern(argument))))
                } catch {
                    self.error("\(error.reason) for '\(path)'", at: s.location)
                }
            } else if text.lowercased().hasPrefix("header ") {
                let name = text.dropFirst(7).trimmingCharacters(in: .whitespaces)
                guard HTTPSyntax.isToken(name) else {
                    error("expected a header name after 'header' for '\(path)', found '\(name)'", at: s.location)
                    continue
                }
                captures.append(SurveyAPI.Capture(name: capture.key, source: .header(name)))
            } else if text.hasPrefix("$") {
                do throws(JSONPath.ParseError) {
                    captures.append(SurveyAPI.Capture(name: capture.key, source: .json(try JSONPath(parsing: text))))
                } catch {
                    self.error(
                        "expected a JSON path like $.token, $.data[0].token or $ for '\(path)', found '\(text)': \(error.reason)",
                        at: s.location)
                }
            } else {
                error(
                    "expected a JSON path like $.token, 'header Name', 'cookie Name', 'regex PATTERN' or 'form FIELD' for '\(path)', "
                        + "found '\(s.display)'", at: s.location)
            }
        }
        return captures
    }

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
        if let order = seen["data_order"], plan.run.data == nil, seen["data"] == nil {
            error("'data_order' needs 'data' (the CSV file whose rows respondents take)", at: order.keyLocation)
        }
        var uses = templates
        for key in Self.requestKeys + journeyRequestKeys(plan) {
            guard let entry = seen[key], case .scalar(let s) = entry.value else { continue }
            if s.text.contains("${") { uses.append(TemplateUse(key, s)) }
        }
        if !plan.run.api.captures.isEmpty, plan.run.api.login == nil, let capture = seen["api.capture"] {
            error("'api.capture' needs 'api.login': captures are taken from the login's response", at: capture.keyLocation)
        }
        if plan.run.api.loginBody != nil, plan.run.api.login == nil, let body = seen["api.login_body"] {
            error("'api.login_body' needs 'api.login'", at: body.keyLocation)
        }
        for use in uses { check(use, plan) }
        checkRunTimeVariablesOutsideRequests(plan)
        for key in ["api.submit_body", "api.login_body"]
            + journeyRequestKeys(plan).filter({ $0.hasSuffix(".body") || $0.hasSuffix(".answers_item") || $0.hasSuffix(".answers_value") })
        {
            guard let entry = seen[key], case .scalar(let s) = entry.value else { continue }
            checkJSON(key, s)
        }
        guard let data = plan.run.data, let file = plan.dataFile else { return }
        for problem in data.problems(for: plan.run, limit: PlanLimits.maxPrintedErrors) {
            let line = problem.row < file.lines.count ? Int(file.lines[problem.row]) : 1
            report(
                Diagnostic(
                    "row \(problem.row + 1): \(problem.description) (values of data files are never shown)",
                    at: SourceLocation(origin: .file(file.errorPath), line: line, column: 1)))
        }
    }

    /// The keys whose values are filled in per respondent, besides `api.headers` and `answers`.
    /// The keys of the default journey's requests, which may hold run-time variables.
    private static let requestKeys = ["api.questions", "api.submit", "api.login", "api.submit_body", "api.login_body"]
    /// The keys of a declared journey's requests: each step's `request` and `body`.
    private func journeyRequestKeys(_ plan: Plan) -> [String] {
        (plan.run.declaredJourney?.names ?? []).flatMap { step in
            ["request", "body", "text", "answers_key", "answers_item", "answers_value"].map { "journey.\(step.name).\($0)" }
        }
    }

    /// The step of the declared journey that a template's key is in (`journey.open.headers.X-Key`),
    /// whether it runs per question, and the captures of the steps before it.
    /// A step per survey's `answers_key` and `answers_item` are filled in per question.
    private func stepScope(_ path: String, _ plan: Plan) -> (step: Step, perQuestion: Bool, answers: Bool, capturedBefore: Set<String>)? {
        guard let journey = plan.run.declaredJourney, path.hasPrefix("journey.") else { return nil }
        let name = path.dropFirst("journey.".count).prefix { $0 != "." }
        guard let index = journey.steps.firstIndex(where: { $0.step.name == name }) else { return nil }
        let step = journey.steps[index]
        let perAnswer = path.hasSuffix(".answers_key") || path.hasSuffix(".answers_item") || path.hasSuffix(".answers_value")
        return (
            step.step, step.runs == .perQuestion || perAnswer,
            (step.runs == .perSurvey || step.runs == .perPage) && path.hasSuffix(".body"),
            Set(journey.steps[..<index].flatMap(\.captures).map(\.name))
        )
    }

    /// Keys whose own kind says so already (`ValueKind.url`).
    private static let checkedByKind: Set<String> = ["target"]

    /// A run-time variable in any other key (the name, a file, a directory) has no value: it
    /// would be kept as written, so it is an error at the variable.
    private mutating func checkRunTimeVariablesOutsideRequests(_ plan: Plan) {
        let requests = Set(Self.requestKeys + journeyRequestKeys(plan))
        let entries = seen.filter { !requests.contains($0.key) && !Self.checkedByKind.contains($0.key) }.sorted {
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
                    if seen["data"] == nil {
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
            case .questionID, .questionField, .answer:
                if !perQuestion {
                    let allowed =
                        declared
                        ? "a step that runs per_question, or the 'answers_key', 'answers_item' or 'answers_value' of a step per survey or per page"
                        : "'api.submit' and 'api.submit_body'"
                    error("\(variable) can only be used in \(allowed), not in '\(place)'", at: use.location)
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

extension ValueKind where Value == JSONPath {
    /// A JSON path: `data.items`, `$.survey.groups[*].questions[*]`, `title.en`, `$`.
    static let jsonPath = ValueKind(
        expected: "a JSON path like data.items or $.groups[*].questions[*]", summary: "JSON path", format: { $0.text }
    ) {
        text in
        do throws(JSONPath.ParseError) {
            return .value(try JSONPath(parsing: text))
        } catch {
            return .invalid(
                "expected a JSON path like data.items or $.items[0].id, found '\(text)': \(error.reason) at character \(error.offset + 1)")
        }
    }
}
