/// A `TextTemplate` made ready for one place of a request: literal runs as bytes, variables as
/// indexes into the respondent's row and session, and how each value is written there. Built
/// once per run; filling it in only appends bytes.
package struct CompiledTemplate: Sendable {
    /// How a value is written into the text.
    package enum Encoding: Sendable {
        /// As it is (a header value, an answer): the caller has checked it.
        case text
        /// Percent-encoded but for RFC 3986 unreserved characters: no value can leave its path
        /// segment or add a query.
        case path
        /// As a JSON value: a string quoted and escaped, a number as a number; inside a string of
        /// the template, escaped without quotes. No value can break the JSON.
        case json
        /// As a form field's value (`application/x-www-form-urlencoded`): percent-encoded but for
        /// RFC 3986 unreserved characters, a space as `+`. No value can add a field.
        case form
    }

    enum Part: Sendable {
        case literal([UInt8])
        case row(Int)
        case respondentID
        case questionID
        case questionField(Int)
        case answer
        case answerLabel
        case groupID
        case groupField(Int)
        case session(Int)
        case answers
    }

    /// A part and whether it sits inside a JSON string literal of the template.
    private let parts: [(part: Part, inString: Bool)]
    let encoding: Encoding
    /// The template's bytes when it has no variable.
    package let constant: [UInt8]?
    /// Whether it uses `${question.id}` or `${answer}`: it changes with every submit.
    package let perQuestion: Bool
    /// The literal bytes, for a first guess of the length.
    private let literalCount: Int

    /// The values a template is filled in with.
    package struct Values {
        var row: [String]
        var respondentID: Int
        package var session: [String]
        package var questionID: QuestionID = 0
        /// The question's other fields the journey uses, in `Journey.questionFields`' order.
        package var questionFields: [String] = []
        package var answer = ""
        /// The answer as a JSON value when it is not a string (a number, a list of choices), for
        /// a JSON template; nil: `answer` as a string.
        package var answerJSON: [UInt8]?
        /// The chosen choice's label (`${answer.label}`).
        package var answerLabel = ""
        /// The id of the group being laid out (`${group.id}`).
        package var groupID = ""
        /// That group's other fields the journey uses, in `Journey.groupFields`' order.
        package var groupFields: [String] = []
        /// Every answer of the survey (`${answers}`): JSON, or each answer as `&name=value`
        /// for a form.
        package var answers: [UInt8] = []

        /// The values of a respondent's row and session; the question's, its answer and the
        /// survey's answers where given.
        package init(
            row: [String], respondentID: Int, session: [String], questionID: QuestionID = 0, questionFields: [String] = [],
            answer: String = "", answers: [UInt8] = []
        ) {
            self.row = row
            self.respondentID = respondentID
            self.session = session
            self.questionID = questionID
            self.questionFields = questionFields
            self.answer = answer
            self.answers = answers
        }
    }

    /// Compiles `template` for `encoding`, with row columns and capture names resolved to
    /// their indexes. Throws on a column or capture that does not exist.
    package init(
        _ template: TextTemplate, _ encoding: Encoding, columns: [String], captures: [String], questionFields: [String] = [],
        groupFields: [String] = []
    ) throws(TemplateError) {
        var parts: [(Part, Bool)] = []
        var inString = false
        var escaped = false
        for segment in template.segments {
            switch segment {
            case .literal(let text):
                let bytes = Array(text.utf8)
                if encoding == .json {
                    for byte in bytes {
                        if escaped {
                            escaped = false
                        } else if byte == 0x5C && inString {
                            escaped = true
                        } else if byte == 0x22 {
                            inString.toggle()
                        }
                    }
                }
                parts.append((.literal(bytes), false))
            case .variable(let variable):
                let part: Part
                switch variable {
                case .row(let column):
                    guard let index = columns.firstIndex(of: column) else {
                        throw TemplateError("no column '\(column)' in the data for \(variable)", offset: 0)
                    }
                    part = .row(index)
                case .session(let name):
                    guard let index = captures.firstIndex(of: name) else {
                        throw TemplateError("no capture '\(name)' in 'api.capture' for \(variable)", offset: 0)
                    }
                    part = .session(index)
                case .respondentID: part = .respondentID
                case .questionID: part = .questionID
                case .questionField(let path):
                    guard let index = questionFields.firstIndex(of: path) else {
                        throw TemplateError("\(variable) is no field the questions are read with", offset: 0)
                    }
                    part = .questionField(index)
                case .answer: part = .answer
                case .answerLabel: part = .answerLabel
                case .groupID: part = .groupID
                case .groupField(let path):
                    guard let index = groupFields.firstIndex(of: path) else {
                        throw TemplateError("\(variable) is no field the groups are read with", offset: 0)
                    }
                    part = .groupField(index)
                case .answers:
                    // Already JSON, or form fields: it goes in as it is, and only where a JSON value may
                    // stand, or after a form's fields.
                    guard encoding == .json && !inString || encoding == .form else {
                        throw TemplateError("\(variable) goes only in a JSON body, as a value of its own", offset: 0)
                    }
                    part = .answers
                }
                parts.append((part, inString))
            }
        }
        self.parts = parts
        self.encoding = encoding
        literalCount = parts.reduce(0) { count, part in
            if case .literal(let bytes) = part.0 { count + bytes.count } else { count }
        }
        perQuestion = template.variables.contains {
            if case .questionField = $0 { return true }
            return $0 == .questionID || $0 == .answer || $0 == .answerLabel
        }
        if template.isConstant {
            constant = parts.flatMap { part -> [UInt8] in if case .literal(let bytes) = part.0 { bytes } else { [] } }
        } else {
            constant = nil
        }
    }

    /// The filled-in bytes.
    package func render(_ values: Values) -> [UInt8] {
        if let constant { return constant }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(literalCount + 32)
        render(values, into: &bytes)
        return bytes
    }

    /// Appends the filled-in bytes to `bytes`.
    package func render(_ values: Values, into bytes: inout [UInt8]) {
        for (part, inString) in parts {
            switch part {
            case .literal(let literal): bytes.append(contentsOf: literal)
            case .row(let index): append(text: index < values.row.count ? values.row[index] : "", inString: inString, to: &bytes)
            case .session(let index):
                append(text: index < values.session.count ? values.session[index] : "", inString: inString, to: &bytes)
            case .answer:
                if encoding == .json, !inString, let json = values.answerJSON {
                    bytes.append(contentsOf: json)
                } else {
                    append(text: values.answer, inString: inString, to: &bytes)
                }
            case .answerLabel: append(text: values.answerLabel, inString: inString, to: &bytes)
            case .groupID: append(text: values.groupID, inString: inString, to: &bytes)
            case .groupField(let index):
                append(text: index < values.groupFields.count ? values.groupFields[index] : "", inString: inString, to: &bytes)
            case .questionField(let index):
                append(text: index < values.questionFields.count ? values.questionFields[index] : "", inString: inString, to: &bytes)
            case .answers: bytes.append(contentsOf: values.answers)
            case .respondentID: append(number: values.respondentID, inString: inString, to: &bytes)
            case .questionID:
                // As the API gave it: a number goes into JSON as one, a string as a string.
                if values.questionID.isInteger {
                    bytes.append(contentsOf: values.questionID.text.utf8)
                } else {
                    append(text: values.questionID.text, inString: inString, to: &bytes)
                }
            }
        }
    }

    /// The filled-in text; a text that is one value as it is (`${row.colour}`) is that value,
    /// not a copy.
    package func string(_ values: Values) -> String {
        if encoding == .text, parts.count == 1 {
            switch parts[0].part {
            case .row(let index) where index < values.row.count: return values.row[index]
            case .session(let index) where index < values.session.count: return values.session[index]
            case .answer: return values.answer
            default: break
            }
        }
        return String(decoding: render(values), as: UTF8.self)
    }

    private func append(number: Int, inString: Bool, to bytes: inout [UInt8]) {
        // Digits and a minus sign are the same in every encoding.
        bytes.append(contentsOf: String(number).utf8)
    }

    private func append(text: String, inString: Bool, to bytes: inout [UInt8]) {
        switch encoding {
        case .text:
            bytes.append(contentsOf: text.utf8)
        case .path, .form:
            // A value of `.` or `..` alone would be a dot segment (RFC 3986 §3.3), which a server
            // or a proxy removes with the segment before it: its dots go percent-encoded.
            if encoding == .path, text == "." || text == ".." {
                for _ in text.utf8 { bytes.append(contentsOf: [0x25, 0x32, 0x45]) }
                return
            }
            for byte in text.utf8 {
                if encoding == .form, byte == 0x20 {
                    bytes.append(0x2B)
                } else if Self.isUnreserved(byte) {
                    bytes.append(byte)
                } else {
                    bytes.append(0x25)
                    bytes.append(Self.hex[Int(byte >> 4)])
                    bytes.append(Self.hex[Int(byte & 0xF)])
                }
            }
        case .json:
            if !inString { bytes.append(0x22) }
            Self.appendJSONEscaped(text, to: &bytes)
            if !inString { bytes.append(0x22) }
        }
    }

    private static let hex = Array("0123456789ABCDEF".utf8)
    private static let lowerHex = Array("0123456789abcdef".utf8)

    /// `text` as a form field's name or value: what `.form` writes for a variable's value.
    package static func formEncoded(_ text: String) -> String {
        let compiled = try? CompiledTemplate(TextTemplate(segments: [.variable(.answer)]), .form, columns: [], captures: [])
        return compiled.map { String(decoding: $0.render(Values(row: [], respondentID: 0, session: [], answer: text)), as: UTF8.self) }
            ?? text
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E: true
        default: false
        }
    }

    /// The text's UTF-8 as the inside of a JSON string: `"`, `\` and control characters escaped.
    package static func appendJSONEscaped(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            // Most text has nothing to escape: then it goes in one copy.
            guard utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return bytes.append(contentsOf: utf8) }
            appendEscaping(utf8, to: &bytes)
        }
    }

    /// Appends `utf8` to `bytes` with JSON's escapes, byte by byte.
    private static func appendEscaping(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        for byte in utf8 {
            switch byte {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
            case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20:
                bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, lowerHex[Int(byte >> 4)], lowerHex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
    }
}
