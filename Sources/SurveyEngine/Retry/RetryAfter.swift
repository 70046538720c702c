import Foundation

/// Reads a `Retry-After` header: delay-seconds, or an HTTP date (RFC 9110, IMF-fixdate).
enum RetryAfter {
    /// The delay it asks for, relative to `now`; negative values become zero. Nil when the
    /// value is neither form.
    static func delay(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
            guard let seconds = Int64(text) else { return .seconds(Int64.max / 1_000_000_000) }
            return .seconds(seconds)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64(seconds * 1000))
    }
}
