/// A connection machine sending: header blocks, bodies within the windows, GOAWAY.
extension HTTP2ConnectionMachine {
    /// Sends a header block of `fields` on `id` as HEADERS and, past the peer's frame size,
    /// CONTINUATIONs, written into the machine's own buffer.
    mutating func sendHeaders(_ id: UInt32, _ fields: [HPACK.Field], endStream: Bool, into output: inout [UInt8]) {
        sendHeaders(id, encodingWith: { encoder, block in encoder.encode(fields, into: &block) }, endStream: endStream, into: &output)
    }

    /// Sends a header block that `encode` writes, field by field, with the connection's encoder
    /// into the machine's own buffer: no allocation per block.
    mutating func sendHeaders(
        _ id: UInt32, encodingWith encode: (inout HPACKEncoder, inout [UInt8]) -> Void, endStream: Bool, into output: inout [UInt8]
    ) {
        var block = scratch
        scratch = []
        block.removeAll(keepingCapacity: true)
        encoder.beginBlock(into: &block)
        encode(&encoder, &block)
        HTTP2Frame.writeHeaderBlock(stream: id, block[...], endStream: endStream, maxFrameSize: peer.maxFrameSize, into: &output)
        scratch = block
    }

    /// Sends what the windows and `writeAllowance` now allow of a stream's waiting body; a
    /// server's stream whose end went out with it is finished (`finish(_:into:)`). The stream
    /// is found once and changed where it lies in `streams`: copied out and stored back, its
    /// buffers would be retained and released, and its id looked up twice more, at every frame.
    mutating func flush(_ id: UInt32, into output: inout [UInt8]) {
        // Nothing waiting is nothing sent (`send` asks): the stream is not read out to ask it here.
        guard let index = streams.index(forKey: id) else { return }
        let ended = Self.send(
            &streams[at: index], id, connectionSend: &connectionSend, allowance: &writeAllowance, maxFrameSize: peer.maxFrameSize,
            into: &output)
        if ended && role == .server { finish(id, into: &output) }
    }

    /// Writes what `stream`'s window, the connection's (`connectionSend`) and `allowance` allow of
    /// its waiting body as DATA frames of at most `maxFrameSize`, spending the windows; true when
    /// the stream's end went out. Static, so that a stream held in place in `streams` and the
    /// connection's window are changed side by side.
    static func send(
        _ stream: inout Stream, _ id: UInt32, connectionSend: inout FlowWindow, allowance: inout Int, maxFrameSize: Int,
        into output: inout [UInt8]
    ) -> Bool {
        guard stream.outbound.waits else { return false }
        while stream.outbound.offset < stream.outbound.bytes.count {
            let allowed = min(stream.sendWindow.size, connectionSend.size, maxFrameSize, stream.outbound.remaining, allowance)
            guard allowed > 0 else { break }
            allowance -= allowed
            let start = stream.outbound.offset
            let end = start + allowed
            let last = end == stream.outbound.bytes.count && stream.outbound.endsStream
            HTTP2Frame.writeData(stream: id, stream.outbound.bytes[start..<end], endStream: last, into: &output)
            stream.outbound.offset = end
            stream.sendWindow.spend(allowed)
            connectionSend.spend(allowed)
        }
        var ended = false
        if stream.outbound.offset == stream.outbound.bytes.count {
            if stream.outbound.endsStream {
                // An empty end: a frame of its own.
                if stream.outbound.bytes.isEmpty { HTTP2Frame.writeData(stream: id, [], endStream: true, into: &output) }
                stream.outbound.endsStream = false
                ended = true
            }
            stream.outbound.bytes = []
            stream.outbound.offset = 0
        }
        return ended
    }

    /// Sends what the windows allow of every stream's waiting body, in the order of their ids.
    mutating func flushAll(into output: inout [UInt8]) {
        for id in streams.keys.sorted() where streams[id]?.outbound.waits == true { flush(id, into: &output) }
    }

    /// This end's side of a server's stream ended, its response sent whole: the stream closes
    /// once the client ended its side too; one still sending is reset with NO_ERROR, its
    /// request answered (§8.1). The count of frames that finish no response starts again.
    mutating func finish(_ id: UInt32, into output: inout [UInt8]) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        responseFinished()
        if stream.receiving { HTTP2Frame.resetStream(stream: id, error: .noError).write(into: &output) }
    }

    /// Sends GOAWAY: streams above `lastStream` are not processed. A later GOAWAY may only
    /// lower it; the one it keeps is returned.
    mutating func sendGoAway(lastStream: UInt32, error: HTTP2Error, into output: inout [UInt8]) -> UInt32 {
        let last = goAwayLastStream.map { min($0, lastStream) } ?? lastStream
        goAwayLastStream = last
        HTTP2Frame.goAway(lastStream: last, error: error, debug: []).write(into: &output)
        return last
    }

    /// The GOAWAY for a connection error: the streams processed so far are kept.
    func goAway(for failure: HTTP2Failure) -> HTTP2Frame {
        .goAway(lastStream: lastProcessedStream, error: failure.error, debug: Array(failure.reason.utf8.prefix(128)))
    }
}
