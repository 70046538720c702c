import SurveyEngine
import SurveyJourney
import SurveyWire

/// How a plan's values are shown wherever they are printed or written — the start line,
/// `validate`, the report and its file names, errors — as opposed to what is sent.
///
/// One rule: a part of a value that came from the environment is shown as `${NAME}`, except the
/// scheme, host and port of the target; query values are `***` (`URLDisplay`); header values
/// are never shown at all (`RunReport.redacted`). Values parsed into numbers, durations, rates,
/// percentages or keywords are shown as parsed: once parsed they can hold nothing else, and the
/// report's own figures show them anyway (`respondents: ${N}` starts N respondents).
extension Plan {
    /// The target as shown: `builtin`, or the URL with its port, and its base path with
    /// `${NAME}` for each part from the environment (`http://127.0.0.1:8080/v1/${TENANT}`).
    var shownTarget: String {
        guard case .url(let url) = target else { return "builtin" }
        guard let text = environmentText["target"]?.first else { return url.description }
        let origin = HTTPTarget(scheme: url.scheme, host: url.host, port: url.port).description
        // The base path is what follows the authority, less its trailing slashes (`HTTPTarget.parse`).
        let scalars = Array(text.value.unicodeScalars)
        var start = 0
        while start + 2 < scalars.count, !(scalars[start] == ":" && scalars[start + 1] == "/" && scalars[start + 2] == "/") {
            start += 1
        }
        start += 3
        while start < scalars.count, scalars[start] != "/" { start += 1 }
        var end = scalars.count
        while end > start, scalars[end - 1] == "/" { end -= 1 }
        guard start < end else { return origin }
        return origin + text.slice(start..<end).display
    }

    /// An API call as shown, `GET /questions?token=***`: its method and path with `${NAME}` for
    /// each part from the environment, and its query values as `***`.
    func shownCall(_ step: Step) -> String {
        let declared = run.declaredJourney?.steps.first { $0.step == step }?.call
        let call = declared ?? run.api.call(step) ?? SurveyAPI.Call(method: "POST", path: "none")
        let key = run.declaredJourney == nil ? "api.\(step.name)" : "journey.\(step.name).request"
        guard let text = environmentText[key]?.first else { return URLDisplay.redacting(call.description) }
        // As `ValueKind.call` reads it: `METHOD /path`, or `/path` with the default method. A
        // variable holding both (`${CALL}`) is shown whole.
        let words = text.split(separator: " ")
        let shownWords = text.display.split(separator: " ")
        switch (words.count, shownWords.count) {
        case (2, 2): return "\(words[0].display) \(URLDisplay.redacting(words[1].display))"
        case (1, 1):
            let method = call.description.prefix { $0 != " " }
            return "\(method) \(URLDisplay.redacting(words[0].display))"
        default: return URLDisplay.redacting(text.display)
        }
    }

    /// A text value as shown: `${NAME}` for each part of it from the environment.
    func shownText(_ key: String, _ value: String) -> String {
        environmentText[key]?.first?.display ?? value
    }

    /// The answers by question id (`"*"` for the rest), each as shown.
    var shownAnswers: [String: [String]] {
        var book: [String: [String]] = [:]
        func shown(_ key: String, _ choices: [String]) -> [String] {
            environmentText["answers.\(key)"].map { $0.map(\.display) } ?? choices
        }
        for (id, choices) in run.answers.byQuestion { book[id.text] = shown(id.text, choices) }
        if let fallback = run.answers.fallback { book["*"] = shown("*", fallback) }
        for (id, picker) in run.answers.pickers { book[id.text] = [AnswerSyntax.text(of: picker)] }
        if let picker = run.answers.fallbackPicker { book["*"] = [AnswerSyntax.text(of: picker)] }
        return book
    }

    /// A capture's source as shown: as written, with `${NAME}` for each part from the
    /// environment (`regex token=${PREFIX}(\w+)`), else as read. `block` is the capture
    /// block's key (`api.capture`, `journey.login.capture`).
    func shownCapture(_ capture: SurveyAPI.Capture, in block: String) -> String {
        environmentText["\(block).\(capture.name)"]?.first?.display ?? "\(capture.source)"
    }

    /// A file or directory the plan names, as shown: `${NAME}` for each part from the environment.
    func shownPath(_ path: String) -> String {
        if let written = writtenPaths[path] { return written }
        for key in Self.pathKeys {
            if let text = environmentText[key]?.first, text.value == path { return text.display }
        }
        return path
    }

    /// An error of something the plan's paths were given to — a TLS file, the report directory —
    /// with each such path that came from the environment shown instead, longest first.
    func redacting(_ message: String) -> String {
        Self.redacting(message, paths: Self.pathKeys.compactMap { environmentText[$0]?.first })
    }

    /// `message` with the value of each of `paths` replaced by its display, and then each part
    /// of them from the environment by its `${NAME}`: an error may name only a leading part of a
    /// path (`${OUT}/${SECRET}`: "/tmp/out is not a directory"). Parts of one character are
    /// left, so that a `/` from the environment does not turn every slash of a message into a name.
    /// `encoded`: how `message` holds a value (a form body holds it form-encoded).
    static func redacting(_ message: String, paths: [PlanText], encoded: (String) -> String = { $0 }) -> String {
        var message = message
        let fromEnvironment = paths.filter { $0.isFromEnvironment && !$0.value.isEmpty }
        for path in fromEnvironment.sorted(by: { $0.value.count > $1.value.count }) {
            message = message.replacingOccurrences(of: encoded(path.value), with: path.display)
        }
        let pieces = fromEnvironment.flatMap(\.pieces).filter { $0.variable != nil && $0.text.count > 1 }
        for piece in pieces.sorted(by: { $0.text.count > $1.text.count }) {
            message = message.replacingOccurrences(of: encoded(piece.text), with: "${\(piece.variable ?? "")}")
        }
        return message
    }

    /// What a run must never show of what a server sends back (`RunConfiguration.secrets`):
    /// every value of the plan that came from the environment, whole and each part of it from
    /// there — but a number outside the text a request or a check carries (a header, a body, a
    /// form, a check, a capture), which the plan's figures show anyway (`respondents: ${N}`)
    /// and which, masked, would mask every such number of a server's reason. A PIN in a check
    /// is masked. The proxy's credentials and each respondent's session, row and cookies are
    /// the engine's to add.
    var secrets: [String] {
        var values: Set<String> = []
        for (key, texts) in environmentText {
            let carried =
                key.contains(".headers.") || key.hasSuffix(".expect") || key.contains(".capture.") || key.contains(".form.")
                || key.hasSuffix("body") || key.hasSuffix(".text")
            for text in texts where text.isFromEnvironment {
                for value in [text.value] + text.pieces.filter({ $0.variable != nil }).map(\.text) {
                    if !carried, !value.isEmpty, value.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) { continue }
                    values.insert(value)
                }
            }
        }
        return values.sorted()
    }

    /// The keys whose values are paths of files or directories.
    static let pathKeys = ["report.dir", "tls.ca_file", "tls.client_cert", "tls.client_key", "builtin.questions_file", "data"]
}
