#if canImport(Glibc)
    import Glibc
#endif

/// An incremental HTTP/1.1 parser over bytes: the status line or request line, the headers
/// that frame the message, and the body (Content-Length, chunked, or until the peer closes).
///
/// Feed it bytes as they arrive, in pieces of any size: a message split at any byte parses the
/// same as one that arrives whole. It builds no `String`s on the way; only the few headers
/// that matter are looked at, and the body is kept only when asked for.
///
/// The framing follows RFC 9112 §6.3: no body for HEAD, 1xx, 204 and 304; then Transfer-Encoding,
/// whose final coding decides (`chunked`, or for a response the body runs until the close), over
/// Content-Length; otherwise a response runs until the close. Lines may end in LF alone, empty
/// lines before a start line are skipped (§2.2); a bare CR or another control character in a
/// start line or field fails (RFC 9110 §5.5), as does a field line that starts with whitespace.
struct HTTPMessageParser {
    /// Whether the parser reads responses (a client) or requests (a server).
    enum Role { case request, response }

    enum Failure: Error, Equatable {
        /// The bytes are not HTTP/1.x.
        case malformed
        /// The start line and headers exceed `maxHeadBytes`.
        case headTooLarge
        /// The body exceeds `maxBodyBytes`.
        case bodyTooLarge
        /// The peer closed before a complete message; `partial` when some of it had arrived.
        case closed(partial: Bool)
    }

    enum Step: Equatable {
        case needMore
        /// A whole message was read; `consumed` bytes of the last input belong to it.
        case complete(consumed: Int)
        case failed(Failure)
    }

    private enum State: Equatable {
        case startLine, header
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd, trailer, untilClose
        case complete
    }

    let role: Role
    let maxHeadBytes: Int
    let maxBodyBytes: Int
    /// Keep the body bytes in `body` (otherwise they are counted and dropped).
    var collectBody = true
    /// The request was HEAD: its response has headers only.
    var isHeadRequest = false

    // The message read so far.
    private(set) var status = 0
    private(set) var method: [UInt8] = []
    private(set) var target: [UInt8] = []
    private(set) var minorVersion = 1
    /// Whether the connection may carry another message after this one.
    private(set) var keepAlive = true
    private(set) var retryAfter: [UInt8]?
    private(set) var body: [UInt8] = []
    private(set) var bodyBytes = 0
    /// Interim (1xx) responses skipped before the final one.
    private(set) var interimResponses = 0

    private var state = State.startLine
    private var line: [UInt8] = []
    /// The start line, fields and trailers so far, against `maxHeadBytes`.
    private var headBytes = 0
    private var sawBytes = false
    private var contentLength: Int?
    /// A Transfer-Encoding field arrived; `chunked` says whether its final coding is chunked.
    private var transferEncoding = false
    private var chunked = false
    private var connectionKeepAlive: Bool?
    /// Where the check of a field line still waiting for its LF has got to: past the colon, and
    /// whether its last byte was a CR (which only an LF may follow).
    private var partialInValue = false
    private var partialEndsInCR = false

    init(role: Role, maxHeadBytes: Int = 64 * 1024, maxBodyBytes: Int = 1 << 20) {
        self.role = role
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
    }

    var isComplete: Bool { state == .complete }

    /// Whether any byte of the current message has arrived.
    var hasStarted: Bool { sawBytes }

    /// Hands the collected body over and keeps none of it: the next message's body starts
    /// small, instead of a connection keeping its largest body's capacity for its whole life.
    mutating func takeBody() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &body)
        return taken
    }

    /// Forgets the message, keeping buffers' capacity, to read the next one.
    mutating func reset() {
        status = 0
        method.removeAll(keepingCapacity: true)
        target.removeAll(keepingCapacity: true)
        minorVersion = 1
        keepAlive = true
        retryAfter = nil
        body.removeAll(keepingCapacity: true)
        bodyBytes = 0
        interimResponses = 0
        state = .startLine
        line.removeAll(keepingCapacity: true)
        headBytes = 0
        sawBytes = false
        contentLength = nil
        transferEncoding = false
        chunked = false
        connectionKeepAlive = nil
        partialInValue = false
        partialEndsInCR = false
        isHeadRequest = false
    }

    /// Whether `bytes` are only CRs and LFs: what a server may send between responses and the
    /// next parse skips (RFC 9112 §2.2), so they need not stop a connection's reuse.
    static func isOnlyEmptyLines(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes where byte != 0x0D && byte != 0x0A { return false }
        return true
    }

    /// Reads `input`; stops at the end of the message, so bytes after `consumed` are not its.
    mutating func parse(_ input: UnsafeRawBufferPointer) -> Step {
        guard let base = input.baseAddress, !input.isEmpty else { return state == .complete ? .complete(consumed: 0) : .needMore }
        if state != .complete { sawBytes = true }
        var index = 0
        let count = input.count
        while index < count {
            switch state {
            case .complete:
                return .complete(consumed: index)
            case .body(let remaining):
                let take = min(remaining, count - index)
                takeBody(UnsafeRawBufferPointer(start: base + index, count: take))
                index += take
                if take == remaining {
                    state = .complete
                    return .complete(consumed: index)
                }
                state = .body(remaining: remaining - take)
            case .chunkData(let remaining):
                let take = min(remaining, count - index)
                takeBody(UnsafeRawBufferPointer(start: base + index, count: take))
                index += take
                state = take == remaining ? .chunkEnd : .chunkData(remaining: remaining - take)
            case .untilClose:
                let take = count - index
                if take > maxBodyBytes - bodyBytes { return .failed(.bodyTooLarge) }
                takeBody(UnsafeRawBufferPointer(start: base + index, count: take))
                index = count
            case .startLine, .header, .chunkSize, .chunkEnd, .trailer:
                let rest = count - index
                let inHead = state != .chunkSize && state != .chunkEnd
                guard let found = memchr(base + index, 0x0A, rest) else {
                    // Chunk lines are limited one by one; the head and trailers together.
                    if inHead {
                        headBytes += rest
                        if headBytes > maxHeadBytes { return .failed(.headTooLarge) }
                    } else if line.count + rest > maxHeadBytes {
                        return .failed(.malformed)
                    }
                    let partial = UnsafeRawBufferPointer(start: base + index, count: rest)
                    if state == .header || state == .trailer, !checkPartialField(partial) { return .failed(.malformed) }
                    line.append(contentsOf: partial)
                    return .needMore
                }
                let end = base.distance(to: UnsafeRawPointer(found))
                if inHead {
                    headBytes += end - index + 1
                    if headBytes > maxHeadBytes { return .failed(.headTooLarge) }
                }
                partialInValue = false
                partialEndsInCR = false
                let outcome: Failure?
                if line.isEmpty {
                    outcome = takeLine(UnsafeRawBufferPointer(start: base + index, count: end - index))
                } else {
                    var carried: [UInt8] = []
                    swap(&carried, &line)
                    carried.append(contentsOf: UnsafeRawBufferPointer(start: base + index, count: end - index))
                    outcome = carried.withUnsafeBytes { takeLine($0) }
                    carried.removeAll(keepingCapacity: true)
                    swap(&carried, &line)
                }
                index = end + 1
                if let outcome { return .failed(outcome) }
                if state == .complete { return .complete(consumed: index) }
            }
        }
        return state == .complete ? .complete(consumed: index) : .needMore
    }

    /// The peer closed the connection: completes a close-delimited body, else says what was cut.
    mutating func finishAtEndOfStream() -> Step {
        switch state {
        case .complete, .untilClose:
            state = .complete
            return .complete(consumed: 0)
        default:
            return .failed(.closed(partial: sawBytes))
        }
    }

    private mutating func takeBody(_ bytes: UnsafeRawBufferPointer) {
        bodyBytes += bytes.count
        if collectBody { body.append(contentsOf: bytes) }
    }

    /// Checks the bytes of a field line that has not ended yet, so that a line that cannot become
    /// a field fails when its bad byte arrives rather than at its end, or never: a name of token
    /// characters, a colon, a value without control characters, and a CR only before the LF.
    /// Each byte is checked once, however the line is split.
    private mutating func checkPartialField(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var position = line.count
        for byte in bytes {
            if partialEndsInCR { return false }
            if byte == 0x0D {
                partialEndsInCR = true
            } else if partialInValue {
                guard Self.isFieldValueByte(byte) else { return false }
            } else if byte == 0x3A {
                guard position > 0 else { return false }
                partialInValue = true
            } else {
                guard Self.isTokenByte(byte) else { return false }
            }
            position += 1
        }
        return true
    }

    /// One line without its LF; a trailing CR is dropped.
    private mutating func takeLine(_ raw: UnsafeRawBufferPointer) -> Failure? {
        var line = raw
        if let last = line.last, last == 0x0D { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
        switch state {
        case .startLine:
            if line.isEmpty { return nil }  // empty lines before a start line are skipped (RFC 9112 §2.2)
            return role == .response ? takeStatusLine(line) : takeRequestLine(line)
        case .header:
            return line.isEmpty ? endOfHead() : takeHeader(line)
        case .chunkSize:
            return takeChunkSize(line)
        case .chunkEnd:
            guard line.isEmpty else { return .malformed }
            state = .chunkSize
            return nil
        case .trailer:
            if line.isEmpty {
                state = .complete
                return nil
            }
            return Self.field(line) == nil ? .malformed : nil
        default:
            return nil
        }
    }

    private mutating func takeStatusLine(_ line: UnsafeRawBufferPointer) -> Failure? {
        // HTTP/1.x SP DIGIT DIGIT DIGIT [SP reason]
        guard line.count >= 12, line.starts(with: Self.httpSlash1Dot) else { return .malformed }
        guard let minor = Self.digit(line[7]), minor <= 1, line[8] == 0x20 else { return .malformed }
        guard let a = Self.digit(line[9]), let b = Self.digit(line[10]), let c = Self.digit(line[11]), a >= 1 else { return .malformed }
        guard line.count == 12 || line[12] == 0x20 else { return .malformed }
        let reason = UnsafeRawBufferPointer(rebasing: line[12...])
        for byte in reason where !Self.isFieldValueByte(byte) { return .malformed }
        minorVersion = minor
        status = a * 100 + b * 10 + c
        state = .header
        return nil
    }

    private mutating func takeRequestLine(_ line: UnsafeRawBufferPointer) -> Failure? {
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

    private mutating func takeHeader(_ line: UnsafeRawBufferPointer) -> Failure? {
        guard let (name, value) = Self.field(line) else { return .malformed }
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
            if Self.list(value, contains: "close") {
                connectionKeepAlive = false
            } else if Self.list(value, contains: "keep-alive"), connectionKeepAlive == nil {
                connectionKeepAlive = true
            }
        case 16 where role == .response && Self.equalsIgnoringCase(name, "proxy-connection"):
            // Not standard, but sent by proxies that mean it: only its `close` is taken.
            if Self.list(value, contains: "close") { connectionKeepAlive = false }
        case 11 where Self.equalsIgnoringCase(name, "retry-after"):
            retryAfter = Array(value)
        default:
            break
        }
        return nil
    }

    private mutating func endOfHead() -> Failure? {
        keepAlive = connectionKeepAlive ?? (minorVersion == 1)
        if role == .response {
            if status < 200 {
                guard status != 101 else { return .malformed }  // no upgrades here
                let interim = interimResponses + 1
                let head = isHeadRequest
                let collect = collectBody
                reset()
                interimResponses = interim
                isHeadRequest = head
                collectBody = collect
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
    private mutating func takeChunkSize(_ line: UnsafeRawBufferPointer) -> Failure? {
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

    /// `*( BWS ";" BWS token [ BWS "=" BWS ( token / quoted-string ) ] )`: whitespace only
    /// around `;` and `=`, never at the end.
    private static func isChunkExtensions(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < bytes.count {
            skipWhitespace(bytes, &index)
            guard index < bytes.count, bytes[index] == 0x3B else { return false }
            index += 1
            skipWhitespace(bytes, &index)
            guard skipToken(bytes, &index) else { return false }
            let afterName = index
            skipWhitespace(bytes, &index)
            guard index < bytes.count, bytes[index] == 0x3D else {
                index = afterName  // whitespace here must lead to another `;`
                continue
            }
            index += 1
            skipWhitespace(bytes, &index)
            guard index < bytes.count else { return false }
            if bytes[index] == 0x22 {
                guard skipQuotedString(bytes, &index) else { return false }
            } else {
                guard skipToken(bytes, &index) else { return false }
            }
        }
        return true
    }

    private static func skipWhitespace(_ bytes: UnsafeRawBufferPointer, _ index: inout Int) {
        while index < bytes.count && (bytes[index] == 0x20 || bytes[index] == 0x09) { index += 1 }
    }

    /// Skips a token; false when there is none.
    private static func skipToken(_ bytes: UnsafeRawBufferPointer, _ index: inout Int) -> Bool {
        let start = index
        while index < bytes.count && isTokenByte(bytes[index]) { index += 1 }
        return index > start
    }

    /// Skips the quoted-string opening at `index`: qdtext, or a backslash and the byte it
    /// escapes, up to the closing quote; false when it does not close.
    private static func skipQuotedString(_ bytes: UnsafeRawBufferPointer, _ index: inout Int) -> Bool {
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == 0x22 { return true }
            if byte == 0x5C {
                guard index < bytes.count, isFieldValueByte(bytes[index]) else { return false }
                index += 1
            } else if !isFieldValueByte(byte) {
                return false
            }
        }
        return false
    }

    // MARK: Byte helpers

    private static let httpSlash1Dot: [UInt8] = Array("HTTP/1.".utf8)

    @inline(__always)
    private static func digit(_ byte: UInt8) -> Int? {
        byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil
    }

    /// A field line split at its first colon, the value without the whitespace around it; nil
    /// when it is not `token ":" field-value` (RFC 9110 §5.1, §5.5).
    private static func field(_ line: UnsafeRawBufferPointer) -> (name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        guard let colon = line.firstIndex(of: 0x3A), colon > 0 else { return nil }
        let name = UnsafeRawBufferPointer(rebasing: line[..<colon])
        for byte in name where !isTokenByte(byte) { return nil }
        var start = colon + 1
        var end = line.count
        while start < end && (line[start] == 0x20 || line[start] == 0x09) { start += 1 }
        while end > start && (line[end - 1] == 0x20 || line[end - 1] == 0x09) { end -= 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[start..<end])
        for byte in value where !isFieldValueByte(byte) { return nil }
        return (name, value)
    }

    /// Field-value bytes (RFC 9110 §5.5): HTAB, SP, VCHAR and obs-text; no other control
    /// character, so neither a bare CR nor a NUL.
    @inline(__always)
    private static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 ? byte != 0x7F : byte == 0x09
    }

    /// RFC 9110 token characters.
    @inline(__always)
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }

    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        return bytes[start..<end]
    }

    /// The last non-empty element of a comma-separated list, trimmed; nil when there is none.
    private static func lastElement(of list: UnsafeRawBufferPointer) -> Slice<UnsafeRawBufferPointer>? {
        var end = list.count
        while true {
            var start = end
            while start > 0 && list[start - 1] != 0x2C { start -= 1 }
            let element = trimmed(list[start..<end])
            if !element.isEmpty { return element }
            guard start > 0 else { return nil }
            end = start - 1
        }
    }

    /// Whether a comma-separated list holds `token`, in any case.
    private static func list(_ list: UnsafeRawBufferPointer, contains token: StaticString) -> Bool {
        var start = 0
        while start <= list.count {
            var end = start
            while end < list.count && list[end] != 0x2C { end += 1 }
            if equalsIgnoringCase(trimmed(list[start..<end]), token) { return true }
            start = end + 1
        }
        return false
    }

    /// ASCII case-insensitive comparison with a lowercase literal.
    private static func equalsIgnoringCase(_ bytes: some Collection<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        var index = 0
        let literal = lowercase.utf8Start
        for byte in bytes {
            let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            guard folded == literal[index] else { return false }
            index += 1
        }
        return true
    }
}
