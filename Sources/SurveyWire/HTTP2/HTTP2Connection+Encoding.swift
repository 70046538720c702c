import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// A request's header fields for HTTP/2, encoded straight from the HTTP/1.1 head its template holds.
extension HTTP2Connection {
    /// Encodes a request's header fields for HTTP/2 from the HTTP/1.1 head its template holds,
    /// straight from its bytes: the pseudo-header fields, then every header with its name in
    /// lower case (RFC 9113 §8.2), `Host` made `:authority`; the cookies in one `cookie` field,
    /// and the body's `content-length`. The path, the cookies and the length change from request
    /// to request and stay out of the dynamic table.
    static func encode(_ request: HTTPRequest, scheme: [UInt8], encoder: inout HPACKEncoder, into block: inout [UInt8]) {
        let template = request.template
        let head = template.head
        switch template.method {
        case "GET": encoder.encode(name: methodName, value: getMethod, indexing: .incremental, into: &block)
        case "POST": encoder.encode(name: methodName, value: postMethod, indexing: .incremental, into: &block)
        default: encoder.encode(name: methodName, value: Array(template.method.utf8), indexing: .incremental, into: &block)
        }
        encoder.encode(name: schemeName, value: scheme, indexing: .incremental, into: &block)
        // Past the request line, each line is `Name: value` and ends in CRLF (`HTTPRequest.Template`);
        // `Host` comes first.
        var index = (head.firstIndex(of: 0x0A) ?? head.count - 1) + 1
        var name: [UInt8] = []
        var pathWritten = false
        while index < head.count {
            guard let colon = head[index...].firstIndex(of: 0x3A), let end = head[colon...].firstIndex(of: 0x0D) else { break }
            var valueStart = colon + 1
            while valueStart < end, head[valueStart] == 0x20 { valueStart += 1 }
            name.removeAll(keepingCapacity: true)
            for byte in head[index..<colon] { name.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
            if name == hostName {
                encoder.encode(name: authorityName, value: head[valueStart..<end], indexing: .incremental, into: &block)
                encoder.encode(name: pathName, value: template.path.utf8, indexing: .without, into: &block)
                pathWritten = true
            } else {
                encoder.encode(name: name, value: head[valueStart..<end], indexing: .incremental, into: &block)
            }
            index = end + 2
        }
        if !pathWritten { encoder.encode(name: pathName, value: template.path.utf8, indexing: .without, into: &block) }
        if template.cookie != nil || request.cookies != nil {
            var cookie = template.cookie ?? []
            if let cookies = request.cookies {
                if !cookie.isEmpty { cookie += [0x3B, 0x20] }
                cookie += cookies
            }
            encoder.encode(name: cookieName, value: cookie, indexing: .without, into: &block)
        }
        if let body = request.body {
            var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
            )
            withUnsafeMutableBytes(of: &digits) { buffer in
                var rest = body.count
                var start = buffer.count
                repeat {
                    start -= 1
                    buffer[start] = UInt8(0x30 + rest % 10)
                    rest /= 10
                } while rest > 0
                encoder.encode(
                    name: contentLengthName, value: UnsafeRawBufferPointer(rebasing: buffer[start...]), indexing: .without, into: &block)
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
    static let cookieName = Array("cookie".utf8)
    static let contentLengthName = Array("content-length".utf8)
    static let http1Answer = Array("HTTP/1.".utf8)
    static let retryAfterName = Array("retry-after".utf8)
    static let setCookieName = Array("set-cookie".utf8)
}
