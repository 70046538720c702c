/// A server's machine reading a request: its header block and the checks RFC 9113 §8 asks of it,
/// its body within its window and `maxBodyBytes`, and the request handed on once its stream ends.
extension HTTP2ServerMachine {
    /// A whole header block: a request's fields (`opens`: on a stream it opens), or its trailers.
    mutating func headerBlock(
        _ stream: UInt32, _ block: ArraySlice<UInt8>, endStream: Bool, opens: Bool, events: inout [Event], output: inout [UInt8]
    ) throws(HTTP2Failure) {
        let fields: [HPACK.Field]
        do throws(HPACK.DecodingError) {
            // Decoded whatever the stream: the table must see every block (§4.3).
            fields = try connection.decoder.decode(Array(block))
        } catch {
            throw HTTP2Failure(.compressionError, error.description)
        }
        guard opens else {
            // Trailers: they end the request; their fields are not kept.
            guard var state = connection.streams[stream] else { return }
            guard endStream else { throw HTTP2Failure(.protocolError, "trailers on stream \(stream) without END_STREAM") }
            state.receiving = false
            connection.streams[stream] = state
            complete(stream, events: &events, output: &output)
            return
        }
        if let last = connection.goAwayLastStream, stream > last {
            // Going away: not processed, but counted as read (its body, if any, is not awaited).
            var state = Stream(receiveWindow: connection.receiveInitialWindow, sendWindow: connection.peer.initialWindowSize)
            state.fields = fields
            events.append(.unanswered(stream: stream, request(stream, state)))
            return
        }
        guard connection.streams.count < settings.maxConcurrentStreams else {
            try connection.calm("a stream above the limit")
            HTTP2Frame.resetStream(stream: stream, error: .refusedStream).write(into: &output)
            return
        }
        var state = Stream(receiveWindow: connection.receiveInitialWindow, sendWindow: connection.peer.initialWindowSize)
        state.receiving = !endStream
        let listSize = fields.reduce(0) { $0 + $1.size }
        guard listSize <= settings.maxHeaderListSize else {
            reject(stream, &state, status: 431, events: &events, output: &output)
            return
        }
        state.fields = fields
        guard case .valid(let length) = Self.check(fields) else {
            // Malformed (§8.1.1): a stream error.
            events.append(.rejected(stream: stream, status: 400))
            HTTP2Frame.resetStream(stream: stream, error: .protocolError).write(into: &output)
            return
        }
        state.expectedLength = length
        state.head = fields.contains { $0.name.elementsEqual(":method".utf8) && $0.value.elementsEqual("HEAD".utf8) }
        connection.streams[stream] = state
        if endStream { complete(stream, events: &events, output: &output) }
    }

    /// DATA of a request: counted against its stream's window, kept up to `maxBodyBytes` (past
    /// it, answered 413), given back by halves unless the connection gives windows back itself.
    mutating func receiveData(_ stream: UInt32, _ data: ArraySlice<UInt8>, endStream: Bool, events: inout [Event], output: inout [UInt8])
        throws(HTTP2Failure)
    {
        guard var state = connection.streams[stream] else { return }
        guard state.receiving else { throw HTTP2Failure(.streamClosed, "DATA on stream \(stream) after the client ended it") }
        try state.receiveWindow.consume(data.count, stream: stream)
        if !state.rejected {
            guard state.body.count + data.count <= settings.maxBodyBytes else {
                reject(stream, &state, status: 413, events: &events, output: &output)
                return
            }
            state.body.append(contentsOf: data)
        }
        if endStream {
            state.receiving = false
            connection.streams[stream] = state
            complete(stream, events: &events, output: &output)
            return
        }
        if settings.returnsWindows {
            state.receiveWindow.giveBack(stream: stream, atLeast: connection.receiveInitialWindow / 2, into: &output)
        }
        connection.streams[stream] = state
    }

    /// Answers a request the machine refuses (`413`, `431`, `400`) on its own; the stream closes
    /// as the response ends, reset with NO_ERROR if the client still sends.
    mutating func reject(_ id: UInt32, _ state: inout Stream, status: Int, events: inout [Event], output: inout [UInt8]) {
        state.rejected = true
        state.body = []
        state.fields = []
        connection.streams[id] = state
        events.append(.rejected(stream: id, status: status))
        let fields = [HPACK.Field("server", "survey-bot"), HPACK.Field("content-length", "0")]
        sendHeaders(id, status: status, fields: fields, endStream: true, into: &output)
    }

    /// The request on `stream` is whole: it goes to the handler, unless its body's length is
    /// not what `content-length` said.
    mutating func complete(_ id: UInt32, events: inout [Event], output: inout [UInt8]) {
        guard let state = connection.streams[id], !state.rejected else { return }
        if let expected = state.expectedLength, expected != state.body.count {
            connection.streams[id] = nil
            events.append(.rejected(stream: id, status: 400))
            HTTP2Frame.resetStream(stream: id, error: .protocolError).write(into: &output)
            return
        }
        connection.lastProcessedStream = max(connection.lastProcessedStream, id)
        connection.streams[id]?.fields = []
        connection.streams[id]?.body = []
        connection.streams[id]?.dispatched = true
        events.append(.request(stream: id, request(id, state)))
    }

    /// The request a stream's fields and body make, as the HTTP/1.1 server would hand it over.
    func request(_ id: UInt32, _ state: Stream) -> HTTPServerRequest {
        var method = ""
        var path = ""
        var authority: String?
        var cookies: [String] = []
        var authorization: String?
        var headers: [HTTPHeader] = []
        for field in state.fields {
            let name = String(decoding: field.name, as: UTF8.self)
            let value = String(decoding: field.value, as: UTF8.self)
            switch name {
            case ":method": method = value
            case ":path": path = value
            case ":authority": authority = value
            case ":scheme": break
            case "cookie": cookies.append(value)
            case "authorization": authorization = value
            default: break
            }
            if settings.credentials && !name.hasPrefix(":") { headers.append(HTTPHeader(name: name, value: value)) }
        }
        var request = HTTPServerRequest(method: method, path: path, body: state.body, loopIndex: settings.loopIndex)
        if settings.keepsHost { request.host = authority }
        if settings.credentials {
            request.authorization = authorization
            request.cookie = cookies.isEmpty ? nil : cookies.joined(separator: "; ")
            if let authority { headers.insert(HTTPHeader(name: "host", value: authority), at: 0) }
            request.headers = headers
        }
        return request
    }

    enum Validity {
        case malformed
        /// Well formed; the body's length when `content-length` gives it.
        case valid(contentLength: Int?)
    }

    /// Checks a request's fields (§8.3.1): the pseudo-header fields a request needs and no other,
    /// before the regular ones, no uppercase names, no connection-specific fields, one
    /// `content-length` at most.
    static func check(_ fields: [HPACK.Field]) -> Validity {
        var method = false
        var scheme = false
        var path = false
        var regular = false
        var length: Int?
        for field in fields {
            if field.name.first == UInt8(ascii: ":") {
                guard !regular else { return .malformed }
                switch String(decoding: field.name, as: UTF8.self) {
                case ":method": method = true
                case ":scheme": scheme = true
                case ":path":
                    guard !field.value.isEmpty else { return .malformed }
                    path = true
                case ":authority": break
                default: return .malformed
                }
                continue
            }
            regular = true
            guard !field.name.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return .malformed }
            switch String(decoding: field.name, as: UTF8.self) {
            case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade": return .malformed
            case "te" where !field.value.elementsEqual("trailers".utf8): return .malformed
            case "content-length":
                guard let value = Int(String(decoding: field.value, as: UTF8.self)), value >= 0, length == nil || length == value else {
                    return .malformed
                }
                length = value
            default: break
            }
        }
        guard method, scheme, path else { return .malformed }
        return .valid(contentLength: length)
    }
}
