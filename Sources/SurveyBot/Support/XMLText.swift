/// Text inside XML and HTML (the JUnit report, the HTML pages), escaped once for both.
enum XMLText {
    /// `text` safe in an element or an attribute value: markup characters as entities, and the
    /// control characters XML 1.0 forbids (an error text may hold any) as U+FFFD, so that no
    /// text a server or a plan sent can break the document.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{7F}", "\u{FFFE}", "\u{FFFF}": escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
