import Foundation
import SurveyEngine

/// Gives meaning to a parsed plan tree: checks every key and value, applies defaults, and
/// collects every error rather than stopping at the first.
struct PlanDecoder {
    private(set) var diagnostics: [Diagnostic] = []
    private var environmentKeys: Set<String> = []
    /// Cross-checks between keys (answers covering every builtin question) only run on a tree
    /// without syntax errors: a line dropped by a syntax error would only cause a second error.
    var crossChecks = true

    /// Decodes the root mapping. Returns nil when any error was found.
    mutating func decode(_ root: PlanNode, defaultName: String) -> Plan? {
        let top = mapping(root, at: "", known: Plan.topLevelKeys)

        let name = read(top["name"], "name", .text) ?? defaultName
        let target = readTarget(top["target"]) ?? .builtin
        let concurrency = read(top["concurrency"], "concurrency", .integer(atLeast: 1, "concurrency")) ?? Plan.Defaults.concurrency
        let duration = read(top["duration"], "duration", .positiveDuration("duration"))
        let timeout = read(top["timeout"], "timeout", .positiveDuration("timeout")) ?? Plan.Defaults.timeout
        let connectTimeout = read(top["connect_timeout"], "connect_timeout", .positiveDuration("connect_timeout")) ?? timeout
        let think = read(top["think"], "think", .durationRange) ?? .zero
        let order =
            read(top["order"], "order", .oneOf(QuestionOrder.allCases.map(\.rawValue)) { QuestionOrder(rawValue: $0) }) ?? .sequential
        let seed = read(top["seed"], "seed", .seed)
        let load = readLoad(top, duration: duration)
        let api = readAPI(top["api"])
        let builtin = readBuiltin(top["builtin"])
        let answers = readAnswers(top["answers"], target: target, builtin: builtin)
        let retry = readRetry(top["retry"])
        let thresholds = readThresholds(top["thresholds"])
        let report = readReport(top["report"])

        guard diagnostics.isEmpty, let load else { return nil }
        return Plan(
            name: name, target: target, load: load, concurrency: concurrency, duration: duration,
            timeout: timeout, connectTimeout: connectTimeout, think: think, order: order, seed: seed,
            api: api, answers: answers, retry: retry, thresholds: thresholds, builtin: builtin,
            report: report, environmentKeys: environmentKeys)
    }

    // MARK: - Reading nodes

    mutating func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(message, at: location))
    }

    /// The entries of a mapping by key; unknown keys are reported with a did-you-mean.
    /// `known` nil accepts any key (answers, headers, thresholds).
    mutating func mapping(_ node: PlanNode?, at path: String, known: [String]?) -> [String: PlanEntry] {
        guard let node else { return [:] }
        switch node {
        case .mapping(let entries, _):
            var result: [String: PlanEntry] = [:]
            for entry in entries {
                if let known, !known.contains(entry.key) {
                    let place = path.isEmpty ? "" : " in '\(path)'"
                    if let suggestion = Suggestions.closest(to: entry.key, in: known) {
                        error("unknown key '\(entry.key)'\(place) (did you mean '\(suggestion)'?)", at: entry.keyLocation)
                    } else {
                        error("unknown key '\(entry.key)'\(place); known keys: \(known.joined(separator: ", "))", at: entry.keyLocation)
                    }
                    continue
                }
                result[entry.key] = entry
            }
            return result
        case .empty, .invalid:
            return [:]
        case .scalar, .list:
            error("expected a block of keys under '\(path)', found \(node.kindDescription)", at: node.location)
            return [:]
        }
    }

    /// The entries of a mapping in source order (for keys that are data: answers, headers).
    mutating func orderedEntries(_ node: PlanNode?, at path: String) -> [PlanEntry] {
        guard let node else { return [] }
        switch node {
        case .mapping(let entries, _): return entries
        case .empty, .invalid: return []
        case .scalar, .list:
            error("expected a block of keys under '\(path)', found \(node.kindDescription)", at: node.location)
            return []
        }
    }

    /// The scalar of an entry, or nil after reporting what was there instead.
    mutating func scalar(_ node: PlanNode, keyLocation: SourceLocation, path: String, expected: String) -> PlanScalar? {
        switch node {
        case .scalar(let s):
            if s.isFromEnvironment { environmentKeys.insert(path) }
            return s
        case .invalid:
            return nil
        case .empty:
            error("'\(path)' needs a value: expected \(expected)", at: keyLocation)
            return nil
        case .list, .mapping:
            error("expected \(expected) for '\(path)', found \(node.kindDescription)", at: node.location)
            return nil
        }
    }

    /// Parses a scalar of the given kind; every error names the key and the expected kind.
    mutating func parse<T>(_ s: PlanScalar, _ path: String, _ kind: ValueKind<T>) -> T? {
        switch kind.parse(s.text) {
        case .value(let v): return v
        case .wrongKind:
            error("expected \(kind.expected) for '\(path)', found '\(s.text)'", at: s.location)
        case .invalid(let reason):
            error(reason, at: s.location)
        }
        return nil
    }

    mutating func read<T>(_ entry: PlanEntry?, _ path: String, _ kind: ValueKind<T>) -> T? {
        guard let entry, let s = scalar(entry.value, keyLocation: entry.keyLocation, path: path, expected: kind.expected) else {
            return nil
        }
        return parse(s, path, kind)
    }

    /// A list of scalars; a single scalar counts as a list of one.
    mutating func scalarList(_ entry: PlanEntry?, _ path: String, expected: String) -> [PlanScalar]? {
        guard let entry else { return nil }
        switch entry.value {
        case .scalar(let s):
            if s.isFromEnvironment { environmentKeys.insert(path) }
            return [s]
        case .list(let items, _):
            var scalars: [PlanScalar] = []
            for item in items {
                if let s = scalar(item, keyLocation: item.location, path: path, expected: expected) { scalars.append(s) }
            }
            return scalars
        case .empty:
            return []
        case .invalid:
            return nil
        case .mapping:
            error("expected a list of \(expected) for '\(path)', found a mapping", at: entry.value.location)
            return nil
        }
    }

    // MARK: - Keys

    private mutating func readTarget(_ entry: PlanEntry?) -> Plan.Target? {
        guard let entry,
            let s = scalar(entry.value, keyLocation: entry.keyLocation, path: "target", expected: ValueKind<HTTPTarget>.url.expected)
        else { return nil }
        if s.text.lowercased() == "builtin" { return .builtin }
        if let suggestion = Suggestions.closest(to: s.text, in: ["builtin"]) {
            error(
                "expected 'builtin' or a URL like http://127.0.0.1:8080 for 'target', found '\(s.text)' (did you mean '\(suggestion)'?)",
                at: s.location)
            return nil
        }
        return parse(s, "target", .url).map(Plan.Target.url)
    }

    private mutating func readLoad(_ top: [String: PlanEntry], duration: Duration?) -> Plan.Load? {
        let respondents = read(top["respondents"], "respondents", .integer(atLeast: 1, "respondents"))
        let rate = read(top["rate"], "rate", .rate)
        let ramp = readRamp(top["ramp"])
        let isOpen = top["rate"] != nil || top["ramp"] != nil
        if isOpen, let entry = top["respondents"] {
            error(
                "'respondents' belongs to the closed model, but this plan sets '\(top["rate"] != nil ? "rate" : "ramp")' (the open model); remove one",
                at: entry.keyLocation)
            return nil
        }
        guard isOpen else {
            if top["respondents"] != nil && respondents == nil { return nil }
            return .closed(respondents: respondents ?? Plan.Defaults.respondents)
        }
        if let entry = top["rate"], rate != nil, duration == nil, top["ramp"] == nil {
            error("a plan with 'rate' needs 'duration': how long new respondents keep arriving", at: entry.keyLocation)
            return nil
        }
        if top["rate"] != nil && rate == nil { return nil }
        guard let ramp else { return nil }
        if top["rate"] == nil && ramp.isEmpty, let entry = top["ramp"] {
            error("'ramp' needs at least one stage such as '- 30s: 50/s'", at: entry.keyLocation)
            return nil
        }
        return .open(rate: rate, ramp: ramp)
    }

    /// `ramp:` items of the form `- 30s: 50/s`. Nil after an error.
    private mutating func readRamp(_ entry: PlanEntry?) -> [RampStage]? {
        guard let entry else { return [] }
        let expected = "stages like '- 30s: 50/s'"
        let items: [PlanNode]
        switch entry.value {
        case .list(let list, _): items = list
        case .empty: return []
        case .invalid: return nil
        case .scalar, .mapping:
            error("expected a list of \(expected) for 'ramp', found \(entry.value.kindDescription)", at: entry.value.location)
            return nil
        }
        var stages: [RampStage] = []
        var failed = false
        let targetRate = ValueKind<Rate>(expected: "a rate like 20/s or 600/m") { text in
            // A stage may ramp down to zero, which a plain `rate` may not be.
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
            let durationScalar = PlanScalar(pair.key, at: pair.keyLocation)
            let duration = parse(durationScalar, "ramp", .positiveDuration("a ramp stage's duration"))
            let rate = read(pair, "ramp.\(pair.key)", targetRate)
            if let duration, let rate {
                stages.append(RampStage(duration: duration, target: rate))
            } else {
                failed = true
            }
        }
        return failed ? nil : stages
    }

    private mutating func readAPI(_ entry: PlanEntry?) -> SurveyAPI {
        var api = SurveyAPI()
        let fields = mapping(entry?.value, at: "api", known: ["questions", "submit", "headers"])
        if let call = readCall(fields["questions"], "api.questions", defaultMethod: "GET") { api.questions = call }
        if let call = readCall(fields["submit"], "api.submit", defaultMethod: "POST") { api.submit = call }
        for header in orderedEntries(fields["headers"]?.value, at: "api.headers") {
            let path = "api.headers.\(header.key)"
            guard let value = scalar(header.value, keyLocation: header.keyLocation, path: path, expected: "a header value") else {
                continue
            }
            if !Self.isToken(header.key) {
                error("'\(header.key)' is not a valid header name", at: header.keyLocation)
            } else if ["content-length", "transfer-encoding", "connection"].contains(header.key.lowercased()) {
                error("'\(header.key)' is set by survey-bot and cannot be given in 'api.headers'", at: header.keyLocation)
            } else if value.text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                error("the value of header '\(header.key)' contains a line break", at: value.location)
            } else {
                api.headers.append(HTTPHeader(name: header.key, value: value.text))
            }
        }
        return api
    }

    /// `GET /questions`, or just `/questions` with the default method.
    private mutating func readCall(_ entry: PlanEntry?, _ path: String, defaultMethod: String) -> SurveyAPI.Call? {
        let kind = ValueKind<SurveyAPI.Call>(expected: "a method and path like '\(defaultMethod) /path'") { text in
            let parts = text.split(separator: " ", omittingEmptySubsequences: true)
            let method: String
            let target: Substring
            switch parts.count {
            case 1: (method, target) = (defaultMethod, parts[0])
            case 2: (method, target) = (String(parts[0]), parts[1])
            default: return .wrongKind
            }
            guard !method.isEmpty, method.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                return .invalid("'\(method)' is not an HTTP method (GET, POST, PUT, …) in '\(text)'")
            }
            guard target.hasPrefix("/") else {
                return .invalid("an API path starts with '/', found '\(target)'")
            }
            guard target.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "#" }) else {
                return .invalid("the path '\(target)' has characters that need percent-encoding")
            }
            return .value(SurveyAPI.Call(method: method, path: String(target)))
        }
        return read(entry, path, kind)
    }

    private mutating func readAnswers(_ entry: PlanEntry?, target: Plan.Target, builtin: ReferenceServerConfiguration) -> AnswerBook {
        var book = AnswerBook()
        let entries = orderedEntries(entry?.value, at: "answers")
        guard !entries.isEmpty else {
            book.fallback = [Plan.Defaults.fallbackAnswer]
            return book
        }
        for answer in entries {
            let path = "answers.\(answer.key)"
            let id: Int?
            if answer.key == "*" {
                id = nil
            } else if let parsed = Int(answer.key), answer.key.allSatisfy(\.isNumber) {
                id = parsed
            } else {
                error("answer keys are question ids (integers) or \"*\", found '\(answer.key)'", at: answer.keyLocation)
                continue
            }
            guard let scalars = scalarList(answer, path, expected: "answers") else { continue }
            if scalars.isEmpty {
                error("'\(path)' needs an answer or a list of answers", at: answer.keyLocation)
                continue
            }
            let texts = scalars.map(\.text)
            if let id { book.byQuestion[id] = texts } else { book.fallback = texts }
        }
        if crossChecks, target == .builtin, case .builtin(let count) = builtin.questions, let entry {
            let missing = book.unanswerable(among: 1...count)
            if !missing.isEmpty {
                let list = missing.prefix(8).map(String.init).joined(separator: ", ") + (missing.count > 8 ? ", …" : "")
                error(
                    "no answer for question\(missing.count == 1 ? "" : "s") \(list) of the builtin server's \(count), and no \"*\" answer for the rest",
                    at: entry.keyLocation)
            }
        }
        return book
    }

    private mutating func readRetry(_ entry: PlanEntry?) -> Plan.Retry {
        let fields = mapping(entry?.value, at: "retry", known: ["questions", "submit", "budget", "budget_min"])
        let questions = readPolicy(fields["questions"], "retry.questions", defaults: Plan.Defaults.questionsRetry)
        let submit = readPolicy(fields["submit"], "retry.submit", defaults: Plan.Defaults.submitRetry)
        var budget: RetryBudgetPolicy?
        if let ratio = read(fields["budget"], "retry.budget", .fraction) {
            budget = RetryBudgetPolicy(ratio: ratio)
        }
        if let minimum = read(fields["budget_min"], "retry.budget_min", .integer(atLeast: 0, "retry.budget_min")) {
            if budget == nil, let entry = fields["budget_min"] {
                error("'retry.budget_min' needs 'retry.budget' (the share of calls that may be retried)", at: entry.keyLocation)
            }
            budget?.minimum = minimum
        }
        return Plan.Retry(questions: questions, submit: submit, budget: budget)
    }

    private mutating func readPolicy(_ entry: PlanEntry?, _ path: String, defaults: RetryPolicy) -> RetryPolicy {
        guard let entry else { return defaults }
        let fields = mapping(entry.value, at: path, known: ["attempts", "backoff", "initial", "max", "multiplier", "jitter", "on"])
        var policy = defaults
        if let attempts = read(fields["attempts"], "\(path).attempts", .integer(in: 1...1000, "attempts")) {
            policy.attempts = attempts
        }
        if let strategy = read(
            fields["backoff"], "\(path).backoff", .oneOf(Backoff.Strategy.allCases.map(\.rawValue)) { Backoff.Strategy(rawValue: $0) })
        {
            policy.backoff.strategy = strategy
        }
        if let jitter = read(fields["jitter"], "\(path).jitter", .oneOf(Jitter.allCases.map(\.rawValue)) { Jitter(rawValue: $0) }) {
            policy.jitter = jitter
        }
        let initial = read(fields["initial"], "\(path).initial", .duration)
        let max = read(fields["max"], "\(path).max", .positiveDuration("max"))
        if let initial { policy.backoff.initial = initial }
        if let max {
            policy.backoff.max = max
        } else if let initial, initial > policy.backoff.max {
            policy.backoff.max = initial
        }
        if let initial, let max, initial > max, let entry = fields["initial"] {
            error(
                "'\(path).initial' (\(initial.compactDescription)) is more than '\(path).max' (\(max.compactDescription))",
                at: entry.value.location)
        }
        if let multiplier = read(
            fields["multiplier"], "\(path).multiplier",
            ValueKind<Double>.number.checked { $0 < 1 ? "multiplier must be at least 1, found \($0)" : nil })
        {
            policy.backoff.multiplier = multiplier
        }
        if let names = scalarList(fields["on"], "\(path).on", expected: "conditions such as 400, 5xx, timeout, connection") {
            var conditions = RetryConditions()
            for name in names {
                do throws(RetryConditions.UnknownName) {
                    try conditions.add(name.text)
                } catch {
                    let words = RetryConditions.errorNames + ["4xx", "5xx"]
                    let hint = Suggestions.closest(to: name.text, in: words).map { " (did you mean '\($0)'?)" } ?? ""
                    self.error(
                        "unknown retry condition '\(name.text)'\(hint); expected status codes like 400 or 5xx, or \(RetryConditions.errorNames.joined(separator: ", "))",
                        at: name.location)
                }
            }
            policy.retryOn = conditions
        }
        return policy
    }

    private mutating func readThresholds(_ entry: PlanEntry?) -> [Threshold] {
        var thresholds: [Threshold] = []
        for item in orderedEntries(entry?.value, at: "thresholds") {
            guard let (scope, metric) = thresholdName(item) else {
                // Still look at the value, so its own errors are reported too.
                _ = scalar(item.value, keyLocation: item.keyLocation, path: "thresholds.\(item.key)", expected: "a comparison")
                continue
            }
            let path = "thresholds.\(item.key)"
            guard
                let s = scalar(
                    item.value, keyLocation: item.keyLocation, path: path, expected: "a comparison like \"< 300ms\" or \">= 95%\"")
            else { continue }
            if let threshold = thresholdValue(s, scope: scope, metric: metric, path: path) {
                thresholds.append(threshold)
            }
        }
        return thresholds
    }

    private mutating func thresholdName(_ item: PlanEntry) -> (Threshold.Scope, Threshold.Metric)? {
        let parts = item.key.split(separator: ".", maxSplits: 1).map(String.init)
        let scopes = Threshold.Scope.allCases.map(\.rawValue)
        let metrics = Threshold.Metric.allCases.map(\.rawValue)
        guard parts.count == 2 else {
            error("a threshold is named 'endpoint.metric' such as 'submit.p95', found '\(item.key)'", at: item.keyLocation)
            return nil
        }
        guard let scope = Threshold.Scope(rawValue: parts[0]) else {
            let hint = Suggestions.closest(to: parts[0], in: scopes).map { " (did you mean '\($0)'?)" } ?? ""
            error("unknown threshold scope '\(parts[0])'\(hint); expected \(scopes.joined(separator: ", "))", at: item.keyLocation)
            return nil
        }
        let metricLocation = SourceLocation(
            origin: item.keyLocation.origin, line: item.keyLocation.line, column: item.keyLocation.column + parts[0].count + 1)
        guard let metric = Threshold.Metric(rawValue: parts[1]) else {
            let hint = Suggestions.closest(to: parts[1], in: metrics).map { " (did you mean '\($0)'?)" } ?? ""
            error("unknown threshold metric '\(parts[1])'\(hint); expected \(metrics.joined(separator: ", "))", at: metricLocation)
            return nil
        }
        guard metric.applies(to: scope) else {
            error("'\(metric.rawValue)' is measured for the whole survey: write 'survey.\(metric.rawValue)'", at: metricLocation)
            return nil
        }
        return (scope, metric)
    }

    private mutating func thresholdValue(_ s: PlanScalar, scope: Threshold.Scope, metric: Threshold.Metric, path: String) -> Threshold? {
        let text = s.text.trimmingCharacters(in: " ")
        guard let comparison = Threshold.Comparison.allCases.first(where: { text.hasPrefix($0.rawValue) }) else {
            error("expected a comparison like \"< 300ms\" or \">= 95%\" for '\(path)', found '\(s.text)'", at: s.location)
            return nil
        }
        let limitText = String(text.dropFirst(comparison.rawValue.count)).trimmingCharacters(in: " ")
        var limitScalar = s
        limitScalar.text = limitText
        let limit: Double?
        switch metric.unit {
        case .latency:
            let kind = ValueKind<Double>(expected: "a latency like 300ms for '\(metric.rawValue)'") { text in
                if let ms = parseDecimal(text), ms >= 0 { return .value(ms) }
                switch parseDuration(text) {
                case .value(let d): return .value(d.milliseconds)
                case .wrongKind: return .wrongKind
                case .invalid(let reason): return .invalid(reason)
                }
            }
            limit = parse(limitScalar, path, kind)
        case .ratio:
            limit = parse(limitScalar, path, .fraction)
        case .count:
            limit = parse(limitScalar, path, ValueKind<Double>.number.checked { $0 < 0 ? "a count cannot be negative" : nil })
        case .perSecond:
            let kind = ValueKind<Double>(expected: "a rate like 100/s") { text in
                if let n = parseDecimal(text) { return .value(n) }
                return ValueKind<Rate>.rate.parse(text).map(\.perSecond)
            }
            limit = parse(limitScalar, path, kind)
        }
        guard let limit else { return nil }
        return Threshold(scope: scope, metric: metric, comparison: comparison, limit: limit, limitText: limitText)
    }

    private mutating func readBuiltin(_ entry: PlanEntry?) -> ReferenceServerConfiguration {
        var config = ReferenceServerConfiguration()
        let fields = mapping(
            entry?.value, at: "builtin",
            known: [
                "questions", "questions_file", "fail_rate", "error_rate", "cold_start", "latency",
                "reset_rate", "malformed_rate", "slow_rate", "trickle", "hang_rate",
            ])
        if let count = read(fields["questions"], "builtin.questions", .integer(in: 1...10_000, "builtin.questions")) {
            config.questions = .builtin(count: count)
        }
        let readable = ValueKind<String>.text.checked { path in
            FileManager.default.isReadableFile(atPath: path) ? nil : "cannot read builtin.questions_file '\(path)'"
        }
        if let file = read(fields["questions_file"], "builtin.questions_file", readable) {
            if let entry = fields["questions"] {
                error("give either 'builtin.questions' or 'builtin.questions_file', not both", at: entry.keyLocation)
            }
            config.questions = .file(file)
        }
        var faults = ServerFaults()
        faults.failRate = read(fields["fail_rate"], "builtin.fail_rate", .fraction) ?? 0
        faults.errorRate = read(fields["error_rate"], "builtin.error_rate", .fraction) ?? 0
        faults.coldStart = read(fields["cold_start"], "builtin.cold_start", .integer(atLeast: 0, "builtin.cold_start")) ?? 0
        faults.latency = read(fields["latency"], "builtin.latency", .durationRange) ?? .zero
        faults.resetRate = read(fields["reset_rate"], "builtin.reset_rate", .fraction) ?? 0
        faults.malformedRate = read(fields["malformed_rate"], "builtin.malformed_rate", .fraction) ?? 0
        faults.slowRate = read(fields["slow_rate"], "builtin.slow_rate", .fraction) ?? 0
        faults.trickleInterval = read(fields["trickle"], "builtin.trickle", .positiveDuration("builtin.trickle")) ?? faults.trickleInterval
        faults.hangRate = read(fields["hang_rate"], "builtin.hang_rate", .fraction) ?? 0
        let rateKeys = ["fail_rate", "error_rate", "reset_rate", "malformed_rate", "slow_rate", "hang_rate"]
        let connectionFaults = faults.errorRate + faults.resetRate + faults.malformedRate + faults.slowRate + faults.hangRate
        if connectionFaults > 1.0000001, let entry = rateKeys.compactMap({ fields[$0] }).last {
            error("the builtin fault rates other than fail_rate add up to more than 100%", at: entry.keyLocation)
        }
        config.faults = faults
        return config
    }

    private mutating func readReport(_ entry: PlanEntry?) -> Plan.ReportSettings {
        var settings = Plan.ReportSettings(
            formats: Plan.Defaults.reportFormats, directory: Plan.Defaults.reportDirectory, includeAnswers: false)
        let fields = mapping(entry?.value, at: "report", known: ["formats", "dir", "include_answers"])
        if let names = scalarList(fields["formats"], "report.formats", expected: "formats") {
            let kind = ValueKind<Plan.ReportSettings.Format>.oneOf(Plan.ReportSettings.Format.allCases.map(\.rawValue)) {
                Plan.ReportSettings.Format(rawValue: $0)
            }
            var formats: [Plan.ReportSettings.Format] = []
            for name in names {
                if let format = parse(name, "report.formats", kind), !formats.contains(format) { formats.append(format) }
            }
            if formats.isEmpty, names.isEmpty, let entry = fields["formats"] {
                error("'report.formats' needs at least one of json, markdown, junit", at: entry.keyLocation)
            }
            if !names.isEmpty { settings.formats = formats }
        }
        if let dir = read(fields["dir"], "report.dir", ValueKind<String>.text.checked { $0.isEmpty ? "'report.dir' cannot be empty" : nil })
        {
            settings.directory = dir
        }
        if let include = read(fields["include_answers"], "report.include_answers", .boolean) {
            settings.includeAnswers = include
        }
        return settings
    }

    /// RFC 9110 token characters, the ones a header name may use.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { c in
                c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(c))
            }
    }
}

extension ValueKind where Value == String {
    /// Any text.
    static let text = ValueKind(expected: "text") { .value($0) }
}

extension ValueParse {
    func map<T>(_ transform: (Value) -> T) -> ValueParse<T> {
        switch self {
        case .value(let v): return .value(transform(v))
        case .wrongKind: return .wrongKind
        case .invalid(let reason): return .invalid(reason)
        }
    }
}
