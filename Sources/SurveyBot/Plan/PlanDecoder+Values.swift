import Foundation
import SurveyEngine
import SurveyJourney
import SurveyWire

/// The keys read by their own code: values that are lists or mappings of data, or that set
/// more than one field. Each reads one entry and reports what is wrong in it.
extension PlanDecoder {
    mutating func readTarget(_ entry: PlanEntry, into plan: inout Plan) {
        guard let s = scalar(entry.value, keyLocation: entry.keyLocation, path: "target", expected: ValueKind<HTTPTarget>.url.expected)
        else { return }
        if s.text.lowercased() == "builtin" {
            plan.target = .builtin
        } else if let suggestion = Suggestions.closest(to: s.text, in: ["builtin"]) {
            error(
                "expected 'builtin' or a URL like http://127.0.0.1:8080 for 'target', found '\(s.display)' (did you mean '\(suggestion)'?)",
                at: s.location)
        } else if let url = parse(s, "target", .url) {
            plan.target = .url(url)
        }
    }

    /// `respondents` makes the load closed; a conflict with `rate` or `ramp` is found by the checks.
    mutating func readRespondents(_ entry: PlanEntry, into plan: inout Plan) {
        guard let respondents = read(entry, "respondents", .integer(atLeast: 1, "respondents")), !plan.run.load.isOpen else { return }
        plan.run.load = .closed(respondents: respondents)
    }

    mutating func readRate(_ entry: PlanEntry, into plan: inout Plan) {
        guard let rate = read(entry, "rate", .rate) else { return }
        if case .open(_, let ramp) = plan.run.load {
            plan.run.load = .open(rate: rate, ramp: ramp)
        } else {
            plan.run.load = .open(rate: rate, ramp: [])
        }
    }

    /// `ramp:` items of the form `- 30s: 50/s`.
    mutating func readRamp(_ entry: PlanEntry, into plan: inout Plan) {
        let expected = "stages like '- 30s: 50/s'"
        let items: [PlanNode]
        switch entry.value {
        case .list(let list, _): items = list
        case .empty: items = []
        case .invalid: return
        case .scalar, .mapping:
            error("expected a list of \(expected) for 'ramp', found \(entry.value.kindDescription)", at: entry.value.location)
            return
        }
        var stages: [RampStage] = []
        var failed = false
        // A stage may ramp down to zero, which a plain `rate` may not be.
        let targetRate = ValueKind<Rate>(expected: "a rate like 20/s or 600/m", summary: "rate", format: { $0.description }) { text in
            if let zero = text.split(separator: "/").first, parseDecimal(String(zero)) == 0 { return .value(Rate(perSecond: 0)) }
            return ValueKind<Rate>.rate.parse(text)
        }
        for item in items {
            guard case .mapping(let pairs, _) = item, pairs.count == 1, let pair = pairs.first else {
                if case .invalid = item {
                } else {
                    error(
                        "expected a ramp stage like '- 30s: 50/s' (a duration and the rate to reach), found \(item.kindDescription)",
                        at: item.location)
                }
                failed = true
                continue
            }
            let duration = parse(PlanScalar(pair.key, at: pair.keyLocation), "ramp", .positiveDuration("a ramp stage's duration"))
            let rate = read(pair, "ramp.\(pair.key)", targetRate)
            if let duration, let rate {
                stages.append(RampStage(duration: duration, target: rate))
            } else {
                failed = true
            }
        }
        guard !failed else { return }
        if case .open(let rate, _) = plan.run.load {
            plan.run.load = .open(rate: rate, ramp: stages)
        } else {
            plan.run.load = .open(rate: nil, ramp: stages)
        }
    }

    mutating func readHeaders(_ entry: PlanEntry, into plan: inout Plan) {
        plan.run.api.headers = headers(entry, at: "api.headers")
    }

    /// The `Name: value` entries of a block of header fields, such as `api.headers` or a step's
    /// `headers`, each checked as a field; the values may hold run-time variables.
    mutating func headers(_ entry: PlanEntry, at block: String) -> [HTTPHeader] {
        var fields: [HTTPHeader] = []
        for header in entries(entry.value, at: block) {
            let path = "\(block).\(header.key)"
            guard let value = scalar(header.value, keyLocation: header.keyLocation, path: path, expected: "a header value") else {
                continue
            }
            if !HTTPSyntax.isToken(header.key) {
                error(
                    "'\(header.key)' is not a valid header name (a token of letters, digits and !#$%&'*+-.^_`|~)", at: header.keyLocation)
            } else if HTTPSyntax.framingHeaders.contains(header.key.lowercased()) {
                error(
                    "'\(header.key)' is set by survey-bot and cannot be given in '\(block)' (it frames the request)",
                    at: header.keyLocation)
            } else {
                do throws(HTTPSyntaxError) {
                    try HTTPSyntax.checkFieldValue(value.text, name: header.key)
                    fields.append(HTTPHeader(name: header.key, value: value.text))
                    noteTemplate(path, value)
                } catch {
                    self.error(error.description, at: value.location)
                }
            }
        }
        return fields
    }

    /// Answers by question id (`3`, `q1`: the id's text, whether the API gives a number or a
    /// string), or `"*"` for the rest. An empty block keeps the default.
    mutating func readAnswers(_ entry: PlanEntry, into plan: inout Plan) {
        let answers = entries(entry.value, at: "answers")
        guard !answers.isEmpty else { return }
        var book = AnswerBook()
        book.types = plan.run.answers.types
        book.skipOptional = plan.run.answers.skipOptional
        for answer in answers {
            let path = "answers.\(answer.key)"
            let id = answer.key == "*" ? nil : QuestionID(answer.key)
            if case .scalar(let s) = answer.value, let picked = picker(s, path) {
                guard let picker = picked else { continue }
                if let id { book.pickers[id] = picker } else { book.fallbackPicker = picker }
                continue
            }
            guard let scalars = scalarList(answer, path, expected: "answers") else { continue }
            if scalars.isEmpty {
                error("'\(path)' needs an answer or a list of answers", at: answer.keyLocation)
                continue
            }
            let texts = scalars.map(\.text)
            for s in scalars { noteTemplate(path, s) }
            if let id { book.byQuestion[id] = texts } else { book.fallback = texts }
        }
        plan.run.answers = book
    }

    /// The answer picker an unquoted value written as one names (`choice()`, `number(0..10)`):
    /// nil when the value is no picker (a value as written); `.some(nil)` when it is one with an
    /// error, reported at its place.
    mutating func picker(_ s: PlanScalar, _ path: String) -> AnswerPicker?? {
        guard !s.isQuoted, !s.isFromEnvironment, AnswerSyntax.looksLikePicker(s.text) else { return nil }
        do throws(AnswerSyntax.Invalid) {
            let picker = try AnswerSyntax.parse(s.text)
            pickerLocations[path] = s.location
            return .some(picker)
        } catch {
            var at = s.location
            at.column += error.offset
            self.error("\(error.reason) for '\(path)'", at: at)
            return .some(nil)
        }
    }

    /// `types:`: how each type of question is answered (`answer:`, a picker or values) and its
    /// JSON shape (`value:`, `item:`), by the type as the survey names it.
    mutating func readTypes(_ entry: PlanEntry, into plan: inout Plan) {
        for type in entries(entry.value, at: "types") {
            let path = "types.\(type.key)"
            var rule: AnswerType?
            var value: String?
            var item: String?
            var each: String?
            for key in entries(type.value, at: path, known: ["answer", "value", "item", "each"]) {
                let keyPath = "\(path).\(key.key)"
                switch key.key {
                case "answer":
                    if case .scalar(let s) = key.value, let picked = picker(s, keyPath) {
                        if let picker = picked { rule = AnswerType(answer: picker) }
                    } else if let scalars = scalarList(key, keyPath, expected: "answers"), !scalars.isEmpty {
                        for s in scalars { noteTemplate(keyPath, s) }
                        rule = AnswerType(answer: .fixed(scalars.map(\.text)))
                    } else {
                        error("'\(keyPath)' needs an answer: choice(), number(0..10), words(2..8), a value or a list", at: key.keyLocation)
                    }
                case "value":
                    value = read(key, keyPath, .text)
                    seen[keyPath] = key
                case "each":
                    each = read(key, keyPath, .text)
                    seen[keyPath] = key
                default:
                    item = read(key, keyPath, .text)
                    seen[keyPath] = key
                }
            }
            guard var rule else {
                if case .mapping = type.value {
                    error("'\(path)' needs an 'answer': how questions of type \(type.key) are answered", at: type.keyLocation)
                } else {
                    error("'\(path)' is a block of 'answer' and, if need be, 'value' or 'item'", at: type.keyLocation)
                }
                continue
            }
            rule.value = value
            rule.item = item
            rule.each = each
            plan.run.answers.types[type.key] = rule
            typeLocations[type.key] = type.keyLocation
        }
    }

    /// `on: [400, 5xx, timeout, connection]`.
    mutating func readConditions(_ entry: PlanEntry, _ path: String) -> RetryConditions? {
        guard let names = scalarList(entry, path, expected: "conditions such as 400, 5xx, timeout, connection") else { return nil }
        var conditions = RetryConditions()
        for name in names {
            do throws(RetryConditions.UnknownName) {
                try conditions.add(name.text)
            } catch {
                let words = RetryConditions.errorNames + ["4xx", "5xx"]
                let hint = Suggestions.closest(to: name.text, in: words).map { " (did you mean '\($0)'?)" } ?? ""
                self.error(
                    "unknown retry condition '\(name.display)'\(hint); expected status codes like 400 or 5xx, or "
                        + RetryConditions.errorNames.joined(separator: ", "),
                    at: name.location)
            }
        }
        return conditions
    }

    mutating func readBudget(_ entry: PlanEntry, into plan: inout Plan) {
        guard let ratio = read(entry, "retry.budget", .fraction) else { return }
        var budget = plan.run.retry.budget ?? RetryBudgetPolicy(ratio: ratio)
        budget.ratio = ratio
        plan.run.retry.budget = budget
    }

    /// `budget_min` without `budget` is reported by the checks.
    mutating func readBudgetMinimum(_ entry: PlanEntry, into plan: inout Plan) {
        guard let minimum = read(entry, "retry.budget_min", .integer(atLeast: 0, "retry.budget_min")) else { return }
        var budget = plan.run.retry.budget ?? RetryBudgetPolicy(ratio: 0)
        budget.minimum = minimum
        plan.run.retry.budget = budget
    }

    mutating func readFormats(_ entry: PlanEntry, into plan: inout Plan) {
        guard let names = scalarList(entry, "report.formats", expected: "formats") else { return }
        guard !names.isEmpty else {
            error(
                "'report.formats' needs at least one of " + ReportFormat.allCases.map(\.rawValue).joined(separator: ", "),
                at: entry.keyLocation)
            return
        }
        var formats: [ReportFormat] = []
        for name in names {
            if let format = parse(name, "report.formats", ValueKind<ReportFormat>.word), !formats.contains(format) {
                formats.append(format)
            }
        }
        plan.report.formats = formats
    }
}

extension ValueKind where Value == String {
    /// Any text.
    static let text = ValueKind(expected: "text", summary: "text", format: { $0 }) { .value($0) }

    /// A host name as SNI sends it and a certificate must name: no NUL, which OpenSSL would
    /// cut the name at, no control character, space or other byte a host cannot hold.
    static let hostName = text.checked(summary: "host name") { name in
        do throws(HTTPSyntaxError) {
            try HTTPSyntax.checkHost(name)
            return nil
        } catch {
            return error.description
        }
    }

    /// The path of a file; whether it can be read, and is what it should be, is checked with
    /// the rest of the TLS settings (`PlanDecoder+Checks.swift`).
    static let readablePath = text.checked(summary: "path") { $0.isEmpty ? "a path cannot be empty" : nil }
}

extension ValueKind where Value == SurveyAPI.Call {
    /// `GET /questions`, or just `/questions` with the default method.
    static func call(defaultMethod: String) -> ValueKind {
        ValueKind(
            expected: "a method and path like '\(defaultMethod) /path'", summary: "`METHOD /path` or `/path`", format: { $0.description }
        ) {
            text in
            // The method ends at the first space; all the rest is the path, so that a space or
            // a line break in it is named as such rather than read as a third word.
            let trimmed = Substring(text).drop { $0 == " " }
            guard !trimmed.isEmpty else { return .wrongKind }
            let method: String
            let target: Substring
            if trimmed.first != "/", let space = trimmed.firstIndex(of: " ") {
                method = String(trimmed[..<space])
                target = trimmed[space...].drop { $0 == " " }
            } else {
                (method, target) = (defaultMethod, trimmed)
            }
            guard !method.isEmpty, method.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                return .invalid("'\(method)' is not an HTTP method (GET, POST, PUT, …) in '\(text)'")
            }
            guard target.hasPrefix("/") else {
                return .invalid("an API path starts with '/', found '\(target)'")
            }
            // Run-time variables (`${row.panel}`) are checked as the text they stand for, which
            // is percent-encoded when they are filled in.
            var checked = String(target)
            if TextTemplate.mentionsVariables(checked) {
                do throws(TemplateError) {
                    checked = try TextTemplate(parsing: checked).segments.map { segment in
                        if case .literal(let text) = segment { text } else { "x" }
                    }.joined()
                } catch {
                    return .invalid(error.description)
                }
            }
            do throws(HTTPSyntaxError) {
                try HTTPSyntax.checkRequestTarget(checked)
            } catch {
                return .invalid(error.description)
            }
            return .value(SurveyAPI.Call(method: method, path: String(target)))
        }
    }
}

extension ValueKind where Value == ReferenceServerConfiguration.Questions {
    /// How many of the built-in questions to serve.
    static let builtinQuestions: ValueKind = {
        let count = ValueKind<Int>.integer(in: 1...10_000, "builtin.questions")
        return ValueKind(
            expected: count.expected, summary: count.summary,
            format: { questions in
                guard case .builtin(let count) = questions else { return "" }
                return String(count)
            }, parse: { count.parse($0).map { .builtin(count: $0) } })
    }()
}

extension ValueKind where Value == ReferenceServerConfiguration.TLS {
    /// `builtin.tls: true`: a self-signed certificate made at start.
    static let builtinTLS = ValueKind(
        expected: ValueKind<Bool>.boolean.expected, summary: "boolean", format: { $0 == .off ? "false" : "true" },
        parse: { ValueKind<Bool>.boolean.parse($0).map { $0 ? .selfSigned : .off } })
}

extension ValueParse {
    func map<T>(_ transform: (Value) -> T) -> ValueParse<T> {
        switch self {
        case .value(let v): return .value(transform(v))
        case .wrongKind: return .wrongKind
        case .invalid(let reason), .invalidAt(let reason, _): return .invalid(reason)
        }
    }
}
