import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// A request's header fields for HTTP/2, from the field list its template prepared once.
extension HTTP2Connection {
    /// Encodes a request's header fields for HTTP/2: the pseudo-header fields, then the
    /// template's fields (`HTTPRequest.Template.fieldNames`, in lower case, RFC 9113 §8.2), each
    /// value read in place from its line of the head, `host` made `:authority`; the cookies in one
    /// `cookie` field, and the body's `content-length`. The path, the cookies and the length
    /// change from request to request and stay out of the dynamic table.
    static func encode(_ request: HTTPRequest, scheme: [UInt8], encoder: inout HPACKEncoder, into block: inout [UInt8]) {
        let template = request.template
        let head = template.head
        switch template.method {
        case "GET": encoder.encode(name: methodName, value: getMethod, indexing: .incremental, into: &block)
        case "POST": encoder.encode(name: methodName, value: postMethod, indexing: .incremental, into: &block)
        default: encoder.encode(name: methodName, value: Array(template.method.utf8), indexing: .incremental, into: &block)
        }
        encoder.encode(name: schemeName, value: scheme, indexing: .incremental, into: &block)
        // Past the request line (`METHOD path HTTP/1.1` and CRLF), each line is `Name: value`
        // and CRLF, named in order by `fieldNames`; no value holds a CR (`HTTPSyntax`).
        var index = template.method.utf8.count + 1 + template.path.utf8.count + requestLineEnd.count
        for name in template.fieldNames {
            let valueStart = index + name.count + 2
            var valueEnd = valueStart
            while valueEnd < head.count, head[valueEnd] != 0x0D { valueEnd += 1 }
            if name == hostName {
                encoder.encode(name: authorityName, value: head[valueStart..<valueEnd], indexing: .incremental, into: &block)
                encoder.encode(name: pathName, value: template.path.utf8, indexing: .without, into: &block)
            } else {
                encoder.encode(name: name, value: head[valueStart..<valueEnd], indexing: .incremental, into: &block)
            }
            index = valueEnd + 2
        }
        if template.cookie != nil || request.cookies != nil {
            var cookie = template.cookie ?? []
            if let cookies = request.cookies {
                if !cookie.isEmpty { cookie += [0x3B, 0x20] }
                cookie += cookies
            }
            encoder.encode(name: cookieName, value: cookie, indexing: .without, into: &block)
        }
        if let body = request.body {
            DecimalDigits.with(body.count) { digits in
                encoder.encode(name: contentLengthName, value: digits, indexing: .without, into: &block)
            }
        }
    }

    static let methodName = Array(":method".utf8)
    static let getMethod = Array("GET".utf8)
    static let postMethod = Array("POST".utf8)
    static let schemeName = Array(":scheme".utf8)
    static let authorityName = Array(":authority".utf8)
    static let pathName = Array(":path".utf8)
    static let hostName = Array("host".utf8)
    static let requestLineEnd = Array(" HTTP/1.1\r\n".utf8)
    static let cookieName = Array("cookie".utf8)
    static let contentLengthName = Array("content-length".utf8)
    static let http1Answer = Array("HTTP/1.".utf8)
    static let retryAfterName = Array("retry-after".utf8)
    static let setCookieName = Array("set-cookie".utf8)
}
