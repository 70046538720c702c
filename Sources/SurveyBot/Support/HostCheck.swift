import Foundation

/// Which `Host` an exposed listener of survey-bot answers for (`--metrics-listen`, `serve`):
/// `localhost`, an IP address, the name it was told to bind, and the names it is told to allow
/// besides. Any other name is a page using DNS rebinding — a name of its own pointed at
/// 127.0.0.1 — reading the listener from a browser on the machine: answered `421`.
struct HostCheck: Sendable, Hashable {
    /// The host the listener binds, as given (`127.0.0.1`, `survey.lab`).
    var bindHost: String
    /// More names to answer for, in lower case; `*` answers for any.
    var allowed: Set<String> = []

    /// The response to a request for a host it does not answer for.
    static let misdirectedStatus = 421

    /// Whether a request whose `Host` field is `field` is answered. No `Host` (HTTP/1.0) is
    /// answered: no browser sends such a request.
    func allows(_ field: String?) -> Bool {
        if allowed.contains("*") { return true }
        guard let field = field?.trimmingCharacters(in: .whitespaces), !field.isEmpty else { return true }
        var host = Substring(field)
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            host = host[host.index(after: host.startIndex)..<close]
            return host.contains(":")
        }
        if let colon = host.lastIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy(\.isNumber) else { return false }
            host = host[..<colon]
        }
        let name = host.lowercased()
        if name == "localhost" || name == bindHost.lowercased() || allowed.contains(name) { return true }
        // An IPv4 address: four numbers of at most three digits.
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) }
    }
}
