/// A client's machine reading a response: its header block (status, fields, trailers, and the
/// checks RFC 9113 §8 asks of them) and its body, whole or counted, up to `maxBodyBytes`.
extension HTTP2ClientMachine {
    /// A whole header block: the response's status and fields, or its trailers.
    mutating func headerBlock(_ stream: UInt32, _ block: [UInt8], endStream: Bool, events: inout [Event]) throws(HTTP2Failure) {
        // Decoded whatever the stream: the table must see every block (§4.3).
        let keep = connection.streams[stream]?.keepHeaders ?? false
        var status: Int?
        var statusValid = true
        // RFC 9113 §8.2.1: a value holding NUL, CR or LF makes the response malformed. Kept, it
        // would end a line where an HTTP/1.1 request carries it on (a cookie in the jar).
        var valuesValid = true
        var fields: [HPACK.Field] = []
        do throws(HPACK.DecodingError) {
            try connection.decoder.decode(block, wanting: { keep || $0 == Self.statusName || $0 == Self.retryAfterName }) { field in
                if HPACK.sameBytes(Self.statusName, field.name) {
                    if status == nil, let value = Self.number(field.value), (100...999).contains(value) {
                        status = value
                    } else {
                        statusValid = false
                    }
                } else if keep || HPACK.sameBytes(Self.retryAfterName, field.name) {
                    if field.value.contains(where: { $0 == 0x00 || $0 == 0x0A || $0 == 0x0D }) { valuesValid = false }
                    fields.append(field)
                }
            }
        } catch {
            throw HTTP2Failure(.compressionError, error.description)
        }
        guard var state = connection.streams[stream] else { return }
        guard valuesValid else {
            connection.streams[stream] = nil
            events.append(.reset(stream: stream, error: .protocolError))
            return
        }
        if state.status == nil {
            guard let status, statusValid else {
                connection.streams[stream] = nil
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
        if endStream, state.status != nil {
            finish(stream, state, events: &events)
            return
        }
        connection.streams[stream] = state
    }

    /// DATA of a response: counted against its stream's window, kept or counted (a failure's
    /// first bytes kept in any case), given back by halves; past `maxBodyBytes` the stream is cancelled.
    mutating func receiveData(_ stream: UInt32, _ data: [UInt8], endStream: Bool, events: inout [Event], output: inout [UInt8])
        throws(HTTP2Failure)
    {
        guard var state = connection.streams[stream] else { return }
        guard state.status != nil else { throw HTTP2Failure(.protocolError, "DATA on stream \(stream) before its HEADERS") }
        try state.receiveWindow.consume(data.count, stream: stream)
        state.bodyBytes += data.count
        guard state.bodyBytes <= settings.maxBodyBytes else {
            connection.reset(stream, error: .cancel, into: &output)
            events.append(.tooLarge(stream: stream))
            return
        }
        if state.keepBody {
            state.body.append(contentsOf: data)
        } else if TransportResponse.keepsFailureBody(state.status ?? 0), state.body.count < TransportResponse.failureBodyLimit {
            // A failure's first bytes, for the server's reason: never a success's.
            state.body.append(contentsOf: data.prefix(TransportResponse.failureBodyLimit - state.body.count))
        }
        if endStream {
            finish(stream, state, events: &events)
            return
        }
        state.receiveWindow.giveBack(stream: stream, atLeast: connection.receiveInitialWindow / 2, into: &output)
        connection.streams[stream] = state
    }

    /// The response on `stream` is whole: the stream closes and the response is reported.
    private mutating func finish(_ stream: UInt32, _ state: Stream, events: inout [Event]) {
        connection.streams[stream] = nil
        connection.responseFinished()
        events.append(
            .response(
                stream: stream, Response(status: state.status ?? 0, headers: state.headers, body: state.body, bodyBytes: state.bodyBytes)))
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
