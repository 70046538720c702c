/// A `Set-Cookie` field value read by RFC 6265 §5.2: the name and value, and the attributes
/// that matter to a client that is not a browser. `HttpOnly` and unknown attributes are
/// ignored; of an attribute given twice, the last counts.
package struct SetCookie: Sendable {
    package var name: [UInt8]
    package var value: [UInt8]
    /// From `Max-Age`: seconds from now; 0 or less is already expired.
    var maxAge: Int64?
    /// From `Expires`: seconds since the Unix epoch.
    var expires: Int64?
    /// From `Domain`, lowercase, a leading dot removed; nil when absent or empty.
    var domain: String?
    /// From `Path`, when it starts with `/`.
    var path: String?
    var secure = false

    /// Reads a field value; nil when it sets no cookie (no `=` before the first `;`, or an
    /// empty name), or when it holds a control character but a tab — NUL, CR, LF and the rest,
    /// which RFC 6265bis §5.7 has a client ignore the whole field for: such a cookie would go
    /// back in a `Cookie` line, under either protocol, whichever protocol set it.
    package init?(_ field: some Collection<UInt8>) {
        let bytes = Array(field)
        // A field value's bytes (RFC 9110 §5.5), as `HTTPSyntax.isFieldValueByte` says.
        guard bytes.allSatisfy({ $0 >= 0x20 ? $0 != 0x7F : $0 == 0x09 }) else { return nil }
        let end = bytes.firstIndex(of: 0x3B) ?? bytes.endIndex
        let pair = bytes[..<end]
        guard let equals = pair.firstIndex(of: 0x3D) else { return nil }
        let name = Self.trimmed(pair[..<equals])
        guard !name.isEmpty else { return nil }
        self.name = Array(name)
        value = Array(Self.trimmed(pair[(equals + 1)...]))
        var rest = bytes[end...]
        while let semicolon = rest.first, semicolon == 0x3B {
            rest = rest.dropFirst()
            let next = rest.firstIndex(of: 0x3B) ?? rest.endIndex
            take(attribute: rest[..<next])
            rest = rest[next...]
        }
    }

    private mutating func take(attribute av: ArraySlice<UInt8>) {
        let equals = av.firstIndex(of: 0x3D)
        let name = Self.lowercased(Self.trimmed(av[..<(equals ?? av.endIndex)]))
        let value = equals.map { Self.trimmed(av[($0 + 1)...]) } ?? []
        switch name {
        case "expires":
            if let date = CookieDate.parse(value) { expires = date }
        case "max-age":
            guard let first = value.first, first == 0x2D || (0x30...0x39).contains(first) else { return }
            let digits = first == 0x2D ? value.dropFirst() : value[...]
            guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return }
            var seconds: Int64 = 0
            for digit in digits { seconds = seconds > Int64.max / 20 ? Int64.max / 10 : seconds * 10 + Int64(digit - 0x30) }
            maxAge = first == 0x2D ? -seconds : seconds
        case "domain":
            // An empty Domain is ignored, as RFC 6265 advises.
            guard !value.isEmpty else { return }
            let text = Self.lowercased(value)
            domain = text.hasPrefix(".") ? String(text.dropFirst()) : text
        case "path":
            let text = String(decoding: value, as: UTF8.self)
            path = text.hasPrefix("/") ? text : nil
        case "secure":
            secure = true
        default:
            break
        }
    }

    /// Without leading and trailing spaces and tabs.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
