import SurveyEngine
import SurveyJourney
import SurveyWire

/// One kind of scalar a plan key takes — a duration, a rate, a percentage — with its parser, the
/// way back to plan text, and the phrases naming it in errors and in the key reference. The same
/// kinds parse plan files and CLI options.
struct ValueKind<Value>: Sendable {
    /// How the kind is named after "expected", e.g. "a duration like 250ms, 5s or 1m30s".
    let expected: String
    /// How the key reference names it, e.g. "duration > 0".
    let summary: String
    let parse: @Sendable (String) -> ValueParse<Value>
    /// A value as a plan would write it: `250ms`, `20%`, `10/s`.
    let format: @Sendable (Value) -> String

    init(
        expected: String, summary: String, format: @escaping @Sendable (Value) -> String,
        parse: @escaping @Sendable (String) -> ValueParse<Value>
    ) {
        self.expected = expected
        self.summary = summary
        self.format = format
        self.parse = parse
    }
}

/// The result of parsing a scalar as some kind.
enum ValueParse<Value> {
    case value(Value)
    /// The text is not of this kind at all: "expected <kind>, found '<text>'".
    case wrongKind
    /// The text is of this kind but its value is not acceptable, with the reason.
    case invalid(String)
    /// As `invalid`, about the part of the text that starts `offset` characters in (a
    /// distribution's argument): the error's caret goes there.
    case invalidAt(String, offset: Int)
}

extension ValueKind {
    /// Parses `text`, returning the value or the full error message.
    func read(_ text: String) -> Result<Value, ValueKindError> {
        switch parse(text) {
        case .value(let v): return .success(v)
        case .wrongKind: return .failure(ValueKindError(message: "expected \(expected), found '\(text)'"))
        case .invalid(let reason), .invalidAt(let reason, _): return .failure(ValueKindError(message: reason))
        }
    }

    /// The same kind with an extra check on parsed values (nil when acceptable), named
    /// `summary` in the key reference when given.
    func checked(summary: String? = nil, _ check: @escaping @Sendable (Value) -> String?) -> ValueKind<Value> {
        let parse = self.parse
        return ValueKind(expected: expected, summary: summary ?? self.summary, format: format) { text in
            switch parse(text) {
            case .value(let v):
                if let problem = check(v) { return .invalid(problem) }
                return .value(v)
            case let other: return other
            }
        }
    }
}

struct ValueKindError: Error, Sendable {
    var message: String
}

extension ValueKind where Value == Int {
    static let integer = ValueKind(expected: "an integer", summary: "integer", format: { String($0) }) { text in
        let digits = text.replacingUnderscoresBetweenDigits
        guard !digits.isEmpty else { return .wrongKind }
        var body = Substring(digits)
        var negative = false
        if body.first == "-" || body.first == "+" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        guard !body.isEmpty, body.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .wrongKind }
        guard let magnitude = Int(body) else { return .invalid("'\(text)' is too large") }
        return .value(negative ? -magnitude : magnitude)
    }

    /// An integer of at least `minimum`, naming `what` in the error.
    static func integer(atLeast minimum: Int, _ what: String) -> ValueKind<Int> {
        integer.checked(summary: "integer ≥ \(minimum)") { $0 < minimum ? "\(what) must be at least \(minimum), found \($0)" : nil }
    }

    static func integer(in range: ClosedRange<Int>, _ what: String) -> ValueKind<Int> {
        integer.checked(summary: "integer \(range.lowerBound)–\(range.upperBound)") {
            range.contains($0) ? nil : "\(what) must be between \(range.lowerBound) and \(range.upperBound), found \($0)"
        }
    }
}

extension ValueKind where Value == Int {
    /// `1MiB`, `512KiB`, `2MB`, `1.5GiB`, or a count of bytes: `1000000`. KiB, MiB and GiB are
    /// powers of 1024; KB, MB and GB powers of 1000; the unit in any case, a space before it allowed.
    static let byteSize = ValueKind(
        expected: "a byte size like 1MiB, 512KiB, 2MB or 1000000", summary: "byte size", format: ByteSize.text
    ) { text in
        ByteSize.parse(text)
    }

    /// A byte size within `range`, naming `what` in the error.
    static func byteSize(in range: ClosedRange<Int>, _ what: String) -> ValueKind<Int> {
        let (low, high) = (ByteSize.text(range.lowerBound), ByteSize.text(range.upperBound))
        return byteSize.checked(summary: "byte size \(low)–\(high)") { value in
            if value < range.lowerBound { return "\(what) must be at least \(low), found \(ByteSize.text(value))" }
            if value > range.upperBound { return "\(what) must be at most \(high), found \(ByteSize.text(value))" }
            return nil
        }
    }
}

/// The spelling of byte sizes.
private enum ByteSize {
    static let units: [(name: String, bytes: Int)] = [
        ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1000), ("B", 1),
    ]

    /// In the largest unit that holds it whole: `1MiB`, `2MB`, `1000001B`.
    @Sendable static func text(_ bytes: Int) -> String {
        let unit = units.first { bytes != 0 && bytes % $0.bytes == 0 } ?? ("B", 1)
        return "\(bytes / unit.bytes)\(unit.name)"
    }

    @Sendable static func parse(_ text: String) -> ValueParse<Int> {
        let trimmed = text.trimmingCharacters(in: " ")
        var rest = Substring(trimmed.replacingUnderscoresBetweenDigits)
        let negative = rest.first == "-"
        if negative || rest.first == "+" { rest = rest.dropFirst() }
        let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let unit = rest.dropFirst(number.count).trimmingCharacters(in: " ")
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard number.contains(where: \.isNumber), parts.count <= 2, unit.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return .wrongKind
        }
        if negative { return .invalid("a byte size cannot be negative, found '\(trimmed)'") }
        guard let multiplier = unit.isEmpty ? 1 : units.first(where: { $0.name.lowercased() == unit.lowercased() })?.bytes else {
            if ["k", "m", "g"].contains(unit.lowercased()) {
                let prefix = unit.uppercased()
                return .invalid(
                    "'\(trimmed)' is ambiguous: write \(number)\(prefix)iB for powers of 1024 or \(number)\(prefix)B for powers of 1000")
            }
            return .invalid("unknown unit '\(unit)' in '\(trimmed)': use B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024)")
        }
        // Exactly, in integers: whole · multiplier + fraction · multiplier / 10^digits.
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 9, let whole = parts[0].isEmpty ? 0 : Int(parts[0]), let numerator = fraction.isEmpty ? 0 : Int(fraction)
        else { return .invalid("'\(trimmed)' is too large") }
        var denominator = 1
        for _ in 0..<fraction.count { denominator *= 10 }
        let (wholeBytes, overflow) = whole.multipliedReportingOverflow(by: multiplier)
        let (fractionBytes, remainder) = (numerator * multiplier).quotientAndRemainder(dividingBy: denominator)
        guard !overflow, wholeBytes <= Int.max - fractionBytes else { return .invalid("'\(trimmed)' is too large") }
        guard remainder == 0 else { return .invalid("'\(trimmed)' is not a whole number of bytes") }
        return .value(wholeBytes + fractionBytes)
    }
}

extension ValueKind where Value == UInt64 {
    static let seed = ValueKind(expected: "a non-negative integer seed", summary: "non-negative integer", format: { String($0) }) { text in
        let digits = text.replacingUnderscoresBetweenDigits
        guard !digits.isEmpty else { return .wrongKind }
        if digits.hasPrefix("-"), digits.dropFirst().allSatisfy(\.isNumber) {
            return .invalid("the seed must not be negative, found \(text)")
        }
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .wrongKind }
        guard let value = UInt64(digits) else { return .invalid("the seed '\(text)' is too large (at most \(UInt64.max))") }
        return .value(value)
    }
}

extension ValueKind where Value == Double {
    /// A plain decimal number such as `2` or `1.5`.
    static let number = ValueKind(
        expected: "a number", summary: "number", format: { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int($0)) : String($0) }
    ) { text in
        guard let value = parseDecimal(text) else { return .wrongKind }
        return .value(value)
    }

    /// `5%` or a fraction `0.05`, as a fraction between 0 and 1.
    static let fraction = ValueKind(
        expected: "a percentage like 5% or a fraction like 0.05", summary: "percentage", format: { Readable.percent($0) }
    ) { text in
        let trimmed = text.trimmingCharacters(in: " ")
        if trimmed.hasSuffix("%") {
            guard let percent = parseDecimal(String(trimmed.dropLast()).trimmingCharacters(in: " ")) else { return .wrongKind }
            if percent < 0 { return .invalid("a percentage cannot be negative, found \(trimmed)") }
            if percent > 100 { return .invalid("a percentage cannot be over 100%, found \(trimmed)") }
            return .value(percent / 100)
        }
        guard let value = parseDecimal(trimmed) else { return .wrongKind }
        if value < 0 { return .invalid("a fraction cannot be negative, found \(trimmed)") }
        if value > 1 { return .invalid("a fraction must be between 0 and 1, found \(trimmed) (did you mean \(trimmed)%?)") }
        return .value(value)
    }
}

extension ValueKind where Value == Bool {
    static let boolean = ValueKind(expected: "true or false", summary: "boolean", format: { $0 ? "true" : "false" }) { text in
        switch text.lowercased() {
        case "true", "yes", "on": return .value(true)
        case "false", "no", "off": return .value(false)
        default: return .wrongKind
        }
    }
}

extension ValueKind where Value == Duration {
    /// `250ms`, `5s`, `2m`, `1h`, `1m30s`, `1.5s`, `100us`, or `0`.
    static let duration = ValueKind(expected: "a duration like 250ms, 5s or 1m30s", summary: "duration", format: { $0.compactDescription })
    {
        text in parseDuration(text)
    }

    /// A duration greater than zero, naming `what` in the error.
    static func positiveDuration(_ what: String) -> ValueKind<Duration> {
        duration.checked(summary: "duration > 0") { $0 <= .zero ? "\(what) must be greater than 0" : nil }
    }
}

extension ValueKind where Value == Duration? {
    /// A timeline's interval: `off`, or whole milliseconds from 100ms on, so that intervals
    /// fall on a grid of wall-clock milliseconds that shards share.
    static let interval = ValueKind(
        expected: "a duration like 1s or 500ms, or off", summary: "duration ≥ 100ms or `off`", format: { $0?.compactDescription ?? "off" }
    ) { text in
        if text.lowercased() == "off" { return .value(nil) }
        switch parseDuration(text) {
        case .value(let duration):
            if duration < .milliseconds(100) { return .invalid("report.interval must be at least 100ms, found \(text)") }
            if duration.components.attoseconds % 1_000_000_000_000_000 != 0 {
                return .invalid("report.interval must be whole milliseconds, found \(text)")
            }
            return .value(duration)
        case .wrongKind: return .wrongKind
        case .invalid(let reason): return .invalid(reason)
        case .invalidAt(let reason, let offset): return .invalidAt(reason, offset: offset)
        }
    }
}

extension ValueKind where Value == DurationRange {
    /// `100ms..300ms`, or a single duration meaning exactly that.
    static let durationRange = ValueKind(
        expected: "a duration like 200ms or a range like 200ms..1s", summary: "range", format: { $0.description }
    ) { text in
        let parts = text.components(separatedBy: "..")
        switch parts.count {
        case 1:
            switch parseDuration(parts[0]) {
            case .value(let d): return .value(DurationRange(fixed: d))
            case .wrongKind: return .wrongKind
            case .invalid(let reason), .invalidAt(let reason, _): return .invalid(reason)
            }
        case 2:
            var bounds: [Duration] = []
            for part in parts {
                switch parseDuration(part.trimmingCharacters(in: " ")) {
                case .value(let d): bounds.append(d)
                case .wrongKind: return .wrongKind
                case .invalid(let reason), .invalidAt(let reason, _): return .invalid(reason)
                }
            }
            if bounds[0] > bounds[1] {
                return .invalid(
                    "the range \(text) runs backwards: \(bounds[0].compactDescription) is more than \(bounds[1].compactDescription)")
            }
            return .value(DurationRange(bounds[0], bounds[1]))
        default:
            return .wrongKind
        }
    }
}

/// The highest rate a plan may give: ten million arrivals a second.
let maximumRatePerSecond = 10_000_000.0

extension ValueKind where Value == Rate {
    /// `20/s`, `600/m`, `3600/h`: arrivals per unit of time, greater than zero.
    static let rate = ValueKind(expected: "a rate like 20/s or 600/m", summary: "rate", format: { $0.description }) { text in
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = parseDecimal(parts[0].trimmingCharacters(in: " ")) else { return .wrongKind }
        let unit: Double
        switch parts[1].trimmingCharacters(in: " ") {
        case "s", "sec", "second": unit = 1
        case "m", "min", "minute": unit = 60
        case "h", "hour": unit = 3600
        default: return .wrongKind
        }
        guard count > 0 else { return .invalid("a rate must be greater than 0, found \(text)") }
        // Far above what one machine starts, far below what a count of arrivals holds.
        guard count / unit <= maximumRatePerSecond else {
            return .invalid("a rate must be at most 10000000/s, found \(text)")
        }
        return .value(Rate(perSecond: count / unit))
    }
}

extension ValueKind where Value == HTTPTarget {
    static let url = ValueKind(
        expected: "'builtin' or a URL like http://127.0.0.1:8080", summary: "`builtin` or URL", format: { $0.description }
    ) { text in
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return .wrongKind }
        if let variable = PlanInterpolation.firstRunTimeVariable(in: text) {
            // Said here, once, rather than as a character a URL cannot hold.
            return .invalid(
                "${\(variable)} has no value in the target: run-time variables are filled in only in the requests "
                    + "(api.questions, api.submit, api.login, their bodies, api.headers) and answers")
        }
        switch HTTPTarget.parse(text) {
        case .success(let target): return .value(target)
        case .failure(let error): return .invalid("\(error.description): '\(text)'")
        }
    }
}

extension ValueKind {
    /// One word of a fixed set, with a did-you-mean for near misses.
    static func oneOf(_ cases: [String], map: @escaping @Sendable (String) -> Value?, name: @escaping @Sendable (Value) -> String)
        -> ValueKind<Value>
    {
        let list = cases.joined(separator: ", ")
        return ValueKind(expected: "one of \(list)", summary: cases.map { "`\($0)`" }.joined(separator: ", "), format: name) { text in
            if let value = map(text.lowercased()) { return .value(value) }
            if let suggestion = Suggestions.closest(to: text, in: cases) {
                return .invalid("expected one of \(list), found '\(text)' (did you mean '\(suggestion)'?)")
            }
            return .wrongKind
        }
    }
}

extension ValueKind where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
    /// One of an enumeration's raw values, with a did-you-mean for near misses.
    static var word: ValueKind<Value> {
        oneOf(Value.allCases.map(\.rawValue), map: { Value(rawValue: $0) }, name: { $0.rawValue })
    }
}

extension ValueKind where Value == ThinkTime {
    /// `200ms..1s` or `500ms` (uniform), `normal(500ms, 100ms)`, `exponential(500ms)`,
    /// `lognormal(500ms, 2s)` (median, 90th percentile).
    static let thinkTime = ValueKind(
        expected: "a duration like 200ms, a range like 200ms..1s, or normal(mean, deviation), exponential(mean) or lognormal(median, p90)",
        summary: "range or distribution", format: { $0.description }
    ) { text in
        let trimmed = text.trimmingCharacters(in: " ")
        guard let open = trimmed.firstIndex(of: "(") else {
            switch ValueKind<DurationRange>.durationRange.parse(trimmed) {
            case .value(let range): return .value(.uniform(range))
            case .wrongKind: return .wrongKind
            case .invalid(let reason), .invalidAt(let reason, _): return .invalid(reason)
            }
        }
        let name = trimmed[..<open].trimmingCharacters(in: " ").lowercased()
        let forms = ["normal": "normal(500ms, 100ms)", "exponential": "exponential(500ms)", "lognormal": "lognormal(500ms, 2s)"]
        guard let form = forms[name] else {
            if let suggestion = Suggestions.closest(to: name, in: forms.keys.sorted()) {
                return .invalid(
                    "unknown distribution '\(name)' (did you mean '\(suggestion)'?); think takes a range or \(forms.values.sorted().joined(separator: ", "))"
                )
            }
            return .invalid(
                "unknown distribution '\(name)': think takes a range like 200ms..1s or \(forms.values.sorted().joined(separator: ", "))")
        }
        guard trimmed.hasSuffix(")") else { return .invalid("'\(trimmed)' lacks its closing parenthesis: write \(form)") }
        let inside = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
        let arguments = inside.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: " ") }
        let wanted = name == "exponential" ? 1 : 2
        let names = ["normal": "a mean and a standard deviation", "exponential": "a mean", "lognormal": "a median and a 90th percentile"]
        guard arguments.count == wanted, !arguments.contains(where: \.isEmpty) else {
            return .invalid("\(name) takes \(names[name] ?? ""), as in \(form); found '\(trimmed)'")
        }
        // Where each argument starts in `text`, for the caret of an error about it.
        let lead = text.prefix { $0 == " " }.count
        var starts: [Int] = []
        var position = lead + trimmed.distance(from: trimmed.startIndex, to: open) + 1
        for piece in inside.split(separator: ",", omittingEmptySubsequences: false) {
            starts.append(position + piece.prefix { $0 == " " }.count)
            position += piece.count + 1
        }
        var durations: [Duration] = []
        for (index, argument) in arguments.enumerated() {
            switch parseDuration(argument) {
            case .value(let duration): durations.append(duration)
            case .wrongKind:
                return .invalidAt("expected a duration like 500ms in \(name)(…), found '\(argument)'", offset: starts[index])
            case .invalid(let reason), .invalidAt(let reason, _): return .invalidAt(reason, offset: starts[index])
            }
        }
        switch name {
        case "normal":
            return .value(.normal(mean: durations[0], deviation: durations[1]))
        case "exponential":
            return .value(.exponential(mean: durations[0]))
        default:
            if durations[0] <= .zero {
                return .invalidAt("a log-normal's median must be greater than 0, found \(arguments[0])", offset: starts[0])
            }
            if durations[1] < durations[0] {
                return .invalidAt(
                    "a log-normal's 90th percentile (\(arguments[1])) cannot be below its median (\(arguments[0]))", offset: starts[1])
            }
            return .value(.lognormal(median: durations[0], p90: durations[1]))
        }
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
