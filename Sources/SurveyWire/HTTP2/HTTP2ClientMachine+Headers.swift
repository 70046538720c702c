/// A client's machine reading a response's header block: its status, its fields, its trailers, and the checks RFC 9113 §8 asks of them.
extension HTTP2ClientMachine {
    /// A whole header block: the response's status and fields, or its trailers.
    mutating func headerBlock(_ stream: UInt32, _ block: [UInt8], endStream: Bool, events: inout [Event]) throws(HTTP2Failure) {
        // Decoded whatever the stream: the table must see every block (§4.3).
        let keep = streams[stream]?.keepHeaders ?? false
        var status: Int?
        var statusValid = true
        var fields: [HPACK.Field] = []
        do throws(HPACK.DecodingError) {
            try decoder.decode(block, wanting: { keep || $0 == Self.statusName || $0 == Self.retryAfterName }) { field in
                if field.name.elementsEqual(Self.statusName) {
                    if status == nil, let value = Self.number(field.value), (100...999).contains(value) {
                        status = value
                    } else {
                        statusValid = false
                    }
                } else if keep || field.name.elementsEqual(Self.retryAfterName) {
                    fields.append(field)
                }
            }
        } catch {
            throw HTTP2Failure(.compressionError, error.description)
        }
        guard var state = streams[stream] else { return }
        if state.status == nil {
            guard let status, statusValid else {
                streams[stream] = nil
                events.append(.reset(stream: stream, error: .protocolError))
                return
            }
            // An interim response (1xx) is skipped; the final one follows.
            if status >= 200 {
                state.status = status
                state.headers = fields
            }
        } else {
            state.headers += fields
        }
        if endStream, let status = state.status {
            streams[stream] = nil
            controlFrames = 0
            events.append(
                .response(stream: stream, Response(status: status, headers: state.headers, body: state.body, bodyBytes: state.bodyBytes)))
            return
        }
        streams[stream] = state
    }

    static let statusName = Array(":status".utf8)
    static let retryAfterName = Array("retry-after".utf8)

    /// The decimal number `bytes` spell, digits only.
    static func number(_ bytes: [UInt8]) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 9 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}
