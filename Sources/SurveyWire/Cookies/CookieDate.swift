/// The cookie-date of RFC 6265 §5.1.1: the forgiving reading of an `Expires` attribute that
/// browsers share. Tokens are runs of bytes between delimiters; the first that looks like a
/// time, a day of the month, a month and a year are taken, in that order of trying, and
/// anything else is ignored: `Wed, 09 Jun 2021 10:18:14 GMT`, `Sun, 18-Apr-2027 21:06:29 GMT`
/// and `Thu Apr 10 16:33:12 1980` all read.
enum CookieDate {
    /// Seconds since the Unix epoch (UTC) of `text`, or nil when it is not a cookie-date:
    /// a part missing, a day outside 1–31 or not in its month, a year before 1601, a time past
    /// 23:59:59.
    static func parse(_ text: some Collection<UInt8>) -> Int64? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        var token: [UInt8] = []
        token.reserveCapacity(16)
        func take() {
            defer { token.removeAll(keepingCapacity: true) }
            guard !token.isEmpty else { return }
            if time == nil, let t = Self.time(token) {
                time = t
            } else if day == nil, let d = Self.digits(token, 1...2) {
                day = d
            } else if month == nil, let m = Self.month(token) {
                month = m
            } else if year == nil, let y = Self.digits(token, 2...4) {
                year = y
            }
        }
        for byte in text {
            if isDelimiter(byte) { take() } else { token.append(byte) }
        }
        take()
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59 else { return nil }
        guard day <= daysIn(month: month, year: year) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return days * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + time.second)
    }

    /// `%x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`.
    static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x20...0x2F, 0x3B...0x40, 0x5B...0x60, 0x7B...0x7E: true
        default: false
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// `count` digits at the start of `token`, then nothing or a non-digit and anything.
    private static func digits(_ token: [UInt8], _ count: ClosedRange<Int>) -> Int? {
        let run = token.prefix(while: isDigit)
        guard count.contains(run.count) else { return nil }
        return run.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `hh:mm:ss`, each field one or two digits, then nothing or a non-digit and anything.
    private static func time(_ token: [UInt8]) -> (hour: Int, minute: Int, second: Int)? {
        var fields: [Int] = []
        var index = 0
        while fields.count < 3 {
            let start = index
            var value = 0
            while index < token.count, isDigit(token[index]), index - start < 2 {
                value = value * 10 + Int(token[index] - 0x30)
                index += 1
            }
            guard index > start else { return nil }
            fields.append(value)
            if fields.count < 3 {
                guard index < token.count, token[index] == 0x3A else { return nil }
                index += 1
            }
        }
        if index < token.count, isDigit(token[index]) { return nil }
        return (fields[0], fields[1], fields[2])
    }

    private static let months: [[UInt8]] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].map {
        Array($0.utf8)
    }

    /// The month named by the token's first three letters, in any case: 1–12.
    private static func month(_ token: [UInt8]) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = token.prefix(3).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        return months.firstIndex { $0.elementsEqual(prefix) }.map { $0 + 1 }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date, in the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
