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
/// A response fails as soon as its first bytes cannot begin `HTTP/1.`, and when its status is
/// outside 100–599.
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

    /// In words, why a message failed: what was being read when it broke, or the limit it
    /// passed; nil for a close, whose error kind says it all. Made only on the failure's path.
    func describe(_ failure: Failure) -> String? {
        switch failure {
        case .malformed:
            switch state {
            case .startLine: role == .response ? "not an HTTP/1.x status line" : "not an HTTP/1.x request line"
            case .header: "a malformed header field"
            case .chunkSize, .chunkData, .chunkEnd: "a malformed chunk"
            case .trailer: "a malformed trailer field"
            case .body, .untilClose, .complete: "a malformed message"
            }
        case .headTooLarge: "a head over \(maxHeadBytes) bytes"
        case .bodyTooLarge: "a body over \(maxBodyBytes) bytes"
        case .closed: nil
        }
    }

    /// Where parsing stands after some input: wanting more, done, or broken.
    enum Progress: Equatable {
        case needMore
        /// A whole message was read; `consumed` bytes of the last input belong to it.
        case complete(consumed: Int)
        case failed(Failure)
    }

    enum State: Equatable {
        case startLine, header
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd, trailer, untilClose
        case complete

        // Asked of every line of every response: a pattern, where `==` on an enum with
        // payloads is a call of its synthesized comparison.
        var isComplete: Bool {
            if case .complete = self { true } else { false }
        }

        /// Whether a line read now counts against the head's limit: the start line, a field or
        /// a trailer, not a chunk's size or end.
        var isInHead: Bool {
            switch self {
            case .chunkSize, .chunkEnd: false
            default: true
            }
        }
    }

    let role: Role
    let maxHeadBytes: Int
    let maxBodyBytes: Int
    /// Keep the body bytes in `body` (otherwise they are counted and dropped, but for the first
    /// `TransportResponse.failureBodyLimit` of a response whose status is 400 or more).
    var collectBody = true
    /// The request was HEAD: its response has headers only.
    var isHeadRequest = false
    /// Keep a response's `Set-Cookie` field values in `setCookies` (at most
    /// `maxSetCookies`; the rest are dropped).
    var collectCookies = false
    /// The heads of this loop's responses to replay (`HeadReplay`); nil for none (a server's
    /// parser, a proxy's answer).
    var replay: HeadReplay?
    /// Keep a request's `Authorization` and `Cookie` field values (a server that checks sessions).
    var collectCredentials = false

    // The message read so far, written only by the parser (here and in its extensions).
    var status = 0
    var method: [UInt8] = []
    var target: [UInt8] = []
    var minorVersion = 1
    /// Whether the connection may carry another message after this one.
    var keepAlive = true
    var retryAfter: [UInt8]?
    /// Keep every header field in `headers`.
    var collectHeaders = false
    var headers: [HTTPHeader] = []
    var setCookies: [[UInt8]] = []
    var authorization: [UInt8]?
    var cookie: [UInt8]?
    /// Keep a request's `Host` field in `host`.
    var collectHost = false
    var host: [UInt8]?
    var body: [UInt8] = []
    var bodyBytes = 0
    /// Interim (1xx) responses skipped before the final one.
    var interimResponses = 0

    var state = State.startLine
    var line: [UInt8] = []
    /// The start line, fields and trailers so far, against `maxHeadBytes`.
    var headBytes = 0
    var sawBytes = false
    var contentLength: Int?
    /// A Transfer-Encoding field arrived; `chunked` says whether its final coding is chunked.
    var transferEncoding = false
    var chunked = false
    var connectionKeepAlive: Bool?
    /// Where the check of a field line still waiting for its LF has got to: past the colon, and
    /// whether its last byte was a CR (which only an LF may follow).
    var partialInValue = false
    var partialEndsInCR = false

    init(role: Role, maxHeadBytes: Int = 64 * 1024, maxBodyBytes: Int = 1 << 20) {
        self.role = role
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
    }

    var isComplete: Bool { state.isComplete }

    /// Whether any byte of the current message has arrived.
    var hasStarted: Bool { sawBytes }

    /// Hands the collected body over and keeps none of it: the next message's body starts
    /// small, instead of a connection keeping its largest body's capacity for its whole life.
    mutating func takeBody() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &body)
        return taken
    }

    /// The most `Set-Cookie` fields kept of one response.
    static let maxSetCookies = 64

    /// Hands the `Set-Cookie` values over, keeping none (empty when there were none: no
    /// allocation for a response that sets no cookie).
    mutating func takeSetCookies() -> [[UInt8]] {
        guard !setCookies.isEmpty else { return [] }
        var taken: [[UInt8]] = []
        swap(&taken, &setCookies)
        return taken
    }

    /// Forgets the message, keeping buffers' capacity, to read the next one. What is empty
    /// already is left alone — a client's parser never holds a method, a target or credentials,
    /// and its body was taken — each emptying being a uniqueness check or a release.
    mutating func reset() {
        status = 0
        if !method.isEmpty { method.removeAll(keepingCapacity: true) }
        if !target.isEmpty { target.removeAll(keepingCapacity: true) }
        minorVersion = 1
        keepAlive = true
        if retryAfter != nil { retryAfter = nil }
        if !headers.isEmpty { headers.removeAll() }
        if !setCookies.isEmpty { setCookies = [] }
        if authorization != nil { authorization = nil }
        if cookie != nil { cookie = nil }
        if host != nil { host = nil }
        if !body.isEmpty { body.removeAll(keepingCapacity: true) }
        bodyBytes = 0
        interimResponses = 0
        state = .startLine
        if !line.isEmpty { line.removeAll(keepingCapacity: true) }
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
    mutating func parse(_ input: UnsafeRawBufferPointer) -> Progress {
        guard let base = input.baseAddress, !input.isEmpty else { return state.isComplete ? .complete(consumed: 0) : .needMore }
        let fromStart = atResponseStart
        if !state.isComplete { sawBytes = true }
        var index = 0
        let count = input.count
        if fromStart {
            index = replayHead(base, count)
            if index > 0, state.isComplete { return .complete(consumed: index) }
        }
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
                // A status line, a field line or the head's end that lies whole in the input: in
                // one pass.
                if case .startLine = state, role == .response, line.isEmpty, let whole = Self.wholeStatusLine(base + index, rest) {
                    headBytes += whole.length
                    if headBytes > maxHeadBytes { return .failed(.headTooLarge) }
                    index += whole.length
                    minorVersion = whole.minor
                    status = whole.status
                    state = .header
                    continue
                }
                if case .header = state, line.isEmpty {
                    let start = base + index
                    if let whole = Self.wholeFieldLine(start, rest) {
                        headBytes += whole.length
                        if headBytes > maxHeadBytes { return .failed(.headTooLarge) }
                        index += whole.length
                        let name = UnsafeRawBufferPointer(start: start, count: whole.nameEnd)
                        let value = UnsafeRawBufferPointer(start: start + whole.valueStart, count: whole.valueEnd - whole.valueStart)
                        if let failure = takeField(name: name, value: value) { return .failed(failure) }
                        continue
                    }
                    // The empty line that ends the head: LF, or CR LF.
                    let first = start.load(as: UInt8.self)
                    let crlf = first == 0x0D && rest > 1 && start.load(fromByteOffset: 1, as: UInt8.self) == 0x0A
                    let emptyLine = first == 0x0A ? 1 : crlf ? 2 : 0
                    if emptyLine > 0 {
                        headBytes += emptyLine
                        if headBytes > maxHeadBytes { return .failed(.headTooLarge) }
                        index += emptyLine
                        if let failure = endOfHead() { return .failed(failure) }
                        // All of the head in this read, from its first byte: kept for replay.
                        if fromStart, index == headBytes { keepHead(base, index) }
                        if state.isComplete { return .complete(consumed: index) }
                        continue
                    }
                }
                let inHead = state.isInHead
                guard let found = memchr(base + index, 0x0A, rest) else {
                    // Chunk lines are limited one by one; the head and trailers together.
                    if inHead {
                        headBytes += rest
                        if headBytes > maxHeadBytes { return .failed(.headTooLarge) }
                    } else if line.count + rest > maxHeadBytes {
                        return .failed(.malformed)
                    }
                    let partial = UnsafeRawBufferPointer(start: base + index, count: rest)
                    switch state {
                    case .header, .trailer: if !checkPartialField(partial) { return .failed(.malformed) }
                    case .startLine: if role == .response, !checkPartialStatusLine(partial) { return .failed(.malformed) }
                    default: break
                    }
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
                if state.isComplete { return .complete(consumed: index) }
            }
        }
        return state.isComplete ? .complete(consumed: index) : .needMore
    }

    /// The peer closed the connection: completes a close-delimited body, else says what was cut.
    mutating func finishAtEndOfStream() -> Progress {
        switch state {
        case .complete, .untilClose:
            state = .complete
            return .complete(consumed: 0)
        default:
            return .failed(.closed(partial: sawBytes))
        }
    }

    mutating func takeBody(_ bytes: UnsafeRawBufferPointer) {
        bodyBytes += bytes.count
        if collectBody {
            body.append(contentsOf: bytes)
        } else if TransportResponse.keepsFailureBody(status), body.count < TransportResponse.failureBodyLimit {
            // A failure's first bytes, for the server's reason: never a success's.
            body.append(contentsOf: bytes.prefix(TransportResponse.failureBodyLimit - body.count))
        }
    }

    /// Checks the bytes of a field line that has not ended yet, so that a line that cannot become
    /// a field fails when its bad byte arrives rather than at its end, or never: a name of token
    /// characters, a colon, a value without control characters, and a CR only before the LF.
    /// Each byte is checked once, however the line is split.
    mutating func checkPartialField(_ bytes: UnsafeRawBufferPointer) -> Bool {
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

    /// Checks the bytes of a status line that has not ended yet against the only ways one can
    /// begin — `HTTP/1.`, or a CR ending an empty line — so that bytes which are not HTTP (an SSH
    /// banner, an HTTP/2 frame, a TLS alert) fail when they arrive rather than at a line end that
    /// may never come; a server that sends them and closes sent a malformed answer, not nothing.
    func checkPartialStatusLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var position = line.count
        let emptyLine = (line.first ?? bytes.first) == 0x0D
        for byte in bytes {
            if emptyLine {
                if position > 0 { return false }  // only the LF may follow its CR
            } else if position < Self.httpSlash1Dot.count {
                guard byte == Self.httpSlash1Dot[position] else { return false }
            } else {
                return true  // the rest is checked when the line is whole
            }
            position += 1
        }
        return true
    }

    /// One line without its LF; a trailing CR is dropped.
    mutating func takeLine(_ raw: UnsafeRawBufferPointer) -> Failure? {
        var line = raw
        if let base = raw.baseAddress, raw.count > 0, base.load(fromByteOffset: raw.count - 1, as: UInt8.self) == 0x0D {
            line = UnsafeRawBufferPointer(start: base, count: raw.count - 1)
        }
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

}
