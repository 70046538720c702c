/// HTTP/2's frames (RFC 9113 §4, §6): read from a connection's bytes and written into them.
/// A frame is a 9-byte header — length, type, flags, stream id — and its payload.
enum HTTP2Frame: Sendable, Equatable {
    case data(stream: UInt32, data: [UInt8], endStream: Bool)
    /// A header block fragment; `endHeaders` false means CONTINUATION frames follow.
    case headers(stream: UInt32, fragment: [UInt8], endStream: Bool, endHeaders: Bool)
    case priority(stream: UInt32)
    case resetStream(stream: UInt32, error: HTTP2Error)
    /// SETTINGS: the sender's parameters, or the acknowledgment of the peer's (empty).
    case settings([(HTTP2Setting, UInt32)], ack: Bool)
    case pushPromise(stream: UInt32, promised: UInt32)
    case ping([UInt8], ack: Bool)
    /// The last stream the sender processed or may process, and why it goes away.
    case goAway(lastStream: UInt32, error: HTTP2Error, debug: [UInt8])
    case windowUpdate(stream: UInt32, increment: UInt32)
    case continuation(stream: UInt32, fragment: [UInt8], endHeaders: Bool)
    /// A frame of a type this end does not know: ignored (§4.1, §5.5).
    case unknown(type: UInt8, stream: UInt32)

    static func == (lhs: HTTP2Frame, rhs: HTTP2Frame) -> Bool {
        switch (lhs, rhs) {
        case (.settings(let a, let ackA), .settings(let b, let ackB)):
            ackA == ackB && a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.data(let a, let b, let c), .data(let d, let e, let f)): a == d && b == e && c == f
        case (.headers(let a, let b, let c, let d), .headers(let e, let f, let g, let h)): a == e && b == f && c == g && d == h
        case (.priority(let a), .priority(let b)): a == b
        case (.resetStream(let a, let b), .resetStream(let c, let d)): a == c && b == d
        case (.pushPromise(let a, let b), .pushPromise(let c, let d)): a == c && b == d
        case (.ping(let a, let b), .ping(let c, let d)): a == c && b == d
        case (.goAway(let a, let b, let c), .goAway(let d, let e, let f)): a == d && b == e && c == f
        case (.windowUpdate(let a, let b), .windowUpdate(let c, let d)): a == c && b == d
        case (.continuation(let a, let b, let c), .continuation(let d, let e, let f)): a == d && b == e && c == f
        case (.unknown(let a, let b), .unknown(let c, let d)): a == c && b == d
        default: false
        }
    }

    /// The client's connection preface (§3.4), before its first SETTINGS.
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// The frame header's size.
    static let headerSize = 9
    /// SETTINGS_MAX_FRAME_SIZE's initial value, and the least a peer may set (§6.5.2).
    static let defaultMaxFrameSize = 16_384

    private enum Kind: UInt8 {
        case data = 0
        case headers
        case priority
        case resetStream
        case settings
        case pushPromise
        case ping
        case goAway
        case windowUpdate
        case continuation
    }

    private enum Flag {
        static let endStream: UInt8 = 0x1
        static let ack: UInt8 = 0x1
        static let endHeaders: UInt8 = 0x4
        static let padded: UInt8 = 0x8
        static let priority: UInt8 = 0x20
    }

    /// A frame read from the front of a connection's bytes, and how many bytes it took.
    enum Read: Equatable {
        case frame(HTTP2Frame, length: Int)
        /// Not enough bytes yet for the whole frame.
        case incomplete
    }

    /// Reads the frame at the start of `bytes`, no longer than `maxFrameSize` (this end's
    /// SETTINGS_MAX_FRAME_SIZE). Throws a connection error (§5.4.1) for a frame that breaks the
    /// protocol: its type and the error code to send in GOAWAY.
    static func read(_ bytes: ArraySlice<UInt8>, maxFrameSize: Int = defaultMaxFrameSize) throws(HTTP2Failure) -> Read {
        guard let head = try head(bytes, maxFrameSize: maxFrameSize) else { return .incomplete }
        let start = bytes.startIndex + headerSize
        let frame = try parse(head, payload: bytes[start..<(start + head.length)])
        return .frame(frame, length: headerSize + head.length)
    }

    /// A frame's 9-byte header (§4.1): its payload's length, its type, flags and stream.
    struct Head: Sendable {
        let length: Int
        let type: UInt8
        let flags: UInt8
        let stream: UInt32
    }

    /// The header of the frame at the start of `bytes` once the whole frame is there, nil
    /// before; throws for a frame longer than `maxFrameSize`.
    static func head(_ bytes: ArraySlice<UInt8>, maxFrameSize: Int = defaultMaxFrameSize) throws(HTTP2Failure) -> Head? {
        guard bytes.count >= headerSize else { return nil }
        let start = bytes.startIndex
        let length = Int(bytes[start]) << 16 | Int(bytes[start + 1]) << 8 | Int(bytes[start + 2])
        guard length <= maxFrameSize else {
            throw HTTP2Failure(.frameSizeError, "a frame of \(length) bytes, above the \(maxFrameSize) allowed")
        }
        guard bytes.count >= headerSize + length else { return nil }
        return Head(length: length, type: bytes[start + 3], flags: bytes[start + 4], stream: readUInt32(bytes, at: start + 5) & 0x7FFF_FFFF)
    }

    /// What a DATA or HEADERS frame carries, left where it was read: where its data or fragment
    /// lies in the bytes its payload was cut from (indices of the payload's slice). A response
    /// comes in these two frames, and each would otherwise have its payload copied into an array
    /// of its own, allocated and freed; a range is a plain value, retained by no one.
    enum Carried {
        case data(stream: UInt32, Range<Int>, endStream: Bool)
        case headers(stream: UInt32, fragment: Range<Int>, endStream: Bool, endHeaders: Bool)
    }

    /// The content of a DATA or HEADERS frame, checked as `read` checks it; nil for a frame of
    /// another type.
    static func carried(_ head: Head, payload: ArraySlice<UInt8>) throws(HTTP2Failure) -> Carried? {
        let endStream = head.flags & Flag.endStream != 0
        switch head.type {
        case Kind.data.rawValue:
            try needsStream(.data, head.stream)
            return .data(stream: head.stream, try unpadded(.data, head.flags, payload).indices, endStream: endStream)
        case Kind.headers.rawValue:
            try needsStream(.headers, head.stream)
            var fragment = try unpadded(.headers, head.flags, payload).indices
            if head.flags & Flag.priority != 0 {
                guard fragment.count >= 5 else { throw HTTP2Failure(.frameSizeError, "a HEADERS frame too short for its priority") }
                fragment = (fragment.lowerBound + 5)..<fragment.upperBound
            }
            return .headers(stream: head.stream, fragment: fragment, endStream: endStream, endHeaders: head.flags & Flag.endHeaders != 0)
        default:
            return nil
        }
    }

    private static func readUInt32(_ bytes: ArraySlice<UInt8>, at index: Int) -> UInt32 {
        UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
    }

    private static func needsStream(_ kind: Kind, _ stream: UInt32) throws(HTTP2Failure) {
        if stream == 0 { throw HTTP2Failure(.protocolError, "a \(kind) frame on stream 0") }
    }

    /// The payload without its padding (§6.1).
    private static func unpadded(_ kind: Kind, _ flags: UInt8, _ payload: ArraySlice<UInt8>) throws(HTTP2Failure) -> ArraySlice<UInt8> {
        guard flags & Flag.padded != 0 else { return payload }
        guard let first = payload.first, Int(first) < payload.count else {
            throw HTTP2Failure(.protocolError, "a \(kind) frame's padding is longer than the frame")
        }
        return payload[(payload.startIndex + 1)..<(payload.endIndex - Int(first))]
    }

    /// The frame of `head` and `payload`, its payload copied into arrays of its own.
    static func parse(_ head: Head, payload: ArraySlice<UInt8>) throws(HTTP2Failure) -> HTTP2Frame {
        let (flags, stream) = (head.flags, head.stream)
        guard let kind = Kind(rawValue: head.type) else { return .unknown(type: head.type, stream: stream) }
        func needsStream() throws(HTTP2Failure) {
            try Self.needsStream(kind, stream)
        }
        func onConnection() throws(HTTP2Failure) {
            if stream != 0 { throw HTTP2Failure(.protocolError, "a \(kind) frame on stream \(stream), not the connection") }
        }
        switch kind {
        case .data, .headers:
            switch try carried(head, payload: payload) {
            case .data(let stream, let data, let endStream):
                return .data(stream: stream, data: Array(payload[data]), endStream: endStream)
            case .headers(let stream, let fragment, let endStream, let endHeaders):
                return .headers(stream: stream, fragment: Array(payload[fragment]), endStream: endStream, endHeaders: endHeaders)
            case nil:
                return .unknown(type: head.type, stream: stream)
            }
        case .priority:
            try needsStream()
            guard payload.count == 5 else { throw HTTP2Failure(.frameSizeError, "a PRIORITY frame of \(payload.count) bytes, not 5") }
            return .priority(stream: stream)
        case .resetStream:
            try needsStream()
            guard payload.count == 4 else { throw HTTP2Failure(.frameSizeError, "a RST_STREAM frame of \(payload.count) bytes, not 4") }
            return .resetStream(stream: stream, error: HTTP2Error(readUInt32(payload, at: payload.startIndex)))
        case .settings:
            try onConnection()
            let ack = flags & Flag.ack != 0
            if ack, !payload.isEmpty { throw HTTP2Failure(.frameSizeError, "a SETTINGS acknowledgment with a payload") }
            guard payload.count % 6 == 0 else { throw HTTP2Failure(.frameSizeError, "a SETTINGS frame of \(payload.count) bytes") }
            var settings: [(HTTP2Setting, UInt32)] = []
            var index = payload.startIndex
            while index < payload.endIndex {
                let identifier = UInt16(payload[index]) << 8 | UInt16(payload[index + 1])
                let value = readUInt32(payload, at: index + 2)
                index += 6
                // An unknown setting is ignored (§6.5.2).
                guard let setting = HTTP2Setting(rawValue: identifier) else { continue }
                try setting.check(value)
                settings.append((setting, value))
            }
            return .settings(settings, ack: ack)
        case .pushPromise:
            try needsStream()
            let rest = try unpadded(kind, flags, payload)
            guard rest.count >= 4 else { throw HTTP2Failure(.frameSizeError, "a PUSH_PROMISE frame too short") }
            return .pushPromise(stream: stream, promised: readUInt32(rest, at: rest.startIndex) & 0x7FFF_FFFF)
        case .ping:
            try onConnection()
            guard payload.count == 8 else { throw HTTP2Failure(.frameSizeError, "a PING frame of \(payload.count) bytes, not 8") }
            return .ping(Array(payload), ack: flags & Flag.ack != 0)
        case .goAway:
            try onConnection()
            guard payload.count >= 8 else { throw HTTP2Failure(.frameSizeError, "a GOAWAY frame of \(payload.count) bytes") }
            let last = readUInt32(payload, at: payload.startIndex) & 0x7FFF_FFFF
            return .goAway(
                lastStream: last, error: HTTP2Error(readUInt32(payload, at: payload.startIndex + 4)),
                debug: Array(payload.dropFirst(8).prefix(256)))
        case .windowUpdate:
            guard payload.count == 4 else { throw HTTP2Failure(.frameSizeError, "a WINDOW_UPDATE frame of \(payload.count) bytes") }
            let increment = readUInt32(payload, at: payload.startIndex) & 0x7FFF_FFFF
            // An increment of 0 is a stream error on a stream; on the connection, a connection error.
            if increment == 0, stream == 0 { throw HTTP2Failure(.protocolError, "a WINDOW_UPDATE of 0 on the connection") }
            return .windowUpdate(stream: stream, increment: increment)
        case .continuation:
            try needsStream()
            return .continuation(stream: stream, fragment: Array(payload), endHeaders: flags & Flag.endHeaders != 0)
        }
    }

    /// Appends the frame, header and payload, to `output`.
    func write(into output: inout [UInt8]) {
        func header(_ kind: Kind, _ flags: UInt8, _ stream: UInt32, _ length: Int) {
            Self.appendHeader(kind, flags, stream, length, to: &output)
        }
        switch self {
        case .data(let stream, let data, let end):
            header(.data, end ? Flag.endStream : 0, stream, data.count)
            output.append(contentsOf: data)
        case .headers(let stream, let fragment, let end, let endHeaders):
            header(.headers, (end ? Flag.endStream : 0) | (endHeaders ? Flag.endHeaders : 0), stream, fragment.count)
            output.append(contentsOf: fragment)
        case .priority(let stream):
            header(.priority, 0, stream, 5)
            output.append(contentsOf: [0, 0, 0, 0, 15])
        case .resetStream(let stream, let error):
            header(.resetStream, 0, stream, 4)
            Self.append(error.code, to: &output)
        case .settings(let settings, let ack):
            header(.settings, ack ? Flag.ack : 0, 0, settings.count * 6)
            for (setting, value) in settings {
                output.append(contentsOf: [UInt8(setting.rawValue >> 8), UInt8(setting.rawValue & 0xFF)])
                Self.append(value, to: &output)
            }
        case .pushPromise(let stream, let promised):
            header(.pushPromise, Flag.endHeaders, stream, 4)
            Self.append(promised, to: &output)
        case .ping(let data, let ack):
            header(.ping, ack ? Flag.ack : 0, 0, 8)
            output.append(contentsOf: data.prefix(8))
            if data.count < 8 { output.append(contentsOf: repeatElement(0, count: 8 - data.count)) }
        case .goAway(let last, let error, let debug):
            header(.goAway, 0, 0, 8 + debug.count)
            Self.append(last, to: &output)
            Self.append(error.code, to: &output)
            output.append(contentsOf: debug)
        case .windowUpdate(let stream, let increment):
            header(.windowUpdate, 0, stream, 4)
            Self.append(increment & 0x7FFF_FFFF, to: &output)
        case .continuation(let stream, let fragment, let endHeaders):
            header(.continuation, endHeaders ? Flag.endHeaders : 0, stream, fragment.count)
            output.append(contentsOf: fragment)
        case .unknown:
            break
        }
    }

    private static func append(_ value: UInt32, to output: inout [UInt8]) {
        output.append(UInt8(value >> 24))
        output.append(UInt8(value >> 16 & 0xFF))
        output.append(UInt8(value >> 8 & 0xFF))
        output.append(UInt8(value & 0xFF))
    }

    /// A frame's nine header bytes, appended at once: nine appends would check the array's
    /// capacity and uniqueness nine times.
    private static func appendHeader(_ kind: Kind, _ flags: UInt8, _ stream: UInt32, _ length: Int, to output: inout [UInt8]) {
        let id = stream & 0x7FFF_FFFF
        let header = (
            UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), kind.rawValue, flags, UInt8(id >> 24),
            UInt8(id >> 16 & 0xFF), UInt8(id >> 8 & 0xFF), UInt8(id & 0xFF)
        )
        withUnsafeBytes(of: header) { output.append(contentsOf: $0) }
    }

    /// Appends a header block as HEADERS and, past `maxFrameSize`, CONTINUATION frames, straight
    /// from its bytes (what `.headers` and `.continuation` write, without a frame value each).
    static func writeHeaderBlock(stream: UInt32, _ block: ArraySlice<UInt8>, endStream: Bool, maxFrameSize: Int, into output: inout [UInt8])
    {
        var offset = block.startIndex
        repeat {
            let end = min(block.endIndex, offset + maxFrameSize)
            let last = end == block.endIndex
            if offset == block.startIndex {
                appendHeader(.headers, (endStream ? Flag.endStream : 0) | (last ? Flag.endHeaders : 0), stream, end - offset, to: &output)
            } else {
                appendHeader(.continuation, last ? Flag.endHeaders : 0, stream, end - offset, to: &output)
            }
            output.append(contentsOf: block[offset..<end])
            offset = end
        } while offset < block.endIndex
    }

    /// Appends a DATA frame straight from its bytes.
    static func writeData(stream: UInt32, _ data: ArraySlice<UInt8>, endStream: Bool, into output: inout [UInt8]) {
        appendHeader(.data, endStream ? Flag.endStream : 0, stream, data.count, to: &output)
        output.append(contentsOf: data)
    }
}

/// A SETTINGS parameter (§6.5.2).
enum HTTP2Setting: UInt16, Sendable {
    case headerTableSize = 1
    case enablePush = 2
    case maxConcurrentStreams = 3
    case initialWindowSize = 4
    case maxFrameSize = 5
    case maxHeaderListSize = 6

    /// Throws for a value the parameter cannot have.
    func check(_ value: UInt32) throws(HTTP2Failure) {
        switch self {
        case .enablePush where value > 1: throw HTTP2Failure(.protocolError, "SETTINGS_ENABLE_PUSH of \(value)")
        case .initialWindowSize where value > 0x7FFF_FFFF:
            throw HTTP2Failure(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE of \(value), above 2^31-1")
        case .maxFrameSize where value < 16_384 || value > 16_777_215:
            throw HTTP2Failure(.protocolError, "SETTINGS_MAX_FRAME_SIZE of \(value), outside 16384–16777215")
        default: break
        }
    }
}

/// An HTTP/2 error code (§7), as RST_STREAM and GOAWAY carry it.
struct HTTP2Error: Sendable, Hashable, CustomStringConvertible {
    let code: UInt32

    init(_ code: UInt32) {
        self.code = code
    }

    static let noError = HTTP2Error(0x0)
    static let protocolError = HTTP2Error(0x1)
    static let internalError = HTTP2Error(0x2)
    static let flowControlError = HTTP2Error(0x3)
    static let settingsTimeout = HTTP2Error(0x4)
    static let streamClosed = HTTP2Error(0x5)
    static let frameSizeError = HTTP2Error(0x6)
    static let refusedStream = HTTP2Error(0x7)
    static let cancel = HTTP2Error(0x8)
    static let compressionError = HTTP2Error(0x9)
    static let connectError = HTTP2Error(0xA)
    static let enhanceYourCalm = HTTP2Error(0xB)
    static let inadequateSecurity = HTTP2Error(0xC)
    static let http11Required = HTTP2Error(0xD)

    private static let names = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR",
        "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY",
        "HTTP_1_1_REQUIRED",
    ]

    /// Its name, `REFUSED_STREAM`, or its code for one RFC 9113 does not name.
    var description: String { code < Self.names.count ? Self.names[Int(code)] : "error 0x" + String(code, radix: 16) }
}

/// A connection error (§5.4.1): the frame or state at fault, and the code to send in GOAWAY.
struct HTTP2Failure: Error, Sendable, Equatable, CustomStringConvertible {
    var error: HTTP2Error
    var reason: String

    init(_ error: HTTP2Error, _ reason: String) {
        self.error = error
        self.reason = reason
    }

    var description: String { "\(error): \(reason)" }
}
