import SurveyWire

/// What an HTML page's form offers each of its fields, as a browser shows it: the values of a
/// field's radio buttons, checkboxes and `<option>`s with their labels, the kind of input, and
/// whether it is required — the details of the questions an HTML survey lists
/// (`questions: regex …` with `question_choices: form`), each question being the field of its id.
package struct HTMLChoices {
    private var fields: [String: QuestionDetails] = [:]

    /// Reads every `<input>`, `<select>` (with its `<option>`s) and `<textarea>` of `page`.
    package init(page: String) {
        let labels = Self.labels(in: page)
        var tags = HTMLForm.FieldTags(page[...])
        while let (tag, attributes) = tags.next() {
            func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
            guard let name = attribute("name"), !name.isEmpty, attribute("disabled") == nil else { continue }
            var details = fields[name] ?? QuestionDetails()
            if attribute("required") != nil || attribute("aria-required") == "true" { details.required = true }
            switch tag {
            case "select":
                details.type = attribute("multiple") != nil ? "select-multiple" : "select"
                details.choices += Self.options(in: tags.skip(to: "</select"))
            case "textarea":
                details.type = "textarea"
            default:
                let type = attribute("type")?.lowercased() ?? "text"
                if ["submit", "button", "image", "reset", "file", "hidden"].contains(type) { continue }
                details.type = type
                if type == "radio" || type == "checkbox" {
                    let value = attribute("value") ?? "on"
                    let label = attribute("id").flatMap { labels[$0] } ?? value
                    // An empty value is the "no answer" button of an optional question: no choice; a
                    // value that would end a line (`&#13;&#10;`) is none either.
                    if !value.isEmpty, !value.unicodeScalars.contains(where: HTTPSyntax.isControl),
                        !details.choices.contains(where: { $0.id == value })
                    {
                        details.choices.append(QuestionDetails.Choice(id: value, label: label))
                    }
                }
                if let minimum = attribute("min").flatMap({ Int($0) }) { details.minimum = minimum }
                if let maximum = attribute("max").flatMap({ Int($0) }) { details.maximum = maximum }
            }
            fields[name] = details
        }
    }

    /// The details of the field named `name`; nil when the page has no such field.
    package func details(of name: String) -> QuestionDetails? {
        fields[name]
    }

    /// The `<option>`s of a `<select>`'s inside: each value (its text without one) and text,
    /// but an empty value, which is the "please choose" line.
    private static func options(in text: Substring) -> [QuestionDetails.Choice] {
        var choices: [QuestionDetails.Choice] = []
        var rest = text
        while let open = HTMLForm.find("<option", in: rest) {
            rest = rest[open.upperBound...]
            let end = HTMLForm.tagEnd(rest)
            let attributes = HTMLForm.attributes(rest[..<end])
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : rest[end...]
            let close = rest.firstIndex(of: "<") ?? rest.endIndex
            let label = plainText(rest[..<close])
            let value = attributes.first { $0.name == "value" }?.value ?? label
            guard !value.isEmpty, !value.unicodeScalars.contains(where: HTTPSyntax.isControl),
                attributes.first(where: { $0.name == "disabled" }) == nil
            else { continue }
            choices.append(QuestionDetails.Choice(id: value, label: label.isEmpty ? value : label))
        }
        return choices
    }

    /// Each `<label for="ID">`'s text (tags inside it dropped), by the id it names.
    private static func labels(in page: String) -> [String: String] {
        var labels: [String: String] = [:]
        var rest = page[...]
        while let open = HTMLForm.find("<label", in: rest) {
            rest = rest[open.upperBound...]
            let end = HTMLForm.tagEnd(rest)
            let attributes = HTMLForm.attributes(rest[..<end])
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : rest[end...]
            let close = HTMLForm.find("</label", in: rest)?.lowerBound ?? rest.endIndex
            if let target = attributes.first(where: { $0.name == "for" })?.value, labels[target] == nil {
                labels[target] = plainText(stripTags(rest[..<close]))
            }
        }
        return labels
    }

    private static func stripTags(_ text: Substring) -> Substring {
        var kept = ""
        var inTag = false
        for character in text {
            if character == "<" {
                inTag = true
            } else if character == ">" {
                inTag = false
            } else if !inTag {
                kept.append(character)
            }
        }
        return kept[...]
    }

    /// Text with its references decoded and its runs of white space made one space.
    private static func plainText(_ text: Substring) -> String {
        HTMLForm.decoded(text).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
