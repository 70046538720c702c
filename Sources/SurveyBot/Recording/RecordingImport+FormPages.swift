import Foundation
import SurveyJourney

/// HTML page loops: a run of form posts to one path, each answering the fields the page before
/// showed and sending back the fields it gave (a CSRF token, a page key, `thisstep`), the last
/// response a page that shows none of those fields (the "thank you" page). It becomes one step
/// that runs `per_page`, posting each page's whole form (`form *`) with the button pressed and
/// the page's answers, the questions found in each page by the names of the fields answered, and
/// the recorded answers the plan's `answers:`.
extension RecordingImport {
    /// How an HTML page loop posts a page and reads the next one.
    struct FormPage: Sendable {
        /// The regular expression whose first group is each question's field: the fields the
        /// pages show (no hidden input) named like the ones answered.
        var questions: String
        /// The field of the button pressed, and the regular expression that takes from each page
        /// the value it had (`move`: `movenext`, then `movesubmit`); nil when every post pressed
        /// the same or none.
        var button: (field: String, pattern: String)?
        /// The other fields every post sends that the page does not hold, with the same value
        /// (`ajax=off`), in the order of the first post.
        var extras: [String]
        /// Each page's think per question, from the recorded pauses, ±25% (ms).
        var think: ClosedRange<Int>?
        /// The names of the captures of the whole form and of the button, set when folded.
        var formCapture = "form"
        var buttonCapture = "move"
    }

    /// A run of form posts to one path, folded or not, and why not.
    enum FormRun {
        /// Request `first` starts no run of two form posts or more.
        case none
        /// The run from `first` to `last` is a page loop: its pages, the answers its posts gave
        /// by field in order, and for each field a post sent more than once (checkboxes) how many
        /// values each post sent it.
        case loop(last: Int, page: FormPage, answers: [(field: String, value: String)], several: [String: [Int]])
        /// The run from `first` to `last` looks like a page loop but is not one, for `reason`.
        case notFolded(last: Int, reason: String)
    }

    /// Folds the posts `first...last` into one page loop: the fields the pages gave go back as
    /// the whole form each page holds (`form *`, captured from the page before and from each
    /// page), so that the captures and notes of those fields one by one go; the button pressed is
    /// a capture; the answers of this recording and of the second one's same loop go under
    /// `answers:`.
    mutating func foldForm(
        from first: Int, to last: Int, page: FormPage, answers given: [(field: String, value: String)], several: [String: [Int]]
    ) {
        var page = page
        let posts = first...last
        let own = Set(page.extras + [page.button?.field].compactMap { $0 })
        /// A use of a value in a folded post's body, which the form now sends: a field but the
        /// post's own, or the whole text of a body that sends a field twice.
        func replacedByTheForm(_ step: Int, _ label: String) -> Bool {
            guard posts.contains(step) else { return false }
            if label == "text body" { return true }
            return label.hasPrefix("form field ") && !own.contains(String(label.dropFirst("form field ".count)))
        }
        var carried: [String] = []
        for correlation in correlations {
            for use in correlation.uses where replacedByTheForm(use.step, use.label) {
                carried.append(use.label.hasPrefix("form field ") ? String(use.label.dropFirst("form field ".count)) : correlation.capture)
            }
        }
        carried = carried.uniqued()
        for position in correlations.indices { correlations[position].uses.removeAll { replacedByTheForm($0.step, $0.label) } }
        let unused = Set(correlations.filter { $0.uses.isEmpty }.map(\.capture))
        correlations.removeAll { $0.uses.isEmpty }
        for step in captures.keys { captures[step]?.removeAll { unused.contains($0.name) } }
        for position in secrets.indices { secrets[position].uses.removeAll { replacedByTheForm($0.step, $0.label) } }
        secrets.removeAll { $0.uses.isEmpty }
        guesses.removeAll { guess in
            guard let step = guess.step, posts.contains(step), guess.text.hasPrefix("sends at form field ") else { return false }
            return !own.contains { guess.text.hasPrefix("sends at form field \($0) ") }
        }
        var taken = Set(correlations.map(\.capture))
        page.formCapture = uniqueCaptureName("form", taken: taken)
        taken.insert(page.formCapture)
        let opened = Self.page(before: first, first: first, in: requests)
        for step in [opened, first] { addCapture(Capture(name: page.formCapture, source: .form("*")), at: step) }
        record(capture: page.formCapture, from: opened, source: .form("*"), usedAt: first, label: "form \"*\"")
        record(capture: page.formCapture, from: first, source: .form("*"), usedAt: first, label: "form \"*\"")
        if let button = page.button {
            page.buttonCapture = uniqueCaptureName(button.field, taken: taken)
            for step in [opened, first] { addCapture(Capture(name: page.buttonCapture, source: .regex(button.pattern)), at: step) }
            record(
                capture: page.buttonCapture, from: opened, source: .regex(button.pattern), usedAt: first,
                label: "form field \(button.field)")
        }
        pageLoops.append(PageLoop(first: first, last: last, reader: .form(page), opened: opened))
        for (field, value) in given { addAnswer(field, value) }
        let gave: String = carried.isEmpty ? "" : ", which carries what the pages gave: " + carried.joined(separator: ", ")
        let pressed: String = page.button.map { " with the button pressed (\($0.field))" } ?? ""
        var text = "and the \(last - first) posts after it, to one path, are an HTML page loop: runs per_page, posting back each page's "
        text += "form (form *\(gave))\(pressed) and its answers; the questions are the fields each page shows named like those "
        text += "answered; the recorded answers under answers:"
        var several = several
        if let (theirs, theirSeveral) = secondRecordingsAnswers(like: first) {
            for (field, value) in theirs { addAnswer(field, value) }
            several.merge(theirSeveral) { $0 + $1 }
            text += ", with the second recording's (a field answered differently lists each value: one is picked per respondent)"
        }
        guesses.append((first, text))
        // Checkboxes: the answers have no fixed set of several values, but a number of the choices the page offers.
        for (field, sent) in several.sorted(by: { $0.key < $1.key }) {
            guard let fewest = sent.min(), let most = sent.max() else { continue }
            answerPickers[field] = "choices(\(fewest)..\(most))"
            guesses.append(
                (
                    first,
                    "sends field \(field) more than once (checkboxes): answered choices(\(fewest)..\(most)), that many of the "
                        + "choices its page offers, not the ones recorded (answers: has no fixed set of several values)"
                ))
        }
    }

    /// The answers of the second recording's page loop of the same shape as the one at `first`,
    /// and its fields sent more than once.
    private func secondRecordingsAnswers(like first: Int) -> ([(field: String, value: String)], [String: [Int]])? {
        for index in again.indices where Self.shape(again[index]) == Self.shape(requests[first]) {
            if case .loop(_, _, let answers, let several) = Self.formRun(in: again, at: index) { return (answers, several) }
        }
        return nil
    }

    /// The request whose response is the page post `index` of the run from `first` answers: the
    /// one before it; for the first post, the latest page with a form before it when only
    /// requests that post nothing (a script's call for settings) came between, since a
    /// browser posts the page it shows.
    static func page(before index: Int, first: Int, in requests: [RecordedRequest]) -> Int {
        guard index == first else { return index - 1 }
        var candidate = first - 1
        while candidate > 0, requests[candidate].method != "POST",
            requests[candidate].entry.response.content.body.text.map({ HTMLForm.find("<form", in: $0[...]) == nil }) ?? true
        {
            candidate -= 1
        }
        let found = requests[candidate].entry.response.content.body.text.map { HTMLForm.find("<form", in: $0[...]) != nil } ?? false
        return found ? candidate : first - 1
    }

    /// The run of form posts that starts at request `first`, and whether it is a page loop.
    static func formRun(in requests: [RecordedRequest], at first: Int) -> FormRun {
        guard first >= 1, requests[first].method == "POST", formFields(of: requests[first]) != nil else { return .none }
        var last = first
        while last + 1 < requests.count, requests[last + 1].method == "POST", formFields(of: requests[last + 1]) != nil,
            shape(requests[last + 1]) == shape(requests[first])
        {
            last += 1
        }
        guard last > first else { return .none }
        func notFolded(_ reason: String) -> FormRun { .notFolded(last: last, reason: reason) }
        let paths = (first...last).map { PlanValueText.write(requests[$0].requestLine) }.uniqued()
        if paths.count > 1 {
            return notFolded("posts to \(paths.count) paths (\(paths.prefix(3).joined(separator: ", "))): a page loop posts to one")
        }
        // What each post sends: the answers to the fields its page showed, the fields the page gave, the rest.
        var answers: [(field: String, value: String)] = []
        var answeredPerPage: [Int] = []
        var counts: [String: [Int]] = [:]
        var extras: [String: [String?]] = [:]
        var extraOrder: [String] = []
        var pages: [String] = []
        for index in first...last {
            let before = Self.page(before: index, first: first, in: requests)
            guard let page = requests[before].entry.response.content.body.text, HTMLForm.find("<form", in: page[...]) != nil else {
                let why =
                    requests[before].entry.response.content.body.text == nil
                    ? "has no response body in the recording" : "is no HTML page with a form"
                return notFolded("the response before post \(index - first + 1) \(why): its questions cannot be read")
            }
            pages.append(page)
            let shown = Set(shownFields(in: page))
            let given = Set(HTMLForm.fields(in: page).map(\.name)).subtracting(shown)
            var answered = 0
            var sentHere: [String: Int] = [:]
            for (position, field) in (formFields(of: requests[index]) ?? []).enumerated() {
                if shown.contains(field.name) {
                    let secret = requests[index].replacements[.field(position)]?.contains { replaced in
                        if case .environment = replaced.by { return true }
                        return false
                    }
                    if secret == true { return notFolded("its answer at field \(field.name) is a secret") }
                    if !field.value.isEmpty {
                        answered += 1
                        answers.append((field.name, field.value))
                        sentHere[field.name, default: 0] += 1
                    }
                } else if !given.contains(field.name) {
                    if extras[field.name] == nil { extraOrder.append(field.name) }
                    extras[field.name, default: Array(repeating: nil, count: index - first)].append(field.value)
                }
            }
            answeredPerPage.append(answered)
            for (name, count) in sentHere { counts[name, default: []].append(count) }
            for name in extraOrder where extras[name]?.count ?? 0 < index - first + 1 { extras[name]?.append(nil) }
        }
        guard !answers.isEmpty else { return notFolded("no post answers a field its page shows") }
        // The questions: the fields each page shows named like those answered; none in the last response.
        // LimeSurvey's pages say which questions a condition hides (`ls-irrelevant`), which its own
        // pattern skips; the fields' pattern is kept where that one would miss an answered field.
        let fields = answers.map(\.field)
        /// Why `questions` does not read the recorded pages as they were answered; nil when it does.
        func misreads(_ questions: String) -> String? {
            guard let pattern = try? TextPattern(questions) else { return "no regular expression finds its fields" }
            for (offset, page) in pages.enumerated() {
                let found = Set(questionIDs(pattern, in: page))
                let sent = Set((formFields(of: requests[first + offset]) ?? []).filter { !$0.value.isEmpty }.map(\.name))
                let missing = Set(shownFields(in: page)).intersection(sent).subtracting(found)
                if let name = missing.sorted().first {
                    return "page \(offset + 1) shows field \(name), which the questions' pattern misses"
                }
            }
            if let still = questionIDs(pattern, in: requests[last].entry.response.content.body.text ?? "").first {
                return "the last response still shows a question (field \(still)): the walk stopped before the survey's end"
            }
            return nil
        }
        let candidates =
            (pages.contains { $0.contains(Self.limeSurveyMarker) } ? [limeSurveyQuestionsPattern(forFields: fields)] : [])
            + [questionsPattern(forFields: fields)]
        guard let questions = candidates.first(where: { misreads($0) == nil }) else {
            return notFolded(misreads(candidates[candidates.count - 1]) ?? "no regular expression finds its fields")
        }
        // The other fields: one value on every post, or the button each page pressed.
        var kept: [String] = []
        var button: (field: String, pattern: String)?
        for name in extraOrder {
            let values = extras[name] ?? []
            if values.contains(where: { $0 == nil }) { return notFolded("sends field \(name) on some pages only") }
            let given = values.compactMap { $0 }
            if Set(given).count == 1 {
                kept.append(name)
                continue
            }
            guard button == nil, let found = buttonPattern(field: name, values: given, pages: pages) else {
                return notFolded("sends field \(name) with a value that changes from page to page and no page gives")
            }
            button = (name, found)
        }
        var thinks: [Double] = []
        for (offset, index) in (first...last).enumerated() where answeredPerPage[offset] > 0 {
            guard let start = requests[index].entry.started, let ended = requests[index - 1].entry.ended, start - ended >= 0.1 else {
                continue
            }
            thinks.append((start - ended) / Double(answeredPerPage[offset]))
        }
        let think = thinks.min().flatMap { low in thinks.max().map { Int((low * 750).rounded())...Int(($0 * 1250).rounded()) } }
        let several = counts.filter { $0.value.contains { $0 > 1 } }
        return .loop(
            last: last, page: FormPage(questions: questions, button: button, extras: kept, think: think), answers: answers, several: several
        )
    }

    /// A request's form fields: its url-encoded body, read as fields even when a name repeats
    /// (then the body is kept as text); nil for another body.
    static func formFields(of request: RecordedRequest) -> [HARField]? {
        switch request.body {
        case .form(let fields): return fields
        case .text(let text, let contentType) where contentType.lowercased().contains("x-www-form-urlencoded"):
            return HTMLForm.postedFields(Array(text.utf8)[...]).map { HARField(name: $0.name, value: $0.value) }
        default: return nil
        }
    }

    /// The names of the fields a person fills in on the page's first form, in order, each once:
    /// its `<input>`s that are not hidden, buttons or files, its `<select>`s and `<textarea>`s,
    /// none disabled.
    static func shownFields(in page: String) -> [String] {
        var rest = page[...]
        if let open = HTMLForm.find("<form", in: rest) {
            rest = rest[open.upperBound...]
            if let close = HTMLForm.find("</form", in: rest) { rest = rest[..<close.lowerBound] }
        }
        var names: [String] = []
        var tags = HTMLForm.FieldTags(rest)
        while let (tag, attributes) = tags.next() {
            func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
            guard let name = attribute("name"), !name.isEmpty, attribute("disabled") == nil else { continue }
            if tag == "input", ["hidden", "submit", "button", "image", "reset", "file"].contains(attribute("type")?.lowercased() ?? "text")
            {
                continue
            }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// A regular expression whose first group is the name of each field a page shows (an
    /// `<input>` not hidden, a `<select>`, a `<textarea>`) named like one of `fields`: each
    /// name with its runs of digits as `[0-9]+` (`513579X9X12` → `[0-9]+X[0-9]+X[0-9]+`, `q1` →
    /// `q[0-9]+`), so that it finds the questions of pages not recorded too.
    static func questionsPattern(forFields fields: [String]) -> String {
        let shapes = shapes(of: fields)
        return #"<(?:input|select|textarea)\b(?![^>]*\stype=["']?hidden)[^>]*\sname=["']?("#
            + (shapes.count == 1 ? shapes[0] : "(?:" + shapes.joined(separator: "|") + ")") + #")["'\s/>]"#
    }

    /// Each field name with its runs of digits as `[0-9]+`, escaped, once each.
    static func shapes(of fields: [String]) -> [String] {
        fields.map { name -> String in
            var shape = ""
            var inDigits = false
            for character in name {
                if character.isASCII, character.isNumber {
                    if !inDigits { shape += "[0-9]+" }
                    inDigits = true
                    continue
                }
                inDigits = false
                shape += ResponseSource.escaped(String(character)[...])
            }
            return shape
        }.uniqued()
    }

    /// What marks a page as LimeSurvey's: the id of each question's text.
    static let limeSurveyMarker = #"id="ls-question-text-"#

    /// LimeSurvey's questions: each question's block that no condition hides (`ls-irrelevant`,
    /// a class only), its field named by its text's id — as `plans/limesurvey-pages.plan` reads
    /// them — the names shaped as `questionsPattern` shapes them.
    static func limeSurveyQuestionsPattern(forFields fields: [String]) -> String {
        let names = shapes(of: fields)
        return #"(?s)<div\s+id="question[0-9]+"\s+class="(?![^"]*ls-irrelevant)[^"]*".*?id="ls-question-text-("#
            + (names.count == 1 ? names[0] : "(?:" + names.joined(separator: "|") + ")") + #")""#
    }

    /// The question ids `pattern` finds in `page`, as the engine reads them.
    static func questionIDs(_ pattern: TextPattern, in page: String) -> [String] {
        var shape = SurveyQuestion.Shape(pattern: pattern)
        shape.details = nil
        guard case .success(let questions) = SurveyQuestion.list(from: Array(page.utf8), shape: shape, page: true) else { return [] }
        return questions.map(\.id.text)
    }

    /// A regular expression that takes from each page the value of the button named `field`
    /// the post pressed: a `<button>` or `<input>` of that name whose value is one of those
    /// recorded — checked to give each page's own.
    static func buttonPattern(field: String, values: [String], pages: [String]) -> String? {
        let choices = values.uniqued().map { ResponseSource.escaped($0[...]) }.joined(separator: "|")
        let pattern =
            #"<(?:button|input)\b(?=[^>]*\sname=["']?"# + ResponseSource.escaped(field[...]) + #"["'\s/>])[^>]*\svalue=["']?("#
            + choices + #")["'\s/>]"#
        guard let compiled = try? TextPattern(pattern) else { return nil }
        for (page, value) in zip(pages, values) where compiled.capture(in: page) != value { return nil }
        return pattern
    }
}
