import Foundation
import SurveyWire

/// Which recorded headers a plan sends again, and which names hold secrets.
///
/// A browser sends a dozen headers of its own on every request — who it is, what it accepts,
/// its fetch metadata, its cookies — that survey-bot sends its own way (the cookie jar, its
/// `User-Agent`) or that the survey does not read. What is left is what the survey's pages and
/// scripts chose to send: a CSRF header, an API key, `Authorization`, `X-Requested-With`.
enum HeaderRules {
    /// Headers a browser adds by itself, or that survey-bot sets (framing, cookies).
    static let boilerplate: Set<String> = [
        "host", "connection", "content-length", "transfer-encoding", "keep-alive", "te", "upgrade", "user-agent", "accept-encoding",
        "accept-language", "cookie", "origin", "referer", "cache-control", "pragma", "dnt", "upgrade-insecure-requests", "priority",
        "if-none-match", "if-modified-since", "purpose", "x-client-data", "expect", "proxy-connection",
    ]

    /// The headers of `headers` worth sending again: not the browser's own (`boilerplate`,
    /// `sec-*`, HTTP/2's pseudo-headers), `Accept` only when it asks for JSON, and
    /// `Content-Type` only for a text body (a JSON or form body sets its own).
    static func kept(_ headers: [HARField], body: RecordedRequest.Body) -> [HARField] {
        var seen: Set<String> = []
        return headers.filter { header in
            let name = header.name.lowercased()
            guard !name.hasPrefix(":"), !name.hasPrefix("sec-"), !boilerplate.contains(name), HTTPSyntax.isToken(header.name) else {
                return false
            }
            if name == "accept" && !header.value.lowercased().contains("json") { return false }
            if name == "content-type" { return false }
            return seen.insert(name).inserted
        }
    }

    /// The cookies of a `Cookie` line: `a=1; b=2`.
    static func cookies(inHeader line: String) -> [HARField] {
        line.split(separator: ";").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { return nil }
            return HARField(name: name, value: parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
    }

    /// The cookies a response sets, by name and value: its `cookies`, and its `Set-Cookie`
    /// headers (some recorders list only one of them).
    static func cookiesSet(by response: HARResponse) -> [HARField] {
        var cookies = response.cookies
        for header in response.headers where header.name.lowercased() == "set-cookie" {
            for line in header.value.split(separator: "\n") {
                let first = line.split(separator: ";", maxSplits: 1).first ?? ""
                let parts = first.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { continue }
                let cookie = HARField(name: name, value: parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
                if !cookies.contains(cookie) { cookies.append(cookie) }
            }
        }
        return cookies
    }

    /// Headers whose value is a credential: `Authorization`, API keys and tokens.
    static func isSecretHeader(_ name: String) -> Bool {
        let name = name.lowercased()
        return ["authorization", "proxy-authorization", "x-api-key", "x-api-token", "x-auth-token", "x-access-token", "api-key", "apikey"]
            .contains(name) || isSecretName(name)
    }

    /// A field, member or parameter named as a password, secret, token or key:
    /// `password`, `pwd`, `client_secret`, `api_key`, `access_token`.
    static func isSecretName(_ name: String) -> Bool {
        let name = name.lowercased()
        return ["pass", "pwd", "secret", "token", "apikey", "api_key", "api-key", "credential"].contains { name.contains($0) }
    }

    /// A cookie named as a session or a login: `PHPSESSID`, `sessionid`, `connect.sid`, `auth`.
    static func isSessionCookie(_ name: String) -> Bool {
        let name = name.lowercased()
        return ["sess", "sid", "auth", "token", "login", "remember"].contains { name.contains($0) }
    }
}
