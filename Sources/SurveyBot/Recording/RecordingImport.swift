/// A recording turned into a plan: its kept requests as the journey's steps, each value a
/// response gave and a later request sent back as a capture and `${session.NAME}`, secrets as
/// `${ENV}` placeholders, and a summary of what was kept, left out, found and guessed.
///
/// The import is pure: a `HARFile` (and a second recording of the same walk) in, plan text and
/// summary out. `ImportCommand` reads the files, checks the plan with `validate`'s loader and
/// writes it.
struct RecordingImport: Sendable {
    /// What the import was asked.
    struct Options: Sendable {
        /// The plan's `name`.
        var name: String
        /// Where the recording came from, as the plan's header says.
        var source: String
        /// Whether steps keep the recorded pauses before them as their `think`.
        var thinkTimes = true

        init(name: String, source: String, thinkTimes: Bool = true) {
            self.name = name
            self.source = source
            self.thinkTimes = thinkTimes
        }
    }

    /// Why nothing could be imported.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// A capture a step takes: its name and where its response holds the value.
    struct Capture: Sendable, Hashable {
        var name: String
        var source: ResponseSource
    }

    /// A value a response gave and later requests sent back.
    struct Correlation: Sendable {
        var capture: String
        /// The steps that take it, each with its source; in order.
        var sources: [(step: Int, source: ResponseSource)]
        /// Where it is sent: a step and a place (`header Authorization`).
        var uses: [(step: Int, label: String)]
    }

    /// A secret of the recording, replaced by an environment variable.
    struct Secret: Sendable {
        var name: String
        var uses: [(step: Int, label: String)]
    }

    /// The kept requests, with their replacements.
    var requests: [RecordedRequest]
    /// Each step's captures, by the index of its request.
    var captures: [Int: [Capture]] = [:]
    /// The steps' names, in order.
    var names: [String] = []
    /// Each value correlated: the capture, the step whose response gave it, and its uses.
    var correlations: [Correlation] = []
    /// Environment variables the plan needs, in order, with where each is used.
    var secrets: [Secret] = []
    /// What the import guessed, or could not explain, by step when it concerns one.
    var guesses: [(step: Int?, text: String)] = []
    /// The page loops folded, and the answers their posts gave, by question id in order: each
    /// value once (two recordings may give a question two).
    var pageLoops: [PageLoop] = []
    var answers: [(id: String, values: [String])] = []
    /// An answer read from the survey instead of the values recorded, by id: a field of
    /// checkboxes sent with several values (`choices(1..2)`).
    var answerPickers: [String: String] = [:]
    /// The second recording's kept requests, when there is one.
    var again: [RecordedRequest] = []
    /// The summary's lines of requests left out.
    var left: [String] = []
    /// What the selection kept and dropped.
    let selection: RecordingSelection
    let options: Options

    /// Imports `file`; with `again`, a second recording of the same walk, tells the values a
    /// client made (different in each, from no response) from those typed.
    static func make(_ file: HARFile, again: HARFile? = nil, options: Options) -> Result<RecordingImport, Failure> {
        guard let selection = RecordingSelection(file) else {
            return .failure(Failure(description: "the recording holds no request"))
        }
        guard !selection.kept.isEmpty else {
            return .failure(Failure(description: "nothing of \(selection.origin) to import: every request is an asset or another site's"))
        }
        var result = RecordingImport(requests: selection.kept.map(RecordedRequest.init), selection: selection, options: options)
        result.correlate()
        result.replaceSecrets()
        if let again { result.compare(with: again) }
        result.foldPages()
        result.nameSteps()
        result.describeDropped()
        result.describeMissingBodies()
        return .success(result)
    }

    private init(requests: [RecordedRequest], selection: RecordingSelection, options: Options) {
        self.requests = requests
        self.selection = selection
        self.options = options
    }

    /// Whether a value is too common to tell anything: shorter than 4 characters, a number of
    /// at most 4 digits, or a word without a digit — letters, `-`, `_` and `.` (`movenext`,
    /// `authentication`, `true`, `sa_login`): the tokens, keys and ids a server hands out hold
    /// digits. Such values are sent as recorded, never correlated.
    static func isTrivial(_ value: String) -> Bool {
        if value.count < 4 { return true }
        if value.allSatisfy(\.isNumber) && value.count <= 4 { return true }
        return value.allSatisfy { $0.isLetter || "-_.".contains($0) }
    }

    /// Whether a value looks made by a client rather than typed: a number of 8 digits or more
    /// (a timestamp), or 8 characters or more of letters and digits mixed (a nonce, a UUID).
    static func looksGenerated(_ value: String) -> Bool {
        guard value.count >= 8 else { return false }
        if value.allSatisfy(\.isNumber) { return true }
        let allowed = value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
        return allowed && value.contains(where: \.isNumber) && value.contains(where: \.isLetter)
    }

    /// The steps' names, the posts a page loop folds named as its first.
    private mutating func nameSteps() {
        let folded = Set(pageLoops.flatMap { ($0.first + 1)...$0.last })
        let kept = requests.indices.filter { !folded.contains($0) }
        let keptNames = StepNames.make(kept.map { requests[$0] })
        var names = Array(repeating: "", count: requests.count)
        for (position, index) in kept.enumerated() { names[index] = keptNames[position] }
        for loop in pageLoops {
            for index in (loop.first + 1)...loop.last { names[index] = names[loop.first] }
        }
        self.names = names
    }

    /// A guess for each kept response the recorder kept no body of (Chrome leaves some out):
    /// a value it gave could be correlated from its headers only.
    private mutating func describeMissingBodies() {
        for (index, request) in requests.enumerated() {
            let response = request.entry.response
            guard case .absent = response.content.body, response.content.size > 0 || response.header("content-length") != nil else {
                continue
            }
            guesses.append((index, "has no response body in the recording: a value it gave was looked for in its headers only"))
        }
        guard requests.contains(where: { if case .absent = $0.entry.response.content.body { true } else { false } }) else { return }
        var warned: Set<String> = []
        for (index, request) in requests.enumerated() {
            for sent in request.sentValues where Self.looksLikeToken(sent.key) && !sent.value.isEmpty && !warned.contains(sent.label) {
                let replaced = request.replacements[sent.place]?.first { $0.value == sent.value }?.by
                let kept: String
                switch replaced {
                case nil: kept = "sent as recorded"
                case .environment(let name)?: kept = "made the secret ${\(name)}"
                default: continue
                }
                warned.insert(sent.label)
                guesses.append(
                    (
                        index,
                        "sends at \(sent.label) a token (by its name) that no recorded response gave — the responses' bodies "
                            + "were not recorded —, \(kept): it was the recorded session's, and the server will likely refuse "
                            + "it (400, 403): record the walk again with its response bodies"
                    ))
            }
        }
    }

    /// Whether a field's, header's or member's name says it holds a per-session token: a CSRF
    /// or XSRF token, a nonce, a form's or page's key.
    static func looksLikeToken(_ name: String) -> Bool {
        let lower = name.lowercased()
        return ["csrf", "xsrf", "token", "nonce", "authenticity", "postkey", "formkey", "pagekey"].contains { lower.contains($0) }
    }

    /// The summary of what was left out: each reason, how many, and a few of their URLs
    /// (their query values hidden).
    private mutating func describeDropped() {
        for reason in RecordingSelection.Reason.allCases {
            let entries = selection.dropped.filter { $0.reason == reason }.map(\.entry)
            guard !entries.isEmpty else { continue }
            var examples: [String] = []
            for entry in entries {
                let shown =
                    reason == .otherOrigin ? entry.request.url.origin : URLDisplay.redacting(entry.request.url.target)
                if !examples.contains(shown) { examples.append(shown) }
            }
            let more = examples.count > 3 ? ", …" : ""
            left.append("\(entries.count) \(reason.rawValue): \(examples.prefix(3).joined(separator: ", "))\(more)")
        }
    }
}
