import SurveyJourney

/// A browser's recording of a walk through a site: a HAR 1.2 file (DevTools' "Save all as HAR"
/// in Chrome and Firefox, mitmproxy's `hardump`, Charles, Playwright's `record_har_path`), read
/// into the requests and responses `import` turns into a plan and `replay` compares a run with.
///
/// Only what those need is kept; a field HAR 1.2 requires but a recorder left out (Firefox
/// drops `cookies` at times, Chrome a response's `content.text`) is read as empty rather than
/// refused. What cannot be read — not JSON, no `log.entries`, an entry without its request's
/// method and URL or its response's status — is a `HARError` at its line and column.
struct HARFile: Sendable {
    /// The recorder's name and version (`log.creator`), as the file says: `WebInspector 537.36`.
    var creator: String
    /// The exchanges in the order recorded (`log.entries`).
    var entries: [HAREntry]

    /// The largest file read: a recording of a long walk with its bodies is tens of megabytes;
    /// a larger file is refused before it is read.
    static let maxFileBytes = 512 << 20

    /// Reads the HAR file at `path`; a file that cannot be read, is larger than
    /// `maxFileBytes`, or is no HAR is one error at its place.
    static func read(path: String) -> Result<HARFile, HARError> {
        if let size = FileAccess.size(path), size > maxFileBytes {
            return .failure(HARError("larger than \(maxFileBytes >> 20) MiB, which no recording read here is", path: path))
        }
        switch FileAccess.read(path, upTo: maxFileBytes + 1) {
        case .success(let bytes):
            guard bytes.count <= maxFileBytes else {
                return .failure(HARError("larger than \(maxFileBytes >> 20) MiB, which no recording read here is", path: path))
            }
            return parse(bytes, path: path)
        case .failure(let error):
            return .failure(HARError("cannot read the recording: \(error.reason)", path: path))
        }
    }

    /// Reads a HAR document's bytes as if from `path` (which errors name).
    static func parse(_ bytes: [UInt8], path: String) -> Result<HARFile, HARError> {
        let root: JSONValue
        switch JSONValue.parse(bytes) {
        case .success(let value): root = value
        case .failure(let error):
            return .failure(HARError("not JSON, so not a HAR file: \(error.reason)", path: path, bytes: bytes, offset: error.offset))
        }
        var decoder = HARDecoder(root: root)
        do throws(HARDecoder.Failure) {
            let file = try decoder.file()
            return .success(file)
        } catch {
            let offset = JSONLocator.offset(of: error.path, in: bytes)
            return .failure(HARError(error.message, path: path, bytes: bytes, offset: offset))
        }
    }
}

/// One exchange of a recording: a request, its response and when it happened.
struct HAREntry: Sendable {
    /// Its place in the file's `log.entries`, from 0.
    var index: Int
    /// When the request started (`startedDateTime`), in seconds since 1970; nil when the file
    /// gives no date that reads as ISO 8601.
    var started: Double?
    /// The whole exchange's time in milliseconds (`time`); 0 when not given.
    var milliseconds: Double
    var request: HARRequest
    var response: HARResponse
    /// Chrome's kind of resource (`_resourceType`: `document`, `xhr`, `fetch`, `script`,
    /// `stylesheet`, `image`, `font`, `other`…), lower-cased; nil from other recorders.
    var resourceType: String?
    /// Whether a service worker answered it (Chrome's `response._fetchedViaServiceWorker`).
    var viaServiceWorker: Bool

    /// When the response had ended, in seconds since 1970, when the start is known.
    var ended: Double? { started.map { $0 + max(milliseconds, 0) / 1000 } }
}

/// A header, query parameter, cookie or form field: a name and its value as recorded.
struct HARField: Sendable, Hashable {
    var name: String
    var value: String
}

/// The request of an exchange.
struct HARRequest: Sendable {
    /// Upper-cased: `GET`, `POST`.
    var method: String
    /// As recorded: absolute, with its query.
    var url: HARURL
    /// `HTTP/1.1`, `h2`, `http/2.0` or empty.
    var httpVersion: String
    /// In order, repeats kept; HTTP/2's pseudo-headers (`:authority`) too, as Chrome records them.
    var headers: [HARField]
    var queryString: [HARField]
    var cookies: [HARField]
    var postData: HARPostData?

    /// The first header of this name, in any case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A request's body (`postData`).
struct HARPostData: Sendable {
    /// As recorded, lower-cased: `application/json`, `application/x-www-form-urlencoded; charset=utf-8`.
    var mimeType: String
    /// The body as sent, when the recorder kept it.
    var text: String?
    /// The form's fields, when the recorder listed them (Firefox lists them beside the text; a
    /// multipart body may come with only these).
    var params: [HARField]
}

/// The response of an exchange.
struct HARResponse: Sendable {
    /// 0 for a request that got no response (blocked, cancelled).
    var status: Int
    var statusText: String
    var headers: [HARField]
    var cookies: [HARField]
    var content: HARContent
    /// `redirectURL`, empty when none.
    var redirectURL: String

    /// The first header of this name, in any case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A response's body (`content`).
struct HARContent: Sendable {
    /// The body's length in bytes as recorded; -1 or 0 when unknown.
    var size: Int
    /// Lower-cased: `text/html; charset=utf-8`.
    var mimeType: String
    /// The body, decoded from base64 when the file encoded it.
    var body: HARBody
}

/// What a recording kept of a response's body.
enum HARBody: Sendable {
    /// The recorder left the body out (Chrome does for some responses; a `--no-content` export).
    case absent
    /// The body as text.
    case text(String)
    /// Bytes that are no UTF-8 text (an image, a PDF), by their count.
    case binary(Int)

    /// The text, when the body is text.
    var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }
}

/// A request's URL, cut into what a plan needs: its origin and its target.
struct HARURL: Sendable, Hashable, CustomStringConvertible {
    /// As recorded.
    var description: String
    /// `http` or `https`, lower-cased (another scheme as written).
    var scheme: String
    /// The host, lower-cased; an IPv6 address in brackets.
    var host: String
    /// The port when written, else nil.
    var port: Int?
    /// The path, `/` at least, as sent (percent-encoded).
    var path: String
    /// The query after `?`, as sent; nil without one.
    var query: String?

    /// `scheme://host[:port]`, the port left out when it is the scheme's own.
    var origin: String {
        let defaultPort = scheme == "https" ? 443 : 80
        return "\(scheme)://\(host)" + (port.map { $0 == defaultPort ? "" : ":\($0)" } ?? "")
    }

    /// The request target: the path and its query.
    var target: String { query.map { "\(path)?\($0)" } ?? path }

    /// `url` cut into its parts; nil for text that is no absolute URL (`data:`, `blob:`, a
    /// relative path).
    init?(_ url: String) {
        description = url
        guard let schemeEnd = url.range(of: "://") else { return nil }
        scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else { return nil }
        var rest = url[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close].lowercased()
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon].lowercased()
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority.lowercased()
        }
        guard !host.isEmpty else { return nil }
        if let portText, !portText.isEmpty {
            guard let number = Int(portText), (1...65535).contains(number) else { return nil }
            port = number
        }
        let target = rest[authorityEnd...]
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        } else {
            path = String(target)
        }
        if path.isEmpty { path = "/" }
    }
}

/// Why a file is no recording that can be read, at its line and column when known:
/// `walk.har:12:5: error: log.entries[0].request has no 'url'`.
struct HARError: Error, Sendable, CustomStringConvertible {
    var diagnostic: Diagnostic

    /// An error about the whole file, at its start.
    init(_ message: String, path: String) {
        diagnostic = Diagnostic(message, at: SourceLocation(origin: .file(path), line: 1, column: 1))
    }

    /// An error at byte `offset` of the file's `bytes`, with that line quoted under it.
    init(_ message: String, path: String, bytes: [UInt8], offset: Int) {
        let place = JSONLocator.lineAndColumn(of: offset, in: bytes)
        diagnostic = Diagnostic(
            message, at: SourceLocation(origin: .file(path), line: place.line, column: place.column), sourceLine: place.text)
    }

    var description: String { diagnostic.description }
}
