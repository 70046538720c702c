/// A server's machine answering: a response's header block and data within the client's windows, and the windows it gives back.
extension HTTP2ServerMachine {
    /// Answers a stream: `:status`, then `fields` (lowercase names), then `body` as the windows
    /// allow, the rest as they open. For a HEAD request the body is not sent.
    mutating func respond(_ id: UInt32, status: Int, fields: [HPACK.Field], body: [UInt8], into output: inout [UInt8]) {
        let head = connection.streams[id]?.head ?? false
        sendHeaders(id, status: status, fields: fields, endStream: body.isEmpty || head, into: &output)
        if !body.isEmpty && !head { sendData(id, body, endStream: true, into: &output) }
    }

    /// Sends a stream's response HEADERS (and CONTINUATIONs past the client's frame size).
    mutating func sendHeaders(_ id: UInt32, status: Int, fields: [HPACK.Field], endStream: Bool, into output: inout [UInt8]) {
        guard var state = connection.streams[id], !state.responding else { return }
        connection.sendHeaders(id, [HPACK.Field(":status", String(status))] + fields, endStream: endStream, into: &output)
        state.responding = true
        state.ended = endStream
        connection.streams[id] = state
        if endStream { connection.finish(id, into: &output) }
    }

    /// Sends a malformed response (§8.1.1): a header block without `:status`, ending the stream;
    /// the client treats that stream, and only it, as broken.
    mutating func sendMalformed(_ id: UInt32, into output: inout [UInt8]) {
        guard var state = connection.streams[id], !state.responding else { return }
        connection.sendHeaders(id, [HPACK.Field("server", "survey-bot")], endStream: true, into: &output)
        state.responding = true
        state.ended = true
        connection.streams[id] = state
        connection.finish(id, into: &output)
    }

    /// Sends body bytes on a stream whose HEADERS went out: now within the windows, the rest as
    /// they open; `endStream` ends the response with the last of them.
    mutating func sendData(_ id: UInt32, _ bytes: [UInt8], endStream: Bool, into output: inout [UInt8]) {
        guard var state = connection.streams[id], state.responding, !state.ended else { return }
        state.outbound.append(bytes, endStream: endStream)
        state.ended = endStream
        connection.streams[id] = state
        connection.flush(id, into: &output)
    }

    /// Gives back every window read so far (the connection's and each receiving stream's) by
    /// WINDOW_UPDATE: how a connection with a slow window lets the client go on.
    mutating func returnWindows(into output: inout [UInt8]) {
        connection.returnConnectionWindow(into: &output)
        for id in connection.streams.keys.sorted() {
            guard var state = connection.streams[id], state.receiving, state.receiveWindow.unreturned > 0 else { continue }
            state.receiveWindow.giveBack(stream: id, atLeast: 1, into: &output)
            connection.streams[id] = state
        }
    }
}
