/// A client's machine reading a response: its header block (status, fields, trailers, and the
/// checks RFC 9113 §8 asks of them) and its body, whole or counted, up to `maxBodyBytes`.
extension HTTP2ClientMachine {
    /// A whole header block: the response's status and fields, or its trailers. Its stream is
    /// looked up once, and changed where it lies in `streams` (`StreamTable`'s `at:` subscript):
    /// a copy stored back would look the id up again, and would share the body's buffer with the
    /// stored one, so that the next append copied it.
    mutating func headerBlock(_ stream: UInt32, _ block: ArraySlice<UInt8>, endStream: Bool, events: inout [Event]) throws(HTTP2Failure) {
        let index = connection.streams.index(forKey: stream)
        // Decoded whatever the stream: the table must see every block (§4.3).
        var keeping = (all: false, cookies: false)
        if let index { keeping = inPlace(index) { ($0.keepHeaders, $0.keepCookies) } }
        // Constants, so that the closures below capture values, not variables each access to
        // which would be checked for exclusivity at run time.
        let keepAll = keeping.all
        let keepCookies = keeping.cookies
        var status: Int?
        var statusValid = true
        // RFC 9113 §8.2.1: a value holding NUL, CR or LF makes the response malformed. Kept, it
        // would end a line where an HTTP/1.1 request carries it on (a cookie in the jar).
        var valuesValid = true
        var fields: [HPACK.Field] = []
        // Read once here, not at every field: each read of a static goes through its `swift_once`.
        let statusName = Self.statusName
        let retryAfterName = Self.retryAfterName
        let setCookieName = Self.setCookieName
        /// Whether a field of `name` is kept: every one, or those retries and the jar read.
        func kept(_ name: [UInt8]) -> Bool {
            keepAll || HPACK.sameBytes(retryAfterName, name) || keepCookies && HPACK.sameBytes(setCookieName, name)
        }
        do throws(HPACK.DecodingError) {
            // The same `wants` for the same two flags: a block read before asks it nothing.
            let wantsKey = (keepAll ? 2 : 0) | (keepCookies ? 1 : 0)
            try connection.decoder.decode(block, wantsKey: wantsKey, wanting: { HPACK.sameBytes(statusName, $0) || kept($0) }) { field in
                if HPACK.sameBytes(statusName, field.name) {
                    if status == nil, let value = Self.number(field.value), (100...999).contains(value) {
                        status = value
                    } else {
                        statusValid = false
                    }
                } else if kept(field.name) {
                    if field.value.contains(where: { $0 == 0x00 || $0 == 0x0A || $0 == 0x0D }) { valuesValid = false }
                    fields.append(field)
                }
            }
        } catch {
            throw HTTP2Failure(.compressionError, error.description)
        }
        // Decoding touched the decoder alone: the index still holds.
        guard let index else { return }
        guard valuesValid else {
            connection.streams.remove(at: index)
            events.append(.reset(stream: stream, error: .protocolError))
            return
        }
        if inPlace(index, { $0.status == nil }) {
            guard let status, statusValid else {
                connection.streams.remove(at: index)
                events.append(.reset(stream: stream, error: .protocolError))
                return
            }
            // An interim response (1xx) is skipped; the final one follows.
            if status >= 200 {
                connection.streams[at: index].status = status
                connection.streams[at: index].headers = fields
            }
        } else {
            connection.streams[at: index].headers += fields
        }
        if endStream, inPlace(index, { $0.status != nil }) {
            finish(stream, connection.streams.remove(at: index), events: &events)
        }
    }

    /// DATA of a response: counted against its stream's window, kept or counted (a failure's
    /// first bytes kept in any case), given back by halves; past `maxBodyBytes` the stream is
    /// cancelled. The stream is changed where it lies, as `headerBlock` does.
    mutating func receiveData(_ stream: UInt32, _ data: ArraySlice<UInt8>, endStream: Bool, events: inout [Event], output: inout [UInt8])
        throws(HTTP2Failure)
    {
        guard let index = connection.streams.index(forKey: stream) else { return }
        guard try connection.streams[at: index].take(data, stream: stream, maxBodyBytes: settings.maxBodyBytes) else {
            connection.reset(stream, error: .cancel, into: &output)
            events.append(.tooLarge(stream: stream))
            return
        }
        if endStream {
            finish(stream, connection.streams.remove(at: index), events: &events)
            return
        }
        connection.streams[at: index].receiveWindow.giveBack(
            stream: stream, atLeast: connection.receiveInitialWindow / 2, into: &output)
    }

    /// Reads the stream at `index` where it lies in `streams`: a getter would
    /// copy it out, retaining and releasing its buffers, for the one field read.
    private mutating func inPlace<Result>(_ index: StreamTable<Stream>.Index, _ read: (inout Stream) -> Result) -> Result {
        read(&connection.streams[at: index])
    }

    /// The response on `stream` is whole, its state taken out of `streams`: it is reported.
    private mutating func finish(_ stream: UInt32, _ state: Stream, events: inout [Event]) {
        connection.responseFinished()
        events.append(
            .response(
                stream: stream, Response(status: state.status ?? 0, headers: state.headers, body: state.body, bodyBytes: state.bodyBytes)))
    }

    static let statusName = Array(":status".utf8)
    static let retryAfterName = Array("retry-after".utf8)
    static let setCookieName = Array("set-cookie".utf8)

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
