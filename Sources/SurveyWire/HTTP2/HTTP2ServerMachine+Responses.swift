/// A server's machine answering: a response's header block and data within the client's windows, and the windows it gives back.
extension HTTP2ServerMachine {
    /// Answers a stream: `:status`, then `fields` (lowercase names), then `body` as the windows
    /// allow, the rest as they open. For a HEAD request the body is not sent.
    mutating func respond(_ id: UInt32, status: Int, fields: [HPACK.Field], body: [UInt8], into output: inout [UInt8]) {
        let head = streams[id]?.head ?? false
        sendHeaders(id, status: status, fields: fields, endStream: body.isEmpty || head, into: &output)
        if !body.isEmpty && !head { sendData(id, body, endStream: true, into: &output) }
    }

    /// Sends a stream's response HEADERS (and CONTINUATIONs past the client's frame size).
    mutating func sendHeaders(_ id: UInt32, status: Int, fields: [HPACK.Field], endStream: Bool, into output: inout [UInt8]) {
        guard var state = streams[id], !state.responding else { return }
        sendBlock(id, [HPACK.Field(":status", String(status))] + fields, endStream: endStream, into: &output)
        state.responding = true
        state.ended = endStream
        streams[id] = state
        if endStream { finished(id, into: &output) }
    }

    /// Sends a malformed response (§8.1.1): a header block without `:status`, ending the stream;
    /// the client treats that stream, and only it, as broken.
    mutating func sendMalformed(_ id: UInt32, into output: inout [UInt8]) {
        guard var state = streams[id], !state.responding else { return }
        sendBlock(id, [HPACK.Field("server", "survey-bot")], endStream: true, into: &output)
        state.responding = true
        state.ended = true
        streams[id] = state
        finished(id, into: &output)
    }

    mutating func sendBlock(_ id: UInt32, _ fields: [HPACK.Field], endStream: Bool, into output: inout [UInt8]) {
        var block: [UInt8] = []
        encoder.encode(fields, into: &block)
        var offset = 0
        repeat {
            let end = min(block.count, offset + peerMaxFrameSize)
            let fragment = Array(block[offset..<end])
            if offset == 0 {
                HTTP2Frame.headers(stream: id, fragment: fragment, endStream: endStream, endHeaders: end == block.count).write(
                    into: &output)
            } else {
                HTTP2Frame.continuation(stream: id, fragment: fragment, endHeaders: end == block.count).write(into: &output)
            }
            offset = end
        } while offset < block.count
    }

    /// Sends body bytes on a stream whose HEADERS went out: now within the windows, the rest as
    /// they open; `endStream` ends the response with the last of them.
    mutating func sendData(_ id: UInt32, _ bytes: [UInt8], endStream: Bool, into output: inout [UInt8]) {
        guard var state = streams[id], state.responding, !state.ended else { return }
        if state.pendingOffset == state.pending.count {
            state.pending = bytes
            state.pendingOffset = 0
        } else {
            state.pending += bytes
        }
        state.endAfterPending = endStream
        state.ended = endStream
        streams[id] = state
        flush(id, into: &output)
    }

    /// Sends what the windows allow of a stream's waiting body.
    mutating func flush(_ id: UInt32, into output: inout [UInt8]) {
        guard var state = streams[id] else { return }
        while state.pendingOffset < state.pending.count {
            let allowed = min(
                state.sendWindow, connectionSendWindow, peerMaxFrameSize, state.pending.count - state.pendingOffset, writeAllowance)
            guard allowed > 0 else { break }
            writeAllowance -= allowed
            let end = state.pendingOffset + allowed
            let last = end == state.pending.count && state.endAfterPending
            HTTP2Frame.data(stream: id, data: Array(state.pending[state.pendingOffset..<end]), endStream: last).write(into: &output)
            state.pendingOffset = end
            state.sendWindow -= allowed
            connectionSendWindow -= allowed
        }
        let done = state.pendingOffset == state.pending.count
        if done {
            if state.endAfterPending && state.pending.isEmpty {
                // An empty end: a frame of its own.
                HTTP2Frame.data(stream: id, data: [], endStream: true).write(into: &output)
            }
            state.pending = []
            state.pendingOffset = 0
        }
        streams[id] = state
        if done && state.endAfterPending { finished(id, into: &output) }
    }

    /// The response went out whole: the stream closes once the client ended its side too; one
    /// that is still sending is reset with NO_ERROR, its request answered (§8.1).
    mutating func finished(_ id: UInt32, into output: inout [UInt8]) {
        guard let state = streams.removeValue(forKey: id) else { return }
        controlFrames = 0
        if state.receiving { HTTP2Frame.resetStream(stream: id, error: .noError).write(into: &output) }
    }

    /// Gives back every window read so far (the connection's and each receiving stream's) by
    /// WINDOW_UPDATE: how a connection with a slow window lets the client go on.
    mutating func returnWindows(into output: inout [UInt8]) {
        if connectionUnreturned > 0 {
            HTTP2Frame.windowUpdate(stream: 0, increment: UInt32(connectionUnreturned)).write(into: &output)
            connectionReceiveWindow += connectionUnreturned
            connectionUnreturned = 0
        }
        for id in streams.keys.sorted() {
            guard var state = streams[id], state.receiving, state.unreturned > 0 else { continue }
            HTTP2Frame.windowUpdate(stream: id, increment: UInt32(state.unreturned)).write(into: &output)
            state.receiveWindow += state.unreturned
            state.unreturned = 0
            streams[id] = state
        }
    }
}
