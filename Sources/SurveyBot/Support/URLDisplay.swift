/// How URLs are shown in anything printed or written: user info (`http://admin:pw@host`) and
/// query values (`?token=abc`) are credentials more often than not, so they are always `***`,
/// wherever the URL came from — a plan, the environment or the command line.
enum URLDisplay {
    /// `text` with the user info of every `scheme://` URL and the query values of every URL or
    /// path (a word starting with `/`) replaced by `***`; all else as it was.
    ///
    ///     http://admin:pw@host:8080/a?token=abc&page=2  →  http://***@host:8080/a?token=***&page=***
    static func redacting(_ text: String) -> String {
        guard text.contains("://") || text.contains("?") else { return text }
        var result = ""
        var word = ""
        for character in text {
            if character.isWhitespace {
                result += redactingWord(word)
                result.append(character)
                word = ""
            } else {
                word.append(character)
            }
        }
        return result + redactingWord(word)
    }

    /// A proxy URL as written (`user:pw@proxy:3128`, with or without `http://`) with its user
    /// info as `***`: a proxy's may be written without a scheme, which `redacting` needs.
    static func redactingProxy(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return redacting(text) }
        let schemeEnd = text.range(of: "://").map { $0.upperBound }
        let start = schemeEnd.flatMap { $0 <= at ? $0 : nil } ?? text.startIndex
        return String(text[..<start]) + "***" + String(text[at...])
    }

    /// Characters that may stand before a URL in a message or a line of a plan: quotes,
    /// brackets, and the `=` of `--set target=…`.
    private static let openers: Set<Character> = ["'", "\"", "(", "[", "<", "="]

    /// Characters that may end a URL's word in a message: closing quotes and brackets, and the
    /// punctuation after it (`--target URL: …`).
    private static let closers: Set<Character> = ["'", "\"", ")", "]", ">", ",", ";", ":", "."]

    private static func redactingWord(_ whole: String) -> String {
        var word = Substring(whole)
        var after = ""
        while let last = word.last, closers.contains(last) {
            after.insert(last, at: after.startIndex)
            word = word.dropLast()
        }
        return redactingURL(word) + after
    }

    private static func redactingURL(_ word: Substring) -> String {
        // Where the URL or path starts: after the scheme's letters, or at the first '/'.
        let start: String.Index
        if let scheme = word.range(of: "://") {
            var index = scheme.lowerBound
            while index > word.startIndex, word[word.index(before: index)].isLetter { index = word.index(before: index) }
            start = index
        } else if let slash = word.firstIndex(of: "/"), slash == word.startIndex || openers.contains(word[word.index(before: slash)]) {
            start = slash
        } else {
            return String(word)
        }
        var url = word[start...]
        var shown = String(word[..<start])
        if let scheme = url.range(of: "://") {
            shown += url[..<scheme.upperBound]
            url = url[scheme.upperBound...]
            let authorityEnd = url.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
            if let at = url[..<authorityEnd].lastIndex(of: "@") {
                shown += "***"
                url = url[at...]
            }
        }
        guard let question = url.firstIndex(of: "?") else { return shown + String(url) }
        shown += url[...question]
        let query = url[url.index(after: question)...]
        let queryEnd = query.firstIndex(of: "#") ?? query.endIndex
        shown += query[..<queryEnd].split(separator: "&", omittingEmptySubsequences: false).map { parameter -> String in
            guard let equals = parameter.firstIndex(of: "=") else { return parameter.isEmpty ? "" : "***" }
            return String(parameter[...equals]) + (parameter[parameter.index(after: equals)...].isEmpty ? "" : "***")
        }.joined(separator: "&")
        return shown + String(query[queryEnd...])
    }
}
