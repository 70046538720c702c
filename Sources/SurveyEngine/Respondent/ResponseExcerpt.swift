import SurveyJourney
import SurveyWire

/// The server's reason for a failure, as reports and the raw log quote it: a short excerpt of
/// a response body on one line — `{"meta":{"error":{"errorMessage":"Invalid or missing
/// X-API-TOKEN"}}}`.
///
/// JSON is compacted, HTML reduced to its text (its `<title>` first, tags, scripts, styles
/// and comments left out, character references decoded), anything else taken as text. Runs
/// of white space become one space; other control and invisible characters are spelt as a
/// terminal shows them (`\u{1B}`: `TerminalText`'s spelling), so that the excerpt prints as
/// what it is. Every secret is masked before the excerpt is cut to `maxCharacters`, and the
/// cut falls between characters. Only the body's first `TransportResponse.failureBodyLimit`
/// bytes are read: that is all a client keeps of a failure it did not ask the body of.
package enum ResponseExcerpt {
    /// The most characters of an excerpt, `…` after them when it was cut.
    package static let maxCharacters = 200

    /// The excerpt of `body`, of which `bodyBytes` bytes came (more than `body` holds when the
    /// client kept only its start), with every one of `secrets` masked; nil for an empty body
    /// or one of white space alone.
    package static func of(_ body: [UInt8], bodyBytes: Int? = nil, secrets: SecretValues) -> String? {
        let limit = TransportResponse.failureBodyLimit
        let cut = body.count > limit || (bodyBytes ?? body.count) > body.count
        var bytes = body.count > limit ? Array(body.prefix(limit)) : body
        if cut { dropIncompleteCharacter(&bytes) }
        // Masked as sent, then again as shown: decoding JSON escapes or HTML references may
        // spell a secret anew.
        let sent = secrets.redacting(String(decoding: bytes, as: UTF8.self), cut: cut)
        let shown: String
        if case .success(let json) = JSONValue.parse(sent.utf8) {
            shown = json.json
        } else if sent.utf8.first(where: { !isWhiteSpace($0) }) == UInt8(ascii: "<") {
            shown = htmlText(Array(sent.utf8))
        } else {
            shown = sent
        }
        let line = oneLine(secrets.redacting(shown), limit: maxCharacters)
        return line.isEmpty ? nil : line
    }

    /// Takes off the end of `bytes` the start of a UTF-8 sequence whose rest was not kept.
    static func dropIncompleteCharacter(_ bytes: inout [UInt8]) {
        var start = bytes.count
        // At most three continuation bytes back to the sequence's first byte.
        while start > 0, bytes.count - start < 4, bytes[start - 1] & 0xC0 == 0x80 { start -= 1 }
        guard start > 0 else { return }
        let lead = bytes[start - 1]
        let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        if bytes.count - (start - 1) < length { bytes.removeSubrange((start - 1)...) }
    }

    private static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }

    /// The text of an HTML page: its title, then what its body says that the title does not
    /// (`502 Bad Gateway — nginx`). Tags end words; `<script>`, `<style>` and comments say
    /// nothing. Works on bytes: every byte of HTML's syntax is ASCII, which UTF-8 never uses
    /// inside a character.
    static func htmlText(_ page: [UInt8]) -> String {
        var title: [UInt8] = []
        var text: [UInt8] = []
        var index = 0
        var inTitle = false
        let count = page.count
        func starts(_ word: String, at position: Int) -> Bool {
            let letters = Array(word.utf8)
            guard position + letters.count <= count else { return false }
            for (offset, letter) in letters.enumerated() where page[position + offset] | 0x20 != letter | 0x20 {
                return false
            }
            return true
        }
        /// The position just after the first `end` from `position` (ASCII, any case), or the end.
        func after(_ end: String, from position: Int) -> Int {
            var at = position
            while at < count, !starts(end, at: at) { at += 1 }
            return min(count, at + end.utf8.count)
        }
        while index < count {
            let byte = page[index]
            guard byte == UInt8(ascii: "<") else {
                if inTitle { title.append(byte) } else { text.append(byte) }
                index += 1
                continue
            }
            if starts("<!--", at: index) {
                index = after("-->", from: index + 4)
            } else if starts("<script", at: index) {
                index = after("</script", from: index + 7)
                index = after(">", from: index)
            } else if starts("<style", at: index) {
                index = after("</style", from: index + 6)
                index = after(">", from: index)
            } else {
                if starts("<title", at: index) { inTitle = true }
                if starts("</title", at: index) { inTitle = false }
                index = after(">", from: index + 1)
                if !inTitle { text.append(0x20) }
            }
        }
        func words(_ bytes: [UInt8]) -> String {
            let decoded = HTMLForm.decoded(Substring(String(decoding: bytes, as: UTF8.self).replacing("&nbsp;", with: " ")))
            return decoded.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let heading = words(title)
        var body = words(text)
        if !heading.isEmpty, body.hasPrefix(heading) { body = String(body.dropFirst(heading.count).drop { $0 == " " }) }
        if heading.isEmpty { return body }
        return body.isEmpty ? heading : heading + " — " + body
    }

    /// `text` on one line of at most `limit` characters and `…`: each run of white space one
    /// space, the ends trimmed, and each other control or invisible character spelt as a
    /// terminal shows it. A character that holds such a scalar (an emoji joined by U+200D) is
    /// spelt scalar by scalar.
    static func oneLine(_ text: String, limit: Int) -> String {
        var result = ""
        var length = 0
        var space = false
        for character in text {
            if character.isWhitespace, character.unicodeScalars.allSatisfy(isSpacing) {
                space = !result.isEmpty
                continue
            }
            var piece = ""
            if character.unicodeScalars.contains(where: { escape($0) != nil }) {
                for scalar in character.unicodeScalars { piece += escape(scalar) ?? String(scalar) }
            } else {
                piece = String(character)
            }
            let pieceLength = piece.count + (space ? 1 : 0)
            if length + pieceLength > limit {
                result += "…"
                return result
            }
            if space { result += " " }
            result += piece
            length += pieceLength
            space = false
        }
        return result
    }

    /// White space a line may show as one space: spaces, tabs, line ends (never a format
    /// character such as U+2028, which is escaped instead).
    private static func isSpacing(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}": true
        default: scalar.properties.generalCategory == .spaceSeparator
        }
    }

    /// How a terminal shows `scalar`: `HTTPSyntax.shownEscape`, the spelling the command line's
    /// diagnostics use too; nil for one that prints as itself.
    static func escape(_ scalar: Unicode.Scalar) -> String? {
        HTTPSyntax.shownEscape(scalar)
    }
}
