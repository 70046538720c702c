/// Secrets: passwords, credentials and session cookies the recording holds never land in the
/// plan. Each is replaced by an environment variable the plan's header names, wherever the
/// value appears in what the plan sends.
extension RecordingImport {
    /// Replaces every secret not already a capture: a header that carries credentials
    /// (`Authorization`, API keys and tokens), a form field, query parameter or JSON member
    /// named as a password, secret, token or key, a JSON-RPC login call's positional
    /// parameters (`loginParameter`), and a session cookie the browser sent that no
    /// recorded response set (the jar sends the others). Any other cookie no response set is
    /// left out, and said so.
    mutating func replaceSecrets() {
        var names: [String: String] = [:]
        var cookiesSet: Set<String> = []
        for index in requests.indices {
            let request = requests[index]
            for sent in request.sentValues where !sent.value.isEmpty {
                let replacements = requests[index].replacements[sent.place] ?? []
                let alreadyReplaced = replacements.contains { $0.value == sent.value }
                guard !alreadyReplaced else { continue }
                let secret: Bool
                var login: String?
                switch sent.place {
                case .header(let position):
                    let header = request.headers[position]
                    // A header whose credentials after the scheme were captured is no secret of the recording.
                    let captured = !replacements.isEmpty
                    secret = HeaderRules.isSecretHeader(header.name) && !captured && sent.value == header.value
                case .query, .field:
                    secret = HeaderRules.isSecretName(sent.key)
                case .member(let path):
                    login = Self.loginParameter(at: path, of: request)
                    secret = HeaderRules.isSecretName(sent.key) || login != nil
                case .segment, .text:
                    secret = false
                }
                guard secret else { continue }
                let name = names[sent.value] ?? environmentName(for: login ?? sent.key, taken: Set(names.values))
                names[sent.value] = name
                requests[index].replace(sent.value, at: sent.place, by: .environment(name))
                recordSecret(name, usedAt: index, label: sent.label)
            }
            var sessionCookies: [HARField] = []
            for cookie in request.cookies where !cookiesSet.contains(cookie.name) {
                if HeaderRules.isSessionCookie(cookie.name) {
                    sessionCookies.append(cookie)
                } else {
                    guesses.append((index, "sent cookie \(cookie.name), which no recorded response set: left out"))
                }
            }
            if !sessionCookies.isEmpty {
                let line = sessionCookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
                requests[index].headers.append(HARField(name: "Cookie", value: line))
                let place = SentPlace.header(requests[index].headers.count - 1)
                for cookie in sessionCookies where !cookie.value.isEmpty {
                    let name = names[cookie.value] ?? environmentName(for: "cookie_" + cookie.name, taken: Set(names.values))
                    names[cookie.value] = name
                    requests[index].replace(cookie.value, at: place, by: .environment(name))
                    recordSecret(name, usedAt: index, label: "cookie \(cookie.name)")
                }
            }
            for cookie in HeaderRules.cookiesSet(by: request.entry.response) { cookiesSet.insert(cookie.name) }
        }
        // A secret sent again elsewhere — echoed in a URL, a body — is replaced there too.
        for (value, name) in names where value.count >= 4 {
            for index in requests.indices {
                for sent in requests[index].sentValues where sent.value.contains(value) {
                    let replaced = requests[index].replacements[sent.place]?.contains { $0.value == value } ?? false
                    if !replaced {
                        requests[index].replace(value, at: sent.place, by: .environment(name))
                        recordSecret(name, usedAt: index, label: sent.label)
                    }
                }
                if case .text(let text, _) = requests[index].body, text.contains(value) {
                    requests[index].replace(value, at: .text, by: .environment(name))
                    recordSecret(name, usedAt: index, label: "text body")
                }
            }
        }
    }

    /// What a JSON-RPC login call's positional parameter at `path` is — `user` for the first,
    /// `password` for the others — when `request` calls a method named as a login
    /// (`get_session_key`, `login`, `authenticate`, `sign_in`): LimeSurvey's RemoteControl takes
    /// `{"method": "get_session_key", "params": ["admin", "…"]}`, where no member names the
    /// password. Nil for any other place.
    static func loginParameter(at path: [JSONLocator.Step], of request: RecordedRequest) -> String? {
        guard path.count == 2, path[0] == .name("params"), case .index(let position) = path[1],
            case .json(let body) = request.body, case .string(let method)? = body["method"]
        else { return nil }
        let words = method.lowercased()
        guard ["login", "log_in", "auth", "session_key", "sessionkey", "sign_in", "signin"].contains(where: { words.contains($0) })
        else { return nil }
        return position == 0 ? "user" : "password"
    }

    /// `SURVEY_` and the key in upper case, letters, digits and `_`: `SURVEY_PASSWORD`,
    /// `SURVEY_X_API_KEY`; none taken twice.
    func environmentName(for key: String, taken: Set<String>) -> String {
        var base = "SURVEY_" + String(key.uppercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
        while base.hasSuffix("_") { base.removeLast() }
        return StepNames.unused(base, taken: taken)
    }

    private mutating func recordSecret(_ name: String, usedAt index: Int, label: String) {
        if let position = secrets.firstIndex(where: { $0.name == name }) {
            if !secrets[position].uses.contains(where: { $0.step == index && $0.label == label }) {
                secrets[position].uses.append((index, label))
            }
        } else {
            secrets.append(Secret(name: name, uses: [(index, label)]))
        }
    }
}
