import Foundation

/// The hosts that go around the proxy (`NO_PROXY`), read as curl 7.86 and later read it: names
/// and addresses separated by commas or spaces; the value `*` alone for every host; a name
/// matching itself and its subdomains (`example.com` and `.example.com` both match
/// `api.example.com`, never `notexample.com`), case aside and a trailing dot ignored; an IPv4 or
/// IPv6 address (brackets or not) matching that address, and with `/bits` a CIDR range. An
/// address only ever matches an address: names are compared as written, never resolved. Ports
/// are not part of it: an entry matches the host on every port.
struct NoProxyList: Sendable, Hashable {
    /// One entry of the list.
    enum Entry: Sendable, Hashable {
        /// A name, lower case, without its leading or trailing dot.
        case name(String)
        /// An address and how many of its leading bits must match: 32 or 128 for the address alone.
        case address([UInt8], bits: Int)
    }

    /// Whether the list is `*`: every host goes around the proxy.
    var matchesAll = false
    /// The entries, in order; entries that are neither a name nor an address are left out, as
    /// curl leaves them.
    var entries: [Entry] = []

    /// The list `text` says.
    init(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" {
            matchesAll = true
            return
        }
        for token in trimmed.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            if let entry = Self.entry(String(token)) { entries.append(entry) }
        }
    }

    /// Whether a connection to `host` (a name, or an address with or without brackets) goes
    /// around the proxy.
    func matches(host: String) -> Bool {
        if matchesAll { return true }
        if let address = Self.address(Self.unbracketed(host)) {
            return entries.contains { entry in
                guard case .address(let network, let bits) = entry, network.count == address.count else { return false }
                return Self.prefix(of: address, equals: network, bits: bits)
            }
        }
        let name = Self.trimmingDots(host.lowercased())
        return entries.contains { entry in
            guard case .name(let suffix) = entry, !suffix.isEmpty else { return false }
            return name == suffix || name.hasSuffix("." + suffix)
        }
    }

    private static func entry(_ token: String) -> Entry? {
        let bare = unbracketed(token)
        var addressText = Substring(bare)
        var bits: Int?
        if let slash = bare.firstIndex(of: "/") {
            addressText = bare[..<slash]
            guard let count = Int(bare[bare.index(after: slash)...]), count >= 0 else { return nil }
            bits = count
        }
        if let address = address(String(addressText)) {
            let width = address.count * 8
            let prefix = bits ?? width
            guard prefix <= width else { return nil }
            return .address(address, bits: prefix == 0 ? width : prefix)
        }
        guard bits == nil else { return nil }
        let name = trimmingDots(token.lowercased())
        return name.isEmpty ? nil : .name(name)
    }

    /// `[::1]` as `::1`; other text as it is.
    private static func unbracketed(_ text: String) -> String {
        guard text.hasPrefix("["), let close = text.firstIndex(of: "]") else { return text }
        return String(text[text.index(after: text.startIndex)..<close]) + String(text[text.index(after: close)...])
    }

    /// A name without the leading dot that marks a domain or the trailing dot of a full name.
    private static func trimmingDots(_ name: String) -> String {
        var text = Substring(name)
        if text.hasPrefix(".") { text = text.dropFirst() }
        if text.hasSuffix(".") { text = text.dropLast() }
        return String(text)
    }

    /// The bytes of an IPv4 (4) or IPv6 (16) address, nil for anything else.
    static func address(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    private static func prefix(of address: [UInt8], equals network: [UInt8], bits: Int) -> Bool {
        var left = bits
        for (a, b) in zip(address, network) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            if a & mask != b & mask { return false }
            left -= 8
        }
        return true
    }
}
