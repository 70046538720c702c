/// Two recordings of one walk: what differs between them is dynamic. A value the client sent
/// differently each time, from no response — a timestamp, a nonce — is made a variable; one
/// that merely differs (an answer typed differently) is sent as the first recording has it.
extension RecordingImport {
    /// Matches each kept request with the second recording's of the same method and path
    /// shape, in order, and compares the values each sends at the same place.
    mutating func compare(with second: HARFile) {
        guard let other = RecordingSelection(second), other.origin == selection.origin else {
            guesses.append((nil, "the second recording is of another site: not compared"))
            return
        }
        let theirs = other.kept.map(RecordedRequest.init)
        again = theirs
        var cursor = 0
        var matched = 0
        for index in requests.indices {
            guard let position = theirs[cursor...].firstIndex(where: { Self.shape($0) == Self.shape(requests[index]) }) else { continue }
            cursor = position + 1
            matched += 1
            compare(index, with: theirs[position], responses: theirs[..<position].map(\.responseBytes))
        }
        if matched < requests.count {
            guesses.append((nil, "\(requests.count - matched) of \(requests.count) requests have no match in the second recording"))
        }
    }

    /// Method and path with each segment holding a digit as `*`: what two walks of one survey share.
    static func shape(_ request: RecordedRequest) -> String {
        request.method + " " + request.segments.map { $0.contains(where: \.isNumber) ? "*" : $0 }.joined(separator: "/")
    }

    private mutating func compare(_ index: Int, with other: RecordedRequest, responses: [[UInt8]]) {
        let mine = requests[index].sentValues
        var theirs: [String: [String]] = [:]
        for sent in other.sentValues { theirs[sent.label, default: []].append(sent.value) }
        var seen: [String: Int] = [:]
        for sent in mine {
            let occurrence = seen[sent.label, default: 0]
            seen[sent.label] = occurrence + 1
            guard !Self.isTrivial(sent.value), requests[index].replacements[sent.place]?.contains(where: { $0.value == sent.value }) != true
            else { continue }
            guard let values = theirs[sent.label], occurrence < values.count else { continue }
            let value = values[occurrence]
            guard value != sent.value, !responses.contains(where: { ResponseSource.contains(value, in: $0) }) else { continue }
            if Self.looksGenerated(sent.value) && Self.looksGenerated(value) {
                requests[index].replace(sent.value, at: sent.place, by: .respondentID)
                guesses.append(
                    (
                        index,
                        "sends at \(sent.label) a value made by the client (different in each recording, from no response): "
                            + "made ${respondent.id}, unique per respondent"
                    ))
            } else {
                guesses.append(
                    (
                        index,
                        "sends at \(sent.label) a value that differs between the recordings and comes from no response "
                            + "(typed?): sent as the first recording has it"
                    ))
            }
        }
    }
}
