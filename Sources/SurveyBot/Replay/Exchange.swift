import Foundation
import SurveyWire

/// One request and what came back, as `replay` compares them: an entry of a recording, or an
/// attempt the replay sent — one shape for both, so that every comparison reads them alike.
///
/// Nothing of it is ever printed whole: header values, cookies and bodies may hold secrets.
/// What the replay says of them goes through `ResponseShape` (member paths, field names, a
/// content type) and `CaptureHint` (a value shown shortened).
struct Exchange: Sendable {
    /// What a server answered.
    struct Response: Sendable {
        var status: Int
        /// The header fields in order, `Set-Cookie` among them.
        var headers: [HTTPHeader]
        /// The body, decoded as text where it was text; nil when it was not recorded (browsers
        /// leave some out) or not kept.
        var body: [UInt8]?
        /// Whether `body` is only the first part of a longer body (`RecordingTransport.bodyLimit`).
        var bodyTruncated = false

        /// The first value of header `name`, in any case.
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name }?.value
        }

        /// The `Content-Type`'s media type, lower case, without parameters: `application/json`.
        var mediaType: String? {
            guard let value = header("content-type") else { return nil }
            let type = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
            let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
            return trimmed.isEmpty ? nil : trimmed
        }
    }

    /// The method, as sent: `POST`.
    var method: String
    /// The origin it went to, `scheme://host:port` as `HTTPTarget` writes it; nil when unknown
    /// (a replayed attempt goes to the replay's own target).
    var origin: String?
    /// The request target: path and query, as sent.
    var target: String
    /// The request's header fields in order, without the engine's `Host` and `Content-Length`.
    var requestHeaders: [HTTPHeader]
    /// The request body; empty for none.
    var requestBody: [UInt8]
    /// What came back, or nil when nothing did.
    var response: Response?
    /// Why nothing came back, as reports name it (`timeout`, `connection_refused`); nil when
    /// a response came, or a recording says nothing of it.
    var failure: String?

    /// The path without the query.
    var path: Substring {
        target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
    }

    /// The header fields of the request that may carry credentials, left out of every search of
    /// the values it sends: whatever they hold is never shown, not even shortened.
    static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
}
