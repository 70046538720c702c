// The spelling of plan scalars that several value kinds share: numbers with underscores,
// plain decimals, durations.

/// `1_000` → `1000`; underscores elsewhere are left for the kind check to reject.
extension String {
    var replacingUnderscoresBetweenDigits: String {
        guard contains("_") else { return self }
        let chars = Array(self)
        var out = ""
        for (i, c) in chars.enumerated() {
            if c == "_", i > 0, i + 1 < chars.count, chars[i - 1].isNumber, chars[i + 1].isNumber { continue }
            out.append(c)
        }
        return out
    }

    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}

extension Substring {
    func trimmingCharacters(in set: Character) -> String { String(self).trimmingCharacters(in: set) }
}

/// A plain decimal: optional sign, digits, optional fraction. No exponents, no `inf`, no `nan`.
func parseDecimal(_ text: String) -> Double? {
    let body = text.replacingUnderscoresBetweenDigits
    var sawDigit = false
    var sawPoint = false
    for (i, c) in body.enumerated() {
        if c.isASCII && c.isNumber {
            sawDigit = true
        } else if c == "." && !sawPoint {
            sawPoint = true
        } else if (c == "-" || c == "+") && i == 0 {
            continue
        } else {
            return nil
        }
    }
    guard sawDigit else { return nil }
    return Double(body)
}

/// Parses a duration into whole nanoseconds: a sequence of `<number><unit>` (`1m30s`), or `0`.
func parseDuration(_ text: String) -> ValueParse<Duration> {
    let trimmed = text.trimmingCharacters(in: " ")
    if trimmed == "0" { return .value(.zero) }
    if trimmed.hasPrefix("-") {
        if case .value = parseDuration(String(trimmed.dropFirst())) {
            return .invalid("durations cannot be negative, found \(trimmed)")
        }
        return .wrongKind
    }
    let chars = Array(trimmed)
    guard !chars.isEmpty else { return .wrongKind }
    var i = 0
    var total: Double = 0
    while i < chars.count {
        let numberStart = i
        while i < chars.count, chars[i].isASCII, chars[i].isNumber || chars[i] == "." { i += 1 }
        guard i > numberStart, let value = Double(String(chars[numberStart..<i])) else { return .wrongKind }
        let unitStart = i
        while i < chars.count, chars[i].isLetter || chars[i] == "µ" { i += 1 }
        let unit = String(chars[unitStart..<i])
        let nanosecondsPerUnit: Double
        switch unit {
        case "ns": nanosecondsPerUnit = 1
        case "us", "µs": nanosecondsPerUnit = 1e3
        case "ms": nanosecondsPerUnit = 1e6
        case "s": nanosecondsPerUnit = 1e9
        case "m": nanosecondsPerUnit = 60e9
        case "h": nanosecondsPerUnit = 3600e9
        case "" where numberStart == 0 && i == chars.count:
            return .invalid("the duration '\(trimmed)' needs a unit: ms, s, m or h (as in \(trimmed)s)")
        default:
            return .wrongKind
        }
        total += value * nanosecondsPerUnit
    }
    guard total.isFinite, total <= maximumDurationNanoseconds else {
        return .invalid("the duration '\(trimmed)' is too long: at most 8784h (a year)")
    }
    return .value(.nanoseconds(Int64(total.rounded())))
}

/// The longest duration a plan may give: a year (8784h). A start plus a duration, a timeout or
/// an interval then stays far inside the 64 bits of nanoseconds every clock reading has, where a
/// longer one (`report.interval: 2000000h`) overflowed in the run.
let maximumDurationNanoseconds = 8784.0 * 3600e9
