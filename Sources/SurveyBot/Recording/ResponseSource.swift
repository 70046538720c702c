import SurveyJourney
import SurveyWire

/// Where a response gave a value, as a step's `capture` takes it — the most specific source
/// first: a JSON path, a header, a cookie it set, an HTML `<input>` by name, else a regular
/// expression around it, checked to capture exactly the value.
enum ResponseSource: Hashable, Sendable {
    case json(String)
    case header(String)
    case cookie(String)
    case form(String)
    case regex(String)

    /// The capture's source as a plan writes it: `$.token`, `header X-Id`, `form csrf`.
    var planText: String {
        switch self {
        case .json(let path): path
        case .header(let name): "header \(name)"
        case .cookie(let name): "cookie \(name)"
        case .form(let name): "form \(name)"
        case .regex(let pattern): "regex \(pattern)"
        }
    }

    /// The summary's words for it: `its JSON $.token`, `its <input> csrf`.
    var phrase: String {
        switch self {
        case .json(let path): "its JSON \(path)"
        case .header(let name): "its header \(name)"
        case .cookie(let name): "its cookie \(name)"
        case .form(let name): name == "*" ? "its whole form" : "its form field \(name)"
        case .regex: "its body (a regular expression)"
        }
    }

    /// The name a capture from here would take, when the source names the value.
    var key: String? {
        switch self {
        case .json(let path): path.split(whereSeparator: { ".[]'$".contains($0) }).last.map(String.init)
        case .header(let name), .cookie(let name), .form(let name): name
        case .regex: nil
        }
    }

    /// Whether the response holds `value` anywhere a capture could take it from.
    static func contains(_ value: String, in response: HARResponse) -> Bool {
        if let text = response.content.body.text, text.contains(value) { return true }
        return response.headers.contains { $0.value.contains(value) }
    }

    /// Whether `bytes` (a response's body and header values) hold `value`: a scan of bytes,
    /// since every value a walk sends is looked for in every response before it.
    static func contains(_ value: String, in bytes: [UInt8]) -> Bool {
        let needle = Array(value.utf8)
        guard !needle.isEmpty, needle.count <= bytes.count else { return needle.isEmpty }
        return bytes.withUnsafeBufferPointer { haystack in
            needle.withUnsafeBufferPointer { pattern in
                let first = pattern[0]
                let last = haystack.count - pattern.count
                var index = 0
                while index <= last {
                    if haystack[index] == first {
                        var matched = 1
                        while matched < pattern.count, haystack[index + matched] == pattern[matched] { matched += 1 }
                        if matched == pattern.count { return true }
                    }
                    index += 1
                }
                return false
            }
        }
    }

    /// The most specific place `response` gives `value`, or nil when a capture cannot take it
    /// from there (a cookie the jar sends back is not captured again: `jarCookies` skips it).
    static func find(_ value: String, in response: HARResponse, skippingCookies jarCookies: Bool) -> ResponseSource? {
        let body = response.content.body.text
        if let body, body.contains(value), let path = jsonPath(of: value, in: body) { return .json(path) }
        if let header = response.headers.first(where: { $0.name.lowercased() != "set-cookie" && $0.value.trimmed == value }),
            HTTPSyntax.isToken(header.name)
        {
            return .header(header.name)
        }
        if !jarCookies, let cookie = HeaderRules.cookiesSet(by: response).first(where: { $0.value == value }) {
            return .cookie(cookie.name)
        }
        guard let body, body.contains(value) else { return nil }
        if let name = inputName(of: value, in: body) { return .form(name) }
        return regex(around: value, in: body).map { .regex($0) }
    }

    /// The path of the first string (or number, as written) equal to `value` in a JSON body.
    static func jsonPath(of value: String, in body: String) -> String? {
        guard let first = body.first(where: { !$0.isWhitespace }), first == "{" || first == "[" else { return nil }
        guard case .success(let json) = JSONValue.parse(Array(body.utf8)) else { return nil }
        var found: [JSONLocator.Step]?
        func search(_ node: JSONValue, _ path: [JSONLocator.Step]) {
            guard found == nil else { return }
            switch node {
            case .string(let text) where text == value: found = path
            case .integer(let number) where String(number) == value: found = path
            case .number(_, let text) where text == value: found = path
            case .object(let members):
                // A repeated name: a path reaches its last value only.
                for (index, (name, member)) in members.enumerated() where !members[(index + 1)...].contains(where: { $0.0 == name }) {
                    search(member, path + [.name(name)])
                }
            case .array(let elements):
                for (index, element) in elements.enumerated() { search(element, path + [.index(index)]) }
            default: break
            }
        }
        search(json, [])
        return found.map(JSONPathText.text)
    }

    /// The name of an `<input>` whose value is `value`, when `form NAME` — the first input of
    /// that name — captures exactly it.
    static func inputName(of value: String, in page: String) -> String? {
        var rest = page[...]
        while let open = HTMLForm.find("<input", in: rest) {
            rest = rest[open.upperBound...]
            guard let next = rest.first, next == " " || next == "\t" || next == "\n" || next == "\r" || next == "/" else { continue }
            let end = HTMLForm.tagEnd(rest)
            let attributes = HTMLForm.attributes(rest[..<end])
            rest = rest[end...]
            guard let name = attributes.first(where: { $0.name == "name" })?.value, !name.isEmpty,
                attributes.first(where: { $0.name == "value" })?.value == value
            else { continue }
            return HTMLForm.value(of: name, in: page) == value ? name : nil
        }
        return nil
    }

    /// A regular expression whose first group captures `value` where the body first holds
    /// it: the text before it, escaped, and a group of the kind of characters it is made of —
    /// the shortest such prefix that captures exactly `value` in this body.
    static func regex(around value: String, in body: String) -> String? {
        guard let range = body.range(of: value) else { return nil }
        let characters = value.unicodeScalars
        let group: String
        if characters.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }) {
            group = "([A-Za-z0-9]+)"
        } else if characters.allSatisfy({
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.~".unicodeScalars.contains($0))
        }) {
            group = "([A-Za-z0-9._~-]+)"
        } else if !characters.contains(where: { "\"'<>& \t\r\n".unicodeScalars.contains($0) }) {
            group = "([^\"'<>&\\s]+)"
        } else {
            return nil
        }
        let before = body[..<range.lowerBound]
        for length in [8, 16, 32, 64] {
            var prefix = before.suffix(length)
            if let newline = prefix.lastIndex(where: { $0 == "\n" || $0 == "\r" }) { prefix = prefix[prefix.index(after: newline)...] }
            guard !prefix.isEmpty else { break }
            let pattern = escaped(prefix) + group
            if let compiled = try? TextPattern(pattern), compiled.capture(in: body) == value { return pattern }
            if prefix.count < length { break }
        }
        return nil
    }

    /// `text` with ICU's special characters escaped, and each run of whitespace as `\s+`.
    static func escaped(_ text: Substring) -> String {
        var result = ""
        var inSpace = false
        for character in text {
            if character.isWhitespace {
                if !inSpace { result += "\\s+" }
                inSpace = true
                continue
            }
            inSpace = false
            if "\\^$.|?*+()[]{}".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }
}

extension String {
    /// Without spaces and tabs around it.
    fileprivate var trimmed: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
