/// The head of a message: its start line, its fields, and what they say about the body; and the
/// size line of each chunk.
extension HTTPMessageParser {
    mutating func takeStatusLine(_ line: UnsafeRawBufferPointer) -> Failure? {
        // HTTP/1.x SP DIGIT DIGIT DIGIT [SP reason], the status from 100 to 599 (RFC 9110 §15):
        // any other is not a response this client can classify.
        guard line.count >= 12, line.starts(with: Self.httpSlash1Dot) else { return .malformed }
        guard let minor = Self.digit(line[7]), minor <= 1, line[8] == 0x20 else { return .malformed }
        guard let a = Self.digit(line[9]), let b = Self.digit(line[10]), let c = Self.digit(line[11]), (1...5).contains(a) else {
            return .malformed
        }
        guard line.count == 12 || line[12] == 0x20 else { return .malformed }
        let reason = UnsafeRawBufferPointer(rebasing: line[12...])
        for byte in reason where !Self.isFieldValueByte(byte) { return .malformed }
        minorVersion = minor
        status = a * 100 + b * 10 + c
        state = .header
        return nil
    }

    mutating func takeRequestLine(_ line: UnsafeRawBufferPointer) -> Failure? {
        // METHOD SP target SP HTTP/1.x
        guard let firstSpace = line.firstIndex(of: 0x20), firstSpace > 0 else { return .malformed }
        guard let lastSpace = line.lastIndex(of: 0x20), lastSpace > firstSpace + 1 else { return .malformed }
        let version = UnsafeRawBufferPointer(rebasing: line[(lastSpace + 1)...])
        guard version.count == 8, version.starts(with: Self.httpSlash1Dot), let minor = Self.digit(version[7]), minor <= 1 else {
            return .malformed
        }
        for byte in line[..<firstSpace] where !Self.isTokenByte(byte) { return .malformed }
        method.append(contentsOf: line[..<firstSpace])
        target.append(contentsOf: line[(firstSpace + 1)..<lastSpace])
        minorVersion = minor
        state = .header
        return nil
    }

    mutating func takeHeader(_ line: UnsafeRawBufferPointer) -> Failure? {
        guard let (name, value) = Self.field(line) else { return .malformed }
        return takeField(name: name, value: value)
    }

    /// Takes a field line already checked (`field`, or `wholeFieldLine`'s single pass): what
    /// its name says of the message, and the field itself when fields are kept.
    @inline(__always)
    mutating func takeField(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Failure? {
        // A server that keeps credentials keeps every field of its requests.
        if collectHeaders || collectCredentials && role == .request {
            headers.append(HTTPHeader(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
        }
        switch name.count {
        case 14 where Self.equalsIgnoringCase(name, "content-length"):
            // Any number of digits: a length too large to count is too large to read (RFC 9110 §8.6).
            guard !value.isEmpty else { return .malformed }
            var length = 0
            for byte in value {
                guard let digit = Self.digit(byte) else { return .malformed }
                length = length > (Int.max - 9) / 10 ? Int.max : length * 10 + digit
            }
            if let contentLength, contentLength != length { return .malformed }
            contentLength = length
        case 17 where Self.equalsIgnoringCase(name, "transfer-encoding"):
            // Field lines of one name are one list (RFC 9110 §5.3): the last coding of the last
            // line is the final one, and decides the framing when the head ends.
            transferEncoding = true
            if let last = Self.lastElement(of: value) { chunked = Self.equalsIgnoringCase(last, "chunked") }
        case 10 where Self.equalsIgnoringCase(name, "connection"):
            // What nearly every server sends, matched whole before the list is read.
            if Self.equalsIgnoringCase(value, "keep-alive") {
                if connectionKeepAlive == nil { connectionKeepAlive = true }
            } else if Self.list(value, contains: "close") {
                connectionKeepAlive = false
            } else if Self.list(value, contains: "keep-alive"), connectionKeepAlive == nil {
                connectionKeepAlive = true
            }
        case 16 where role == .response && Self.equalsIgnoringCase(name, "proxy-connection"):
            // Not standard, but sent by proxies that mean it: only its `close` is taken.
            if Self.list(value, contains: "close") { connectionKeepAlive = false }
        case 11 where Self.equalsIgnoringCase(name, "retry-after"):
            retryAfter = Array(value)
        case 10 where collectCookies && role == .response && Self.equalsIgnoringCase(name, "set-cookie"):
            if setCookies.count < Self.maxSetCookies { setCookies.append(Array(value)) }
        case 4 where collectHost && role == .request && Self.equalsIgnoringCase(name, "host"):
            host = Array(value)
        case 13 where collectCredentials && role == .request && Self.equalsIgnoringCase(name, "authorization"):
            authorization = Array(value)
        case 6 where collectCredentials && role == .request && Self.equalsIgnoringCase(name, "cookie"):
            // Several Cookie lines are one list (RFC 6265 §5.4 allows one; some clients send more).
            if var joined = cookie {
                joined.append(contentsOf: [0x3B, 0x20])
                joined.append(contentsOf: value)
                cookie = joined
            } else {
                cookie = Array(value)
            }
        default:
            break
        }
        return nil
    }

    mutating func endOfHead() -> Failure? {
        keepAlive = connectionKeepAlive ?? (minorVersion == 1)
        if role == .response {
            if status < 200 {
                guard status != 101 else { return .malformed }  // no upgrades here
                let interim = interimResponses + 1
                let head = isHeadRequest
                let collect = collectBody
                let collectFields = collectHeaders
                reset()
                interimResponses = interim
                isHeadRequest = head
                collectBody = collect
                collectHeaders = collectFields
                sawBytes = true
                return nil
            }
            // Framing that both Transfer-Encoding and Content-Length claim, or Transfer-Encoding in
            // HTTP/1.0, may be an attempt at response splitting: read it, but not what follows
            // (RFC 9112 §6.1, §6.3).
            if transferEncoding && (contentLength != nil || minorVersion == 0) { keepAlive = false }
            if isHeadRequest || status == 204 || status == 304 {
                state = .complete
                return nil
            }
        }
        if transferEncoding {
            // The final coding is chunked, or the body runs until the close; a request has no
            // close to run to (RFC 9112 §6.3).
            if chunked {
                state = .chunkSize
            } else if role == .request {
                return .malformed
            } else {
                keepAlive = false
                state = .untilClose
            }
        } else if let contentLength {
            guard contentLength <= maxBodyBytes else { return .bodyTooLarge }
            state = contentLength == 0 ? .complete : .body(remaining: contentLength)
        } else if role == .response {
            keepAlive = false
            state = .untilClose
        } else {
            state = .complete
        }
        return nil
    }

    /// `chunk-size [ chunk-ext ]` (RFC 9112 §7.1): hex digits, then only extensions.
    mutating func takeChunkSize(_ line: UnsafeRawBufferPointer) -> Failure? {
        var size = 0
        var digits = 0
        loop: for byte in line {
            let value: Int
            switch byte {
            case 0x30...0x39: value = Int(byte - 0x30)
            case 0x41...0x46: value = Int(byte - 0x41 + 10)
            case 0x61...0x66: value = Int(byte - 0x61 + 10)
            default: break loop
            }
            digits += 1
            size = size > Int.max >> 4 ? Int.max : size << 4 | value  // too large to count is too large
        }
        guard digits > 0, Self.isChunkExtensions(UnsafeRawBufferPointer(rebasing: line[digits...])) else { return .malformed }
        if size == 0 {
            state = .trailer
            return nil
        }
        guard size <= maxBodyBytes - bodyBytes else { return .bodyTooLarge }
        state = .chunkData(remaining: size)
        return nil
    }
}
