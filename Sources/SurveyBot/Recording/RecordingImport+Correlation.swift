import Foundation

/// Correlation: a value a request sends that an earlier response gave becomes a capture of the
/// step that received it and `${session.NAME}` where it is sent.
extension RecordingImport {
    /// Finds each sent value's source. A value counts as given by a response only when a
    /// response held it before any request sent it: one the walk sent first (the survey's id
    /// in the first URL) is the walk's own constant, sent as recorded however often pages
    /// repeat it. The capture goes to the latest response before each use that holds it, so a
    /// token a page renews is taken fresh, under the name its first value took from the same
    /// source (each page's `form key` is `${session.key}`).
    mutating func correlate() {
        var firstSent: [String: Int] = [:]
        var captureNames: [String: String] = [:]
        var namesBySource: [ResponseSource: String] = [:]
        for (index, request) in requests.enumerated() {
            for sent in request.sentValues where !Self.isTrivial(sent.value) {
                let first = firstSent[sent.value] ?? index
                firstSent[sent.value] = first
                let given = (0..<first).contains { ResponseSource.contains(sent.value, in: requests[$0].responseBytes) }
                guard given else { continue }
                guard let found = latestSource(of: sent.value, before: index) else {
                    guesses.append(
                        (index, "sends at \(sent.label) a value an earlier response holds where no capture can take it: sent as recorded"))
                    continue
                }
                let (step, source) = found
                let name =
                    captureNames[sent.value] ?? namesBySource[source]
                    ?? uniqueCaptureName(source.key ?? sent.key, taken: Set(captureNames.values))
                captureNames[sent.value] = name
                namesBySource[source] = namesBySource[source] ?? name
                addCapture(Capture(name: name, source: source), at: step)
                requests[index].replace(sent.value, at: sent.place, by: .session(name))
                record(capture: name, from: step, source: source, usedAt: index, label: sent.label)
            }
        }
        // A value captured goes in wherever a later request sends it inside a longer one (a
        // sentence naming it, a text body, which is not cut into values).
        for (value, name) in captureNames {
            guard let first = correlations.first(where: { $0.capture == name })?.sources.first?.step else { continue }
            for index in requests.indices where index > first {
                for sent in requests[index].sentValues where sent.value != value && sent.value.contains(value) {
                    // A place whose whole value, or this one, is replaced already.
                    let replaced = requests[index].replacements[sent.place] ?? []
                    guard !replaced.contains(where: { $0.value == value || $0.value == sent.value }) else { continue }
                    requests[index].replace(value, at: sent.place, by: .session(name))
                    record(capture: name, from: nil, source: nil, usedAt: index, label: sent.label)
                }
                if case .text(let text, _) = requests[index].body, text.contains(value) {
                    requests[index].replace(value, at: .text, by: .session(name))
                    record(capture: name, from: nil, source: nil, usedAt: index, label: "text body")
                }
            }
        }
    }

    /// The latest response before request `index` that gives `value` where a capture can take it.
    func latestSource(of value: String, before index: Int) -> (Int, ResponseSource)? {
        for step in stride(from: index - 1, through: 0, by: -1) {
            if let source = ResponseSource.find(value, in: requests[step].entry.response, skippingCookies: false) {
                return (step, source)
            }
        }
        return nil
    }

    /// A capture's name from `key`: letters, digits and `_` (for `${session.NAME}`), lower
    /// case, starting with a letter, and none taken twice.
    func uniqueCaptureName(_ key: String, taken: Set<String>) -> String {
        var base = String(key.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
        while base.contains("__") { base = base.replacingOccurrences(of: "__", with: "_") }
        base = String(base.drop { $0 == "_" }.reversed().drop { $0 == "_" }.reversed())
        if base.first?.isLetter != true { base = "value" + (base.isEmpty ? "" : "_" + base) }
        return StepNames.unused(base, taken: taken)
    }

    mutating func addCapture(_ capture: Capture, at step: Int) {
        var list = captures[step, default: []]
        if !list.contains(capture) { list.append(capture) }
        captures[step] = list
    }

    mutating func record(capture name: String, from step: Int?, source: ResponseSource?, usedAt index: Int, label: String) {
        if !correlations.contains(where: { $0.capture == name }) {
            correlations.append(Correlation(capture: name, sources: [], uses: []))
        }
        let position = correlations.firstIndex { $0.capture == name } ?? correlations.count - 1
        if let step, let source, !correlations[position].sources.contains(where: { $0.step == step }) {
            correlations[position].sources.append((step, source))
        }
        if !correlations[position].uses.contains(where: { $0.step == index && $0.label == label }) {
            correlations[position].uses.append((index, label))
        }
    }
}
