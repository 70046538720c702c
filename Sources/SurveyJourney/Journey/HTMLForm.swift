/// Reads the fields of HTML forms in a page, as a browser would send them back: what a survey
/// served as pages needs of its responses (a CSRF token, a page key) to post the next page.
package enum HTMLForm {
    /// The value of the first `<input>` whose `name` is `name`, its character references
    /// decoded; `""` for an input without a `value`; nil when the page has none of that name.
    package static func value(of name: String, in page: String) -> String? {
        var rest = page[...]
        while let open = find("<input", in: rest) {
            rest = rest[open.upperBound...]
            // `<inputs>` is another tag.
            guard let next = rest.first, next == " " || next == "\t" || next == "\n" || next == "\r" || next == "/" else { continue }
            let end = tagEnd(rest)
            let attributes = Self.attributes(rest[..<end])
            rest = rest[end...]
            guard attributes.first(where: { $0.name == "name" })?.value == name else { continue }
            return attributes.first { $0.name == "value" }?.value ?? ""
        }
        return nil
    }

    /// The fields the page's first form sends, as a browser sends them when no one changes
    /// them, in the page's order: each named `<input>` that is not disabled, with its value
    /// (`""` without one) — a radio button or a checkbox only when checked; no buttons, images
    /// or files —, each `<select>`'s selected options (a single one's first option when none is
    /// selected), each `<textarea>`'s text. The page is the form when it has no `<form>`.
    package static func fields(in page: String) -> [(name: String, value: String)] {
        var rest = page[...]
        if let open = find("<form", in: rest) {
            rest = rest[open.upperBound...]
            if let close = find("</form", in: rest) { rest = rest[..<close.lowerBound] }
        }
        var fields: [(String, String)] = []
        var tags = FieldTags(rest)
        while let (tag, attributes) = tags.next() {
            func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
            let name = attribute("name") ?? ""
            let sent = !name.isEmpty && attribute("disabled") == nil
            switch tag {
            case "select":
                let inside = tags.skip(to: "</select")
                if sent { fields += selected(in: inside, multiple: attribute("multiple") != nil).map { (name, $0) } }
            case "textarea":
                // A line break just after the start tag is no part of the text (HTML's parsing rules).
                var text = tags.skip(to: "</textarea")
                if text.hasPrefix("\r\n") { text = text.dropFirst(2) } else if text.hasPrefix("\n") { text = text.dropFirst() }
                if sent { fields.append((name, decoded(text))) }
            default:
                guard sent else { continue }
                let type = attribute("type")?.lowercased() ?? "text"
                if ["submit", "button", "image", "reset", "file"].contains(type) { continue }
                if type == "radio" || type == "checkbox" {
                    guard attribute("checked") != nil else { continue }
                    fields.append((name, attribute("value") ?? "on"))
                    continue
                }
                fields.append((name, attribute("value") ?? ""))
            }
        }
        return fields
    }

    /// The field tags of a page in order — `<input>`, `<select>` and `<textarea>`, in any case —
    /// each with its attributes (`attributes(_:)`): what a browser's form is made of, read in one
    /// pass by `fields(in:)`, `HTMLChoices` and the importer alike.
    package struct FieldTags {
        /// The text after the last start tag read.
        private var rest: Substring

        package init(_ text: Substring) { rest = text }

        /// The next field tag: its name, lower-cased, and its attributes; nil at the end.
        package mutating func next() -> (tag: String, attributes: [(name: String, value: String)])? {
            while let open = rest.utf8.firstIndex(of: UInt8(ascii: "<")) {
                rest = rest[rest.utf8.index(after: open)...]
                guard let tag = HTMLForm.fieldTag(rest) else { continue }
                let end = HTMLForm.tagEnd(rest)
                let attributes = HTMLForm.attributes(rest[rest.utf8.index(rest.startIndex, offsetBy: tag.utf8.count)..<end])
                rest = end < rest.endIndex ? rest[rest.index(after: end)...] : rest[end...]
                return (tag, attributes)
            }
            return nil
        }

        /// The text up to `closing` (`</select`, in any case), passed over: a select's options,
        /// a text area's text, which hold no field of their own.
        package mutating func skip(to closing: String) -> Substring {
            let close = HTMLForm.find(closing, in: rest)?.lowerBound ?? rest.endIndex
            defer { rest = rest[close...] }
            return rest[..<close]
        }
    }

    /// `input`, `select` or `textarea` when `text` (just after a `<`) starts one of those tags,
    /// in any case; nil for any other tag (`<inputs>`, `<option>`) or text.
    private static func fieldTag(_ text: Substring) -> String? {
        var name = ""
        for byte in text.utf8.prefix(9) {
            guard (byte | 0x20) >= 0x61, (byte | 0x20) <= 0x7A else { break }
            name.unicodeScalars.append(Unicode.Scalar(byte | 0x20))
        }
        return name == "input" || name == "select" || name == "textarea" ? name : nil
    }

    /// The values a `<select>` sends, from the inside of its tag: its selected options not
    /// disabled (a single select's last one marked), each one's `value` (its text without one);
    /// with none selected, a single select's first option not disabled, a multiple select's none.
    private static func selected(in text: Substring, multiple: Bool) -> [String] {
        var chosen: [String] = []
        var first: String?
        var rest = text
        while let open = find("<option", in: rest) {
            rest = rest[open.upperBound...]
            let end = tagEnd(rest)
            let attributes = Self.attributes(rest[..<end])
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : rest[end...]
            guard attributes.first(where: { $0.name == "disabled" }) == nil else { continue }
            let close = rest.firstIndex(of: "<") ?? rest.endIndex
            let value =
                attributes.first { $0.name == "value" }?.value
                ?? decoded(rest[..<close]).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if first == nil { first = value }
            // A single select shows the last option marked selected, as a browser does.
            if attributes.contains(where: { $0.name == "selected" }) { chosen = multiple ? chosen + [value] : [value] }
        }
        if chosen.isEmpty, !multiple, let first { return [first] }
        return chosen
    }

    /// The fields of an `application/x-www-form-urlencoded` body, in order, names and values
    /// decoded (`formDecoded`): a form as it was posted, read back.
    package static func postedFields(_ body: ArraySlice<UInt8>) -> [(name: String, value: String)] {
        body.split(separator: UInt8(ascii: "&")).map { pair in
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            return (formDecoded(parts[0]), parts.count > 1 ? formDecoded(parts[1]) : "")
        }
    }

    /// A form-encoded name or value decoded: `+` a space, `%XX` a byte (a `%` without two hex
    /// digits kept as it is), the bytes read as UTF-8.
    package static func formDecoded(_ bytes: ArraySlice<UInt8>) -> String {
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                decoded.append(high << 4 | low)
                index += 3
                continue
            }
            decoded.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// `fields(in:)` as a form body: `name=value&…`, each form-encoded.
    package static func encodedFields(in page: String) -> String {
        fields(in: page).map { CompiledTemplate.formEncoded($0.name) + "=" + CompiledTemplate.formEncoded($0.value) }
            .joined(separator: "&")
    }

    /// Where `needle` (ASCII) first appears in `text`, in any case: a scan of the bytes. Foundation's
    /// case-insensitive `range(of:)` reads the whole rest of the page on every call, which made a
    /// page of many inputs quadratic (a 2 MB form: seconds on the loop).
    package static func find(_ needle: String, in text: Substring) -> Range<Substring.Index>? {
        @inline(__always) func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        let pattern = needle.utf8.map(lower)
        guard let first = pattern.first else { return nil }
        let bytes = text.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if lower(bytes[index]) == first {
                var probe = bytes.index(after: index)
                var matched = 1
                while matched < pattern.count, probe != bytes.endIndex, lower(bytes[probe]) == pattern[matched] {
                    probe = bytes.index(after: probe)
                    matched += 1
                }
                if matched == pattern.count { return index..<probe }
            }
            index = bytes.index(after: index)
        }
        return nil
    }

    /// Where a tag ends: its `>` outside quoted attribute values.
    package static func tagEnd(_ text: Substring) -> Substring.Index {
        var quote: Character?
        for index in text.indices {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == ">" {
                return index
            }
        }
        return text.endIndex
    }

    /// A tag's attributes in order, names lowercased and values decoded (HTML's attribute
    /// syntax: `name`, `name=value`, `name='value'`, `name="value"`).
    package static func attributes(_ text: Substring) -> [(name: String, value: String)] {
        var attributes: [(String, String)] = []
        var index = text.startIndex
        func skipSpaces() {
            while index < text.endIndex, text[index].isWhitespace || text[index] == "/" { index = text.index(after: index) }
        }
        while true {
            skipSpaces()
            guard index < text.endIndex else { break }
            let nameStart = index
            while index < text.endIndex, !text[index].isWhitespace, text[index] != "=", text[index] != "/" {
                index = text.index(after: index)
            }
            let name = text[nameStart..<index].lowercased()
            var probe = index
            while probe < text.endIndex, text[probe].isWhitespace { probe = text.index(after: probe) }
            guard probe < text.endIndex, text[probe] == "=" else {
                if !name.isEmpty { attributes.append((name, "")) }
                if index == nameStart { index = text.index(after: index) }
                continue
            }
            index = text.index(after: probe)
            while index < text.endIndex, text[index].isWhitespace { index = text.index(after: index) }
            var value: Substring
            if index < text.endIndex, text[index] == "\"" || text[index] == "'" {
                let quote = text[index]
                let valueStart = text.index(after: index)
                let valueEnd = text[valueStart...].firstIndex(of: quote) ?? text.endIndex
                value = text[valueStart..<valueEnd]
                index = valueEnd < text.endIndex ? text.index(after: valueEnd) : valueEnd
            } else {
                let valueStart = index
                while index < text.endIndex, !text[index].isWhitespace { index = text.index(after: index) }
                value = text[valueStart..<index]
            }
            attributes.append((name, decoded(value)))
        }
        return attributes
    }

    /// Text with HTML's character references decoded: `&amp;`, `&lt;`, `&gt;`, `&quot;`,
    /// `&apos;`, `&#39;`, `&#x2F;`; any other `&` is kept as it is.
    package static func decoded(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            guard character == "&", let semicolon = text[index...].prefix(12).firstIndex(of: ";") else {
                result.append(character)
                index = text.index(after: index)
                continue
            }
            let entity = text[text.index(after: index)..<semicolon]
            var scalar: Unicode.Scalar?
            switch entity {
            case "amp": scalar = "&"
            case "lt": scalar = "<"
            case "gt": scalar = ">"
            case "quot": scalar = "\""
            case "apos": scalar = "'"
            default:
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                } else if entity.hasPrefix("#") {
                    scalar = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init)
                }
            }
            if let scalar {
                result.unicodeScalars.append(scalar)
                index = text.index(after: semicolon)
            } else {
                result.append(character)
                index = text.index(after: index)
            }
        }
        return result
    }
}
