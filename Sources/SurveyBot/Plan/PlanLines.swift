/// The first stage of reading a plan: text into lines, and a cursor that walks one line.
enum PlanLines {
    /// Splits on `\n`, `\r\n` and lone `\r`, keeping line numbers the way editors count them.
    static func split(_ text: String) -> [[Unicode.Scalar]] {
        var lines: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                if !previousWasCR { lines.append(current) }
                current = []
                previousWasCR = false
            } else if scalar == "\r" {
                lines.append(current)
                current = []
                previousWasCR = true
            } else {
                current.append(scalar)
                previousWasCR = false
            }
        }
        lines.append(current)
        return lines
    }
}

/// A position inside one line of plan text, with the line's number and origin for diagnostics.
struct LineCursor {
    let scalars: [Unicode.Scalar]
    let number: Int
    let origin: SourceLocation.Origin
    var position = 0

    init(scalars: [Unicode.Scalar], number: Int, origin: SourceLocation.Origin) {
        self.scalars = scalars
        self.number = number
        self.origin = origin
    }

    var atEnd: Bool { position >= scalars.count }
    var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    func peek(_ offset: Int) -> Unicode.Scalar? {
        let i = position + offset
        return i < scalars.count ? scalars[i] : nil
    }

    func location(_ index: Int) -> SourceLocation {
        SourceLocation(origin: origin, line: number, column: index + 1)
    }

    var here: SourceLocation { location(position) }

    mutating func skipSpaces() {
        while let c = current, c == " " || c == "\t" { position += 1 }
    }

    /// True at end of line or at a comment: `#` starting the rest or following whitespace.
    var atEndOrComment: Bool {
        guard let c = current else { return true }
        return c == "#" && (position == 0 || scalars[position - 1] == " " || scalars[position - 1] == "\t")
    }

    /// In leading whitespace: true when only whitespace (or a comment) remains on the line.
    var atEndOrCommentAfterWhitespace: Bool {
        var i = position
        while i < scalars.count, scalars[i] == " " || scalars[i] == "\t" { i += 1 }
        return i >= scalars.count || scalars[i] == "#"
    }

    /// Whether the scalar at `index` is a space or a tab.
    func isBlank(at index: Int) -> Bool {
        index >= 0 && index < scalars.count && (scalars[index] == " " || scalars[index] == "\t")
    }

    /// The text of the scalars in `range`, without trailing blanks.
    func text(_ range: Range<Int>) -> String {
        String(String.UnicodeScalarView(scalars[range])).trimmingTrailingSpaces
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var scalars = Substring(self).unicodeScalars
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
