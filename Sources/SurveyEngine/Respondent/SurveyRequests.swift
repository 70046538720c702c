import SurveyJourney
import SurveyWire

/// The survey's requests, built once per run from its API and target: a fixed head where
/// nothing in it varies, or the compiled parts each respondent (or each submit) fills in.
struct SurveyRequests: Sendable {
    /// One call's request. A class: a respondent's async frames hold a reference to it, not
    /// its 150 bytes (which, copied into the login's frame, cost a stack slab per respondent).
    final class Recipe: Sendable {
        let method: String
        /// The head when neither the path nor a header holds a variable.
        let fixed: HTTPRequest.Template?
        /// The base path and the call's path, variables percent-encoded.
        let path: CompiledTemplate
        let headers: [(name: String, value: CompiledTemplate)]
        /// ` HTTP/1.1` to the end of the fixed lines (`hostLine(host:headers:)`).
        let hostLine: [UInt8]
        /// The names of the head's lines, for HTTP/2 (`HTTPRequest.Template.fieldNames`): the
        /// same in every head the recipe makes.
        let fieldNames: [[UInt8]]
        /// The JSON body, for the login and a custom submit body.
        let body: CompiledTemplate?
        /// The target's host, and whether it is https: with the filled-in path, where the
        /// request goes as a cookie jar matches it.
        let host: String
        let secure: Bool
        /// The slots of `Respondent.session` its path, headers and body use.
        let sessionSlots: [Int]
        /// Whether its step reads the response's body, or its header fields
        /// (`JourneyStep.readsBody`): the client keeps them only then.
        let readsBody: Bool
        let readsHeaders: Bool
        let readsCookies: Bool
        /// For a step per survey, how each answer goes into `${answers}`: its key in an object,
        /// or its item in a list (`JourneyStep.AnswersShape`).
        let answersKey: CompiledTemplate?
        let answersItem: CompiledTemplate?
        /// Each answer's value in an object, when not the answer as a JSON string.
        let answersValue: CompiledTemplate?
        /// Each group's item, when `${answers}` is a list of the groups (`JourneyStep.answersGroup`).
        let answersGroup: CompiledTemplate?
        /// Each answer's value and item by the question's type (`AnswerType`), instead of
        /// `answersValue` and `answersItem`; empty without `types`.
        let typeValues: [String: CompiledTemplate]
        let typeItems: [String: CompiledTemplate]
        /// Each chosen value's template by the question's type (`AnswerType.each`).
        let typeEach: [String: CompiledTemplate]
        /// Whether the body is a form's fields: `${answers}` is then `&name=value` per answer.
        let isForm: Bool
        /// For a form body, the slot of the captured form whose fields go first
        /// (`JourneyStep.formFields`), and the names the body sets itself, encoded.
        let formFieldsSlot: Int?
        let formNames: Set<Substring>

        init(
            method: String, fixed: HTTPRequest.Template?, path: CompiledTemplate, headers: [(name: String, value: CompiledTemplate)],
            hostLine: [UInt8], fieldNames: [[UInt8]], body: CompiledTemplate?, host: String, secure: Bool, sessionSlots: [Int],
            readsBody: Bool,
            readsHeaders: Bool, readsCookies: Bool = false, answersKey: CompiledTemplate? = nil, answersItem: CompiledTemplate? = nil,
            answersValue: CompiledTemplate? = nil, typeValues: [String: CompiledTemplate] = [:],
            typeItems: [String: CompiledTemplate] = [:], typeEach: [String: CompiledTemplate] = [:], answersGroup: CompiledTemplate? = nil,
            isForm: Bool = false,
            formFieldsSlot: Int? = nil, formNames: Set<Substring> = []
        ) {
            self.method = method
            self.fixed = fixed
            self.path = path
            self.headers = headers
            self.hostLine = hostLine
            self.fieldNames = fieldNames
            self.body = body
            self.host = host
            self.secure = secure
            self.sessionSlots = sessionSlots
            self.readsBody = readsBody
            self.readsHeaders = readsHeaders
            self.readsCookies = readsCookies
            self.answersKey = answersKey
            self.answersItem = answersItem
            self.answersValue = answersValue
            self.typeValues = typeValues
            self.typeItems = typeItems
            self.typeEach = typeEach
            self.answersGroup = answersGroup
            self.isForm = isForm
            self.formFieldsSlot = formFieldsSlot
            self.formNames = formNames
        }

        /// The body for these values; for a form, after the captured form's fields that neither
        /// the body nor an answer (`answerNames`, encoded) sets again.
        func renderBody(_ values: CompiledTemplate.Values, answerNames: Set<Substring> = []) -> [UInt8]? {
            guard let body else { return nil }
            guard isForm else { return body.render(values) }
            var rendered = body.render(values)
            // Answers after no field: no `&` before the first.
            if rendered.first == 0x26 { rendered.removeFirst() }
            guard let slot = formFieldsSlot, slot < values.session.count, !values.session[slot].isEmpty else { return rendered }
            var bytes: [UInt8] = []
            for field in values.session[slot].split(separator: "&") {
                let name = field.prefix { $0 != "=" }
                if formNames.contains(name) || answerNames.contains(name) { continue }
                if !bytes.isEmpty { bytes.append(0x26) }
                bytes.append(contentsOf: field.utf8)
            }
            if !bytes.isEmpty, !rendered.isEmpty { bytes.append(0x26) }
            bytes.append(contentsOf: rendered)
            return bytes
        }

        /// Whether the head changes with every submit (`${question.id}` or `${answer}` in it).
        var headPerQuestion: Bool { path.perQuestion || headers.contains { $0.value.perQuestion } }

        /// The head for these values: the fixed one, or one built from the filled-in parts,
        /// written straight into its bytes (as `HTTPRequest.Template.head` lays them out).
        ///
        /// The one send-time rule for what a value may put into a head, whatever gave it: each
        /// header value filled in from variables is scanned (`HTTPSyntax.fieldValueFault`), and
        /// one holding CR, LF, NUL or another control character makes the head's `fault` — the
        /// attempt fails as `invalid_request` and nothing is sent. A path's variables cannot
        /// break it: they are percent-encoded (`CompiledTemplate.Encoding.path`). Only values are
        /// scanned, and only where a header has a variable: constant parts were checked once.
        func template(_ values: CompiledTemplate.Values) -> HTTPRequest.Template {
            if let fixed { return fixed }
            var head: [UInt8] = []
            head.reserveCapacity(headCapacity)
            head.append(contentsOf: method.utf8)
            head.append(0x20)
            let pathStart = head.count
            path.render(values, into: &head)
            let pathEnd = head.count
            head.append(contentsOf: hostLine)
            // A `Cookie` header goes in the request's one `Cookie` line, with the jar's cookies.
            var cookie: [UInt8]?
            var fault: String?
            for header in headers {
                if header.name.lowercased() == "cookie" {
                    var value = cookie.map { $0 + [0x3B, 0x20] } ?? []
                    let start = value.count
                    header.value.render(values, into: &value)
                    if header.value.constant == nil, fault == nil, value[start...].contains(where: { !HTTPSyntax.isFieldValueByte($0) }) {
                        fault = HTTPSyntax.fieldValueFault(value[start...], name: header.name)
                    }
                    cookie = value
                    continue
                }
                head.append(contentsOf: header.name.utf8)
                head.append(contentsOf: [0x3A, 0x20])
                let start = head.count
                header.value.render(values, into: &head)
                // A byte loop over the value alone; the fault's words only when one is found.
                if header.value.constant == nil, fault == nil, head[start...].contains(where: { !HTTPSyntax.isFieldValueByte($0) }) {
                    fault = HTTPSyntax.fieldValueFault(head[start...], name: header.name)
                }
                head.append(contentsOf: [0x0D, 0x0A])
            }
            let path = String(decoding: head[pathStart..<pathEnd], as: UTF8.self)
            return HTTPRequest.Template(
                method: method, path: path, head: head, cookie: cookie, cookieOrigin: CookieOrigin(host: host, path: path, secure: secure),
                fieldNames: fieldNames, fault: fault)
        }

        /// ` HTTP/1.1`, `Host`, and survey-bot's `User-Agent` unless a header gives one.
        static func hostLine(host: String, headers: [(name: String, value: CompiledTemplate)]) -> [UInt8] {
            var line = Array(" HTTP/1.1\r\nHost: \(host)\r\n".utf8)
            if !headers.contains(where: { $0.name.lowercased() == "user-agent" }) {
                line.append(contentsOf: "User-Agent: survey-bot/\(ToolVersion.text)\r\n".utf8)
            }
            return line
        }

        /// A first guess at a head's size.
        private var headCapacity: Int { 160 + headers.count * 48 }
    }

    /// Each step's recipe, in the journey's order.
    let recipes: [Recipe]

    /// The requests of `api`'s default journey.
    init(api: SurveyAPI, target: HTTPTarget, columns: [String] = [], types: [String: AnswerType] = [:]) throws(HTTPSyntaxError) {
        try self.init(journey: api.journey, headers: api.headers, target: target, columns: columns, types: types)
    }

    /// Throws when a request cannot be framed (`HTTPRequest.Template`, checked with every
    /// variable standing in as `x`), or a template names a column, capture or variable it
    /// cannot use there: a step may use the captures of the steps before it, and only a step
    /// per question the question and its answer.
    init(
        journey: Journey, headers apiHeaders: [HTTPHeader], target: HTTPTarget, columns: [String] = [], types: [String: AnswerType] = [:]
    ) throws(HTTPSyntaxError) {
        let captures = journey.captureNames
        let fields = journey.questionFields
        var recipes: [Recipe] = []
        var capturedBefore: Set<String> = []
        for step in journey.steps {
            let name = step.step.name
            var allowed: Set<Kind> = [.row, .respondent, .session]
            let carried = step.runs.carries
            if carried == .one { allowed.insert(.question) }
            let sendsAnswers = carried == .all
            if sendsAnswers { allowed.insert(.answers) }
            let path = try Self.compile(
                step.call.path, .path, name: "the \(name) path", columns, captures, allowed, capturedBefore, fields, prefix: target.basePath
            )
            var headers: [(name: String, value: CompiledTemplate)] = []
            // The API's headers that need a value no step has captured yet are left out: the
            // login goes before any session.
            let shared = apiHeaders.filter { Self.sessionNames($0.value).isSubset(of: capturedBefore) }
            // The body's content type, unless a header of the step or the API gives one.
            var contentType: [HTTPHeader] = []
            if step.body != nil || step.runs.answers, !(shared + step.headers).contains(where: { $0.name.lowercased() == "content-type" }) {
                let type =
                    switch step.body == nil ? .json : step.bodyFormat {
                    case .json: "application/json"
                    case .form: "application/x-www-form-urlencoded"
                    case .text(let type): type
                    }
                contentType = [HTTPHeader(name: "Content-Type", value: type)]
            }
            for header in shared + step.headers + contentType {
                let value = try Self.compile(
                    header.value, .text, name: "the header \(header.name)", columns, captures, allowed, capturedBefore, fields)
                headers.append((header.name, value))
            }
            let bodyEncoding: CompiledTemplate.Encoding =
                switch step.body == nil ? .json : step.bodyFormat {
                case .json: .json
                case .form: .form
                case .text: .text
                }
            let isForm = step.body != nil && step.bodyFormat == .form
            // A form's answers go after its fields.
            let bodyText = isForm && sendsAnswers ? step.body.map { $0 + "${answers}" } : step.body ?? (sendsAnswers ? "${answers}" : nil)
            let bodyTemplate = try bodyText.map { (text) throws(HTTPSyntaxError) in
                try Self.compile(text, bodyEncoding, name: "the \(name) body", columns, captures, allowed, capturedBefore, fields)
            }
            // Each answer's key or item, filled in per question.
            var answersKey: CompiledTemplate?
            var answersItem: CompiledTemplate?
            var answersValue: CompiledTemplate?
            if sendsAnswers {
                let perAnswer = allowed.subtracting([.answers]).union([.question])
                switch step.answers {
                case .object(let key):
                    answersKey = try Self.compile(
                        key, .text, name: "the \(name) answers' key", columns, captures, perAnswer, capturedBefore, fields)
                case .list(let item):
                    answersItem = try Self.compile(
                        item, .json, name: "the \(name) answers' item", columns, captures, perAnswer, capturedBefore, fields)
                }
                if let value = step.answersValue {
                    answersValue = try Self.compile(
                        value, .json, name: "the \(name) answers' value", columns, captures, perAnswer, capturedBefore, fields)
                }
            }
            var answersGroup: CompiledTemplate?
            if sendsAnswers, let group = step.answersGroup {
                answersGroup = try Self.compile(
                    group, .json, name: "the \(name) answers' group", columns, captures, allowed.union([.group]), capturedBefore, fields,
                    groupFields: journey.groupFields)
            }
            // Each type's shape, for the steps that send answers.
            var typeValues: [String: CompiledTemplate] = [:]
            var typeItems: [String: CompiledTemplate] = [:]
            var typeEach: [String: CompiledTemplate] = [:]
            if carried != .none {
                let perAnswer = allowed.subtracting([.answers]).union([.question])
                for (type, rule) in types {
                    if let value = rule.value {
                        typeValues[type] = try Self.compile(
                            value, .json, name: "the value of type \(type)", columns, captures, perAnswer, capturedBefore, fields)
                    }
                    if let each = rule.each {
                        typeEach[type] = try Self.compile(
                            each, .json, name: "the each of type \(type)", columns, captures, perAnswer, capturedBefore, fields)
                    }
                    if sendsAnswers, let item = rule.item {
                        typeItems[type] = try Self.compile(
                            item, .json, name: "the item of type \(type)", columns, captures, perAnswer, capturedBefore, fields)
                    }
                }
            }
            // Checked once, every variable standing in as `x`: the literal parts must frame a
            // request; the values filled in later cannot break it (`RespondentData.problems`).
            let sample = CompiledTemplate.Values(
                row: Array(repeating: "x", count: columns.count), respondentID: 0, session: Array(repeating: "x", count: captures.count),
                questionID: 1, answer: "x")
            let checked = try HTTPRequest.Template(
                method: step.call.method, path: path.string(sample), target: target,
                headers: headers.map { HTTPHeader(name: $0.name, value: $0.value.string(sample)) })
            let spread = step.formFields.map { "${session.\($0)}" } ?? ""
            let used = ([step.call.path, step.body ?? "", spread] + shared.map(\.value) + step.headers.map(\.value)).map(Self.sessionNames)
            let slots = captures.indices.filter { index in used.contains { $0.contains(captures[index]) } }
            let varies = path.constant == nil || headers.contains { $0.value.constant == nil }
            recipes.append(
                Recipe(
                    method: step.call.method, fixed: varies ? nil : checked, path: path, headers: headers,
                    hostLine: Recipe.hostLine(host: target.hostHeader, headers: headers), fieldNames: checked.fieldNames,
                    body: bodyTemplate, host: target.host,
                    secure: target.scheme == .https, sessionSlots: slots, readsBody: step.readsBody, readsHeaders: step.readsHeaders,
                    readsCookies: step.readsCookies, answersKey: answersKey, answersItem: answersItem, answersValue: answersValue,
                    typeValues: typeValues, typeItems: typeItems, typeEach: typeEach, answersGroup: answersGroup, isForm: isForm,
                    formFieldsSlot: step.formFields.flatMap { captures.firstIndex(of: $0) },
                    formNames: isForm ? Self.formNames(step.body ?? "") : []))
            capturedBefore.formUnion(step.captures.map(\.name))
        }
        self.recipes = recipes
    }

    /// The names of a form body's fields, as encoded in it.
    static func formNames(_ body: String) -> Set<Substring> {
        Set(body.split(separator: "&").map { $0.prefix { $0 != "=" } })
    }

    /// The captures a header value uses (`${session.NAME}`).
    static func sessionNames(_ value: String) -> Set<String> {
        guard let template = try? TextTemplate(parsing: value) else { return [] }
        return Set(template.variables.compactMap { if case .session(let name) = $0 { name } else { nil } })
    }

    /// What a variable depends on, for where it may be used.
    enum Kind: Sendable { case row, respondent, session, question, answers, group }

    static func kind(_ variable: TextTemplate.Variable) -> Kind {
        switch variable {
        case .row: .row
        case .respondentID: .respondent
        case .session: .session
        case .questionID, .questionField, .answer, .answerLabel: .question
        case .answers: .answers
        case .groupID, .groupField: .group
        }
    }

    private static func compile(
        _ text: String, _ encoding: CompiledTemplate.Encoding, name: String, _ columns: [String], _ captures: [String],
        _ allowed: Set<Kind>, _ capturedBefore: Set<String>, _ fields: [String], prefix: String = "", groupFields: [String] = []
    ) throws(HTTPSyntaxError) -> CompiledTemplate {
        do throws(TemplateError) {
            let template = try TextTemplate(parsing: text)
            for variable in template.variables where !allowed.contains(kind(variable)) {
                throw TemplateError("\(variable) cannot be used in \(name)", offset: 0)
            }
            for variable in template.variables {
                if case .session(let capture) = variable, captures.contains(capture), !capturedBefore.contains(capture) {
                    throw TemplateError("\(variable) cannot be used in \(name): no step before it captures '\(capture)'", offset: 0)
                }
            }
            let whole = prefix.isEmpty ? template : TextTemplate(segments: [.literal(prefix)] + template.segments)
            return try CompiledTemplate(
                whole, encoding, columns: columns, captures: captures, questionFields: fields, groupFields: groupFields)
        } catch {
            throw HTTPSyntaxError("\(name): \(error.description)", offset: error.offset)
        }
    }
}
