import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// A request's header fields for HTTP/2, from the field list its template prepared once.
extension HTTP2Connection {
    /// The header blocks of the templates a connection sent last, each with the state of the
    /// encoder's dynamic table it was encoded against (`HPACK.DynamicTable.changes`). While the
    /// table stays as it was, the same template's fields encode to the same bytes, so they are
    /// copied rather than encoded again: a path Huffman-coded, every field looked up in both
    /// tables. A block is kept only when encoding it changed nothing in the table — every field
    /// already indexed, or sent without indexing —, so that sending it again changes nothing
    /// either. Each entry holds its template, whose identity it is looked up by.
    struct EncodedHeads {
        private struct Entry {
            let template: HTTPRequest.Template
            let changes: Int
            let block: [UInt8]
        }

        private var entries: [Entry] = []
        private var next = 0
        /// The most templates kept: a journey's few calls, not a respondent's own heads.
        static let capacity = 4

        /// The block of `template` encoded against the table at `changes`, if kept.
        func block(for template: HTTPRequest.Template, changes: Int) -> [UInt8]? {
            for entry in entries where entry.template === template {
                return entry.changes == changes ? entry.block : nil
            }
            return nil
        }

        /// Keeps `block`, `template`'s fields encoded against the table at `changes`, in
        /// place of its older block, or of the oldest entry.
        mutating func keep(_ block: [UInt8], for template: HTTPRequest.Template, changes: Int) {
            let entry = Entry(template: template, changes: changes, block: block)
            if let index = entries.firstIndex(where: { $0.template === template }) {
                entries[index] = entry
            } else if entries.count < Self.capacity {
                entries.append(entry)
            } else {
                entries[next] = entry
                next = (next + 1) % Self.capacity
            }
        }
    }

    /// Encodes a request's header fields for HTTP/2: the pseudo-header fields, then the
    /// template's fields (`HTTPRequest.Template.fieldNames`, in lower case, RFC 9113 §8.2), each
    /// value read in place from its line of the head, `host` made `:authority`; the cookies in one
    /// `cookie` field, and the body's `content-length`. The path, the cookies and the length
    /// change from request to request and stay out of the dynamic table. The template's part
    /// comes from `heads` when the table is as it was when that was encoded.
    static func encode(
        _ request: HTTPRequest, scheme: [UInt8], encoder: inout HPACKEncoder, heads: inout EncodedHeads, into block: inout [UInt8]
    ) {
        let template = request.template
        let changes = encoder.table.changes
        if let kept = heads.block(for: template, changes: changes) {
            block.append(contentsOf: kept)
        } else {
            let start = block.count
            encodeFields(of: template, scheme: scheme, encoder: &encoder, into: &block)
            if encoder.table.changes == changes { heads.keep(Array(block[start...]), for: template, changes: changes) }
        }
        if template.cookie != nil || request.cookies != nil {
            var cookie = template.cookie ?? []
            if let cookies = request.cookies {
                if !cookie.isEmpty { cookie += [0x3B, 0x20] }
                cookie += cookies
            }
            encoder.encode(staticName: cookieIndex, value: cookie, into: &block)
        }
        if let body = request.body {
            DecimalDigits.with(body.count) { digits in
                encoder.encode(staticName: contentLengthIndex, value: digits, into: &block)
            }
        }
    }

    /// The template's fields: the pseudo-header fields, then its head's.
    private static func encodeFields(
        of template: HTTPRequest.Template, scheme: [UInt8], encoder: inout HPACKEncoder, into block: inout [UInt8]
    ) {
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
    }

    static let methodName = Array(":method".utf8)
    static let getMethod = Array("GET".utf8)
    static let postMethod = Array("POST".utf8)
    static let schemeName = Array(":scheme".utf8)
    static let authorityName = Array(":authority".utf8)
    static let pathName = Array(":path".utf8)
    static let hostName = Array("host".utf8)
    static let requestLineEnd = Array(" HTTP/1.1\r\n".utf8)
    /// `cookie` and `content-length` in HPACK's static table (RFC 7541, Appendix A).
    static let cookieIndex = 32
    static let contentLengthIndex = 28
    static let http1Answer = Array("HTTP/1.".utf8)
    static let retryAfterName = Array("retry-after".utf8)
    static let setCookieName = Array("set-cookie".utf8)
}
