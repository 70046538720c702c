import SurveyJourney

/// Answers and pages: a run of posts of one shape — the same request, a JSON body alike but for
/// an object of answers keyed by the ids of the questions the response before listed — is a
/// page loop. It becomes one step that runs `per_page`, its body's answers `${answers}`, the
/// questions read where the responses list them, and the recorded answers the plan's `answers:`.
/// HTML form pages fold too (`RecordingImport+FormPages.swift`); a run of posts that looks like
/// a loop but is not one is left as plain steps, and the summary says why.
extension RecordingImport {
    /// A page loop found in the recording.
    struct PageLoop: Sendable {
        /// The first post and the last, by request index.
        var first: Int
        var last: Int
        /// How its pages are posted and read.
        var reader: Reader
        /// The request whose response is the first page: the one before the first post, or an
        /// HTML page a script's calls came after.
        var opened: Int

        init(first: Int, last: Int, reader: Reader, opened: Int? = nil) {
            self.first = first
            self.last = last
            self.reader = reader
            self.opened = opened ?? first - 1
        }
    }

    /// How a page loop posts its answers and reads the next page: a JSON API's, or an HTML form's.
    enum Reader: Sendable {
        case json(JSONPage)
        case form(FormPage)
    }

    /// A JSON page loop: where the body holds the page's answers, where each response lists
    /// the page's questions, and where each question holds its id and its text.
    struct JSONPage: Sendable {
        var member: [JSONLocator.Step]
        var list: String
        var idField: String
        var textField: String
    }

    /// Finds the page loops: two posts or more in a row whose answers are the questions the
    /// response before each listed, the last response listing none (the loop's end, as the
    /// engine reads it) — JSON bodies, or HTML forms. What it cannot fold is left as plain
    /// steps, with a guess saying why.
    mutating func foldPages() {
        var index = 1
        while index < requests.count {
            if let (loop, page) = pageLoop(at: index) {
                pageLoops.append(PageLoop(first: index, last: loop, reader: .json(page)))
                for post in index...loop {
                    guard case .json(let body) = requests[post].body, case .object(let members)? = Self.value(at: page.member, in: body)
                    else { continue }
                    for (id, value) in members {
                        if case .string(let text) = value { addAnswer(id, text) }
                    }
                }
                // The second recording's posts of the same request: a question answered otherwise lists both.
                var theirs = false
                for post in again where Self.shape(post) == Self.shape(requests[index]) {
                    guard case .json(let body) = post.body, case .object(let members)? = Self.value(at: page.member, in: body) else {
                        continue
                    }
                    for (id, value) in members {
                        if case .string(let text) = value {
                            addAnswer(id, text)
                            theirs = true
                        }
                    }
                }
                if theirs {
                    // The answers that differ are the answers' lists now, no longer values sent as the first recording has them.
                    let answersAt = "sends at JSON " + JSONPathText.text(page.member) + "."
                    guesses.removeAll { guess in guess.step.map { (index...loop).contains($0) } == true && guess.text.hasPrefix(answersAt) }
                }
                guesses.append(
                    (
                        index,
                        "and the \(loop - index) posts after it, of one shape, are a page loop: runs per_page, its answers "
                            + "the recorded ones under answers:"
                            + (theirs
                                ? ", with the second recording's (a question answered differently lists each value: one is picked per respondent)"
                                : "")
                    ))
                index = loop + 1
                continue
            }
            switch Self.formRun(in: requests, at: index) {
            case .loop(let last, let page, let given, let several):
                foldForm(from: index, to: last, page: page, answers: given, several: several)
                index = last + 1
            case .notFolded(let last, let reason):
                guesses.append((index, "and the \(last - index) posts after it look like a page loop but are left as steps: \(reason)"))
                index = last + 1
            case .none:
                if let (last, reason) = unfoldedJSONRun(at: index) {
                    guesses.append((index, "and the \(last - index) posts after it look like a page loop but are left as steps: \(reason)"))
                    index = last + 1
                } else {
                    index += 1
                }
            }
        }
    }

    /// Adds a recorded answer to the plan's `answers:`: a value not yet given for that id.
    mutating func addAnswer(_ id: String, _ value: String) {
        if let position = answers.firstIndex(where: { $0.id == id }) {
            if !answers[position].values.contains(value) { answers[position].values.append(value) }
        } else {
            answers.append((id, [value]))
        }
    }

    /// A run of JSON posts of one request that `pageLoop(at:)` did not fold, and why.
    private func unfoldedJSONRun(at first: Int) -> (Int, String)? {
        guard case .json(let body) = requests[first].body else { return nil }
        var last = first
        while last + 1 < requests.count, requests[last + 1].method == requests[first].method,
            requests[last + 1].requestLine == requests[first].requestLine, case .json = requests[last + 1].body
        {
            last += 1
        }
        guard last > first else { return nil }
        let objects = Self.answerObjects(in: body, path: [])
        if objects.isEmpty {
            return (last, "its JSON body holds no object of strings keyed by question id (answers as numbers or lists are not folded)")
        }
        if !objects.contains(where: { Self.questions(withIDs: $0.1, in: requests[first - 1]) != nil }) {
            return (last, "the response before it lists no questions whose ids its answers name")
        }
        return (last, "each post does not answer what the response before it listed, or the last response still lists questions")
    }

    /// The JSON page loop whose first post is request `first`, if it starts one: its last post.
    private func pageLoop(at first: Int) -> (Int, JSONPage)? {
        guard case .json(let body) = requests[first].body else { return nil }
        for (member, keys) in Self.answerObjects(in: body, path: []) {
            guard let found = Self.questions(withIDs: keys, in: requests[first - 1]) else { continue }
            let (list, idField, textField) = found
            var last = first
            while last + 1 < requests.count, samePage(requests[last + 1], as: requests[first], member: member),
                case .json(let next)? = Optional(requests[last + 1].body), case .object(let given)? = Self.value(at: member, in: next),
                given.allSatisfy({ Self.isString($0.1) }),
                Self.listedIDs(at: list, field: idField, in: requests[last]) == Set(given.map(\.0))
            {
                last += 1
            }
            let ended = Self.listedIDs(at: list, field: idField, in: requests[last])?.isEmpty ?? true
            guard last > first, ended else { continue }
            return (last, JSONPage(member: member, list: list, idField: idField, textField: textField))
        }
        return nil
    }

    /// Whether `request` posts the same request as `first`, with the same body but for its
    /// answers at `member`.
    private func samePage(_ request: RecordedRequest, as first: RecordedRequest, member: [JSONLocator.Step]) -> Bool {
        guard request.method == first.method, request.requestLine == first.requestLine,
            case .json(let a) = request.body, case .json(let b) = first.body
        else { return false }
        return Self.replacing(member, in: a) == Self.replacing(member, in: b)
    }

    /// Each object of strings in a JSON body (a page's answers, keyed by question id), by path.
    static func answerObjects(in value: JSONValue, path: [JSONLocator.Step]) -> [([JSONLocator.Step], Set<String>)] {
        guard case .object(let members) = value else { return [] }
        var found: [([JSONLocator.Step], Set<String>)] = []
        if !members.isEmpty, members.allSatisfy({ isString($0.1) }) {
            found.append((path, Set(members.map(\.0))))
        }
        for (name, member) in members { found += answerObjects(in: member, path: path + [.name(name)]) }
        return found
    }

    /// Where `request`'s JSON response lists questions whose ids are `ids`: a list of objects
    /// each holding one of them in a field, and its text in another string field.
    static func questions(withIDs ids: Set<String>, in request: RecordedRequest) -> (String, String, String)? {
        guard let text = request.entry.response.content.body.text, case .success(let json) = JSONValue.parse(Array(text.utf8)),
            case .object(let members) = json
        else { return nil }
        for (name, value) in members {
            guard case .array(let items) = value, let firstItem = items.first, case .object(let fields) = firstItem else { continue }
            for (field, _) in fields {
                let listed = Set(items.compactMap { item -> String? in if case .string(let id)? = item[field] { id } else { nil } })
                guard listed == ids, listed.count == items.count else { continue }
                guard let textField = fields.first(where: { $0.0 != field && isString($0.1) })?.0 else { continue }
                return (JSONPathText.text([.name(name)]), field, textField)
            }
        }
        return nil
    }

    /// The ids a response lists at `list` (a top-level member), nil when it lists nothing there.
    static func listedIDs(at list: String, field: String, in request: RecordedRequest) -> Set<String>? {
        guard let text = request.entry.response.content.body.text, case .success(let json) = JSONValue.parse(Array(text.utf8)),
            case .array(let items)? = json[String(list.dropFirst(2))]
        else { return nil }
        return Set(items.compactMap { item -> String? in if case .string(let id)? = item[field] { id } else { nil } })
    }

    static func value(at path: [JSONLocator.Step], in value: JSONValue) -> JSONValue? {
        var current = value
        for step in path {
            switch step {
            case .name(let name):
                guard let next = current[name] else { return nil }
                current = next
            case .index(let index):
                guard case .array(let items) = current, items.indices.contains(index) else { return nil }
                current = items[index]
            }
        }
        return current
    }

    static func isString(_ value: JSONValue) -> Bool {
        if case .string = value { return true }
        return false
    }

    /// `value` with what is at `path` replaced by `null`.
    static func replacing(_ path: [JSONLocator.Step], in value: JSONValue) -> JSONValue {
        guard let step = path.first else { return .null }
        switch (step, value) {
        case (.name(let name), .object(let members)):
            return .object(members.map { $0.0 == name ? ($0.0, replacing(Array(path.dropFirst()), in: $0.1)) : $0 })
        case (.index(let index), .array(let items)):
            return .array(items.enumerated().map { $0.offset == index ? replacing(Array(path.dropFirst()), in: $0.element) : $0.element })
        default:
            return value
        }
    }
}
