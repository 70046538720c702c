/// A request the server read, as its handler sees it.
public struct HTTPServerRequest: Sendable {
    /// The method as sent, case kept: `GET`, `POST`.
    public var method: String
    /// The request target as sent: path and query.
    var path: String
    /// The body, already de-chunked if it came chunked; empty when there is none.
    public var body: [UInt8]
    /// The loop that read it, from 0: lets handlers keep per-loop state without contention.
    public var loopIndex: Int
    /// The `Authorization` field as sent, when the server keeps credentials (`HTTPServer`'s
    /// `credentials`); nil otherwise or when absent.
    public var authorization: String?
    /// The `Cookie` field as sent (several lines joined by `; `), when the server keeps
    /// credentials; nil otherwise or when absent.
    public var cookie: String?
    /// Every header field as sent, in order, when the server keeps credentials; empty otherwise.
    public var headers: [HTTPHeader] = []
    /// The `Host` field (HTTP/2's `:authority`) as sent, when the server keeps it (`HTTPServer`'s
    /// `keepsHost`); nil otherwise or when absent.
    public var host: String?

    init(method: String, path: String, body: [UInt8] = [], loopIndex: Int = 0) {
        self.method = method
        self.path = path
        self.body = body
        self.loopIndex = loopIndex
    }

    /// The path without its query: `/questions` for `/questions?page=2`.
    public var pathWithoutQuery: Substring {
        path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }
}

/// A complete response.
public struct HTTPServerResponse: Sendable, Equatable {
    var status: Int
    var headers: [HTTPHeader]
    var body: [UInt8]
    /// Close the connection after this response (sent as `Connection: close`).
    var close: Bool

    /// A response of `status` with `body`. `headers` must not frame the body: `Server` and
    /// `Content-Length` are added when it is encoded, and `Connection: close` when `close`.
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = [], close: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.close = close
    }

    /// A response of `status` whose `body` is JSON, sent with `Content-Type: application/json`
    /// on a connection that stays open.
    public static func json(_ status: Int, _ body: [UInt8]) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [HTTPHeader(name: "Content-Type", value: "application/json")], body: body)
    }

    /// The bytes on the wire: status line, headers, body.
    fileprivate var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(96 + body.count)
        bytes.append(contentsOf: HTTPStatus.line(status))
        bytes.append(contentsOf: "Server: survey-bot\r\nContent-Length: \(body.count)\r\n".utf8)
        for header in headers {
            bytes.append(contentsOf: "\(header.name): \(header.value)\r\n".utf8)
        }
        if close { bytes.append(contentsOf: "Connection: close\r\n".utf8) }
        bytes.append(contentsOf: [0x0D, 0x0A])
        bytes.append(contentsOf: body)
        return bytes
    }
}

/// A response serialised once, to be sent many times without building it again.
public struct EncodedResponse: Sendable, Equatable {
    let bytes: [UInt8]
    let status: Int
    let close: Bool
    /// The response as given, for HTTP/2, which frames it its own way.
    let message: HTTPServerResponse

    /// Serialises `response` now: status line, `Server`, `Content-Length`, its headers,
    /// `Connection: close` if asked for, and the body.
    public init(_ response: HTTPServerResponse) {
        bytes = response.encoded
        status = response.status
        close = response.close
        message = response
    }
}

/// What the server does with a request: answer, or misbehave on purpose.
public indirect enum HTTPServerAction: Sendable, Equatable {
    /// Answer at once.
    case respond(EncodedResponse)
    /// Do the action after the pause (injected latency); requests pipelined behind it wait.
    case after(Duration, HTTPServerAction)
    /// Write the response one byte per `interval` (a slow body).
    case trickle(EncodedResponse, interval: Duration)
    /// Write these bytes, then close: for answers that are not HTTP. Over HTTP/2, a response
    /// without `:status` on this stream alone.
    case raw([UInt8])
    /// Answer, then close the connection without having said so (no `Connection: close`): a
    /// server that drops every keep-alive connection after one response.
    case respondAndClose(EncodedResponse)
    /// Reset the connection (TCP RST) without answering; over HTTP/2, the stream (RST_STREAM).
    case reset
    /// Never answer; keep the connection open until the client gives up.
    case hang
    /// Close the connection without answering. Over HTTP/2, GOAWAY: this stream and those
    /// after it are left unprocessed (the client sends them again on a new connection), those
    /// before it are answered, then the connection closes.
    case close
}

/// Status lines, prebuilt once per status.
enum HTTPStatus {
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 304: "Not Modified"
        case 202: "Accepted"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        // RFC 9110 §15: the reason phrase is optional; a status this table lacks goes without one.
        default: ""
        }
    }

    private static let common: [Int: [UInt8]] = Dictionary(
        uniqueKeysWithValues: [200, 204, 400, 404, 405, 413, 431, 500, 503].map { ($0, make($0)) })

    static func line(_ status: Int) -> [UInt8] {
        common[status] ?? make(status)
    }

    private static func make(_ status: Int) -> [UInt8] {
        Array("HTTP/1.1 \(status) \(reason(status))\r\n".utf8)
    }
}
