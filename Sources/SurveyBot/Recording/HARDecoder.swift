import Foundation
import SurveyJourney

/// Reads a parsed HAR document into a `HARFile`, keeping the JSON path it is at so that an
/// error names the place (`JSONLocator` turns the path into a line and column).
struct HARDecoder {
    /// Why the document is no HAR, and the path of the value at fault.
    struct Failure: Error {
        var message: String
        var path: [JSONLocator.Step]
    }

    let root: JSONValue
    private var path: [JSONLocator.Step] = []

    init(root: JSONValue) {
        self.root = root
    }

    /// The whole file: `log.creator` and every entry of `log.entries`.
    mutating func file() throws(Failure) -> HARFile {
        guard case .object = root else { throw Failure(message: "not a HAR file: the document is not a JSON object", path: []) }
        guard let log = root["log"] else { throw Failure(message: "not a HAR file: no 'log' member", path: []) }
        path = [.name("log")]
        guard case .object = log else { throw failure("not a HAR file: 'log' is not an object") }
        var creator = ""
        if let value = log["creator"] {
            creator = [value["name"], value["version"]].compactMap { $0.flatMap(Self.text) }.joined(separator: " ")
        }
        guard let list = log["entries"] else { throw failure("not a HAR file: 'log' has no 'entries'") }
        path.append(.name("entries"))
        guard case .array(let values) = list else { throw failure("'entries' is not a list") }
        var entries: [HAREntry] = []
        entries.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            path = [.name("log"), .name("entries"), .index(index)]
            entries.append(try entry(value, index: index))
        }
        return HARFile(creator: creator, entries: entries)
    }

    private func failure(_ message: String) -> Failure {
        Failure(message: message, path: path)
    }

    /// `log.entries[3].request` as an error names a place.
    private var place: String {
        path.map { step in
            switch step {
            case .name(let name): "." + name
            case .index(let index): "[\(index)]"
            }
        }.joined().dropFirst().description
    }

    private mutating func entry(_ value: JSONValue, index: Int) throws(Failure) -> HAREntry {
        guard case .object = value else { throw failure("\(place) is not an object") }
        let entryPath = path
        let started = value["startedDateTime"].flatMap(Self.text).flatMap(Self.seconds(iso8601:))
        let milliseconds = value["time"].flatMap(Self.number) ?? 0
        guard let requestValue = value["request"] else { throw failure("\(place) has no 'request'") }
        path = entryPath + [.name("request")]
        let request = try self.request(requestValue)
        guard let responseValue = value["response"] else {
            path = entryPath
            throw failure("\(place) has no 'response'")
        }
        path = entryPath + [.name("response")]
        let response = try self.response(responseValue)
        let resourceType = value["_resourceType"].flatMap(Self.text)?.lowercased()
        let viaServiceWorker = responseValue["_fetchedViaServiceWorker"] == .bool(true)
        return HAREntry(
            index: index, started: started, milliseconds: milliseconds, request: request, response: response,
            resourceType: resourceType, viaServiceWorker: viaServiceWorker)
    }

    private mutating func request(_ value: JSONValue) throws(Failure) -> HARRequest {
        guard case .object = value else { throw failure("\(place) is not an object") }
        let here = path
        guard let method = value["method"].flatMap(Self.text), !method.isEmpty else { throw failure("\(place) has no 'method'") }
        guard let urlValue = value["url"] else { throw failure("\(place) has no 'url'") }
        path = here + [.name("url")]
        guard let text = Self.text(urlValue), let url = HARURL(text) else {
            throw failure("\(place) is not an absolute http:// or https:// URL")
        }
        let headers = try fields(value, "headers", at: here)
        let query = try fields(value, "queryString", at: here)
        let cookies = try fields(value, "cookies", at: here)
        var postData: HARPostData?
        if let post = value["postData"], post != .null {
            path = here + [.name("postData")]
            guard case .object = post else { throw failure("\(place) is not an object") }
            postData = HARPostData(
                mimeType: post["mimeType"].flatMap(Self.text)?.lowercased() ?? "",
                text: post["text"].flatMap(Self.text),
                params: try fields(post, "params", at: path))
        }
        path = here
        return HARRequest(
            method: method.uppercased(), url: url, httpVersion: value["httpVersion"].flatMap(Self.text) ?? "", headers: headers,
            queryString: query, cookies: cookies, postData: postData)
    }

    private mutating func response(_ value: JSONValue) throws(Failure) -> HARResponse {
        guard case .object = value else { throw failure("\(place) is not an object") }
        let here = path
        guard let statusValue = value["status"] else { throw failure("\(place) has no 'status'") }
        path = here + [.name("status")]
        guard let number = Self.number(statusValue), number >= 0, number < 1000, number == number.rounded() else {
            throw failure("\(place) is not an HTTP status")
        }
        path = here
        let headers = try fields(value, "headers", at: here)
        let cookies = try fields(value, "cookies", at: here)
        var content = HARContent(size: 0, mimeType: "", body: .absent)
        if let contentValue = value["content"], case .object = contentValue {
            path = here + [.name("content")]
            content.size = contentValue["size"].flatMap(Self.number).map { Int($0) } ?? 0
            content.mimeType = contentValue["mimeType"].flatMap(Self.text)?.lowercased() ?? ""
            if let text = contentValue["text"].flatMap(Self.text) {
                let encoding = contentValue["encoding"].flatMap(Self.text)?.lowercased()
                content.body = try Self.body(text, encoding: encoding, failure: failure("\(place).text is not base64"))
            }
            path = here
        }
        return HARResponse(
            status: Int(number), statusText: value["statusText"].flatMap(Self.text) ?? "", headers: headers, cookies: cookies,
            content: content, redirectURL: value["redirectURL"].flatMap(Self.text) ?? "")
    }

    /// The `[{"name": …, "value": …}]` list under `key`, empty when the recorder left it out.
    private mutating func fields(_ object: JSONValue, _ key: String, at here: [JSONLocator.Step]) throws(Failure) -> [HARField] {
        guard let list = object[key], list != .null else { return [] }
        path = here + [.name(key)]
        guard case .array(let items) = list else { throw failure("\(place) is not a list") }
        var fields: [HARField] = []
        fields.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard let name = item["name"].flatMap(Self.text) else {
                path = here + [.name(key), .index(index)]
                throw failure("\(place) has no 'name'")
            }
            fields.append(HARField(name: name, value: item["value"].flatMap(Self.text) ?? ""))
        }
        path = here
        return fields
    }

    /// A response body as the file holds it: text, or base64 decoded to text when it is
    /// UTF-8, or counted as binary.
    private static func body(_ text: String, encoding: String?, failure: Failure) throws(Failure) -> HARBody {
        guard encoding == "base64" else { return .text(text) }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { throw failure }
        let bytes = [UInt8](data)
        if bytes.contains(0) { return .binary(bytes.count) }
        if let decoded = String(validating: bytes, as: UTF8.self) { return .text(decoded) }
        return .binary(bytes.count)
    }

    /// A string member as text; numbers and booleans as their JSON text (some recorders write
    /// a header's value as a number).
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .number(_, let text): text
        case .bool(let flag): flag ? "true" : "false"
        default: nil
        }
    }

    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let number): Double(number)
        case .number(let number, _): number
        case .string(let text): Double(text)
        default: nil
        }
    }

    /// `2024-05-01T12:34:56.789Z` or with an offset (`+02:00`, `+0200`) in seconds since
    /// 1970; nil for anything else.
    static func seconds(iso8601 text: String) -> Double? {
        let scalars = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= scalars.count else { return nil }
            var value = 0
            for byte in scalars[index..<index + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < scalars.count, scalars[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2),
            index < scalars.count, scalars[index] == 0x54 || scalars[index] == 0x20
        else { return nil }
        index += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2) else { return nil }
        var fraction = 0.0
        if expect(0x2E) {
            var scale = 0.1
            while index < scalars.count, (0x30...0x39).contains(scalars[index]) {
                fraction += Double(scalars[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
        }
        var offset = 0
        if expect(0x5A) {
            offset = 0
        } else if index < scalars.count, scalars[index] == 0x2B || scalars[index] == 0x2D {
            let sign = scalars[index] == 0x2D ? -1 : 1
            index += 1
            guard let hours = digits(2) else { return nil }
            _ = expect(0x3A)
            let minutes = digits(2) ?? 0
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard index == scalars.count, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else {
            return nil
        }
        // Days from 1970-01-01 to the civil date (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }
}
