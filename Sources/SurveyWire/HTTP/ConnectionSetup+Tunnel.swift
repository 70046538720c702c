#if canImport(Glibc)
    import Glibc
#endif

/// The proxy stage of a set-up: `CONNECT host:port` sent, the proxy's answer read up to its
/// blank line — never a byte past it, which would be the target's — and judged: a 2xx opens the
/// tunnel, anything else is the proxy's refusal (`proxy_refused`), explained.
extension ConnectionSetup {
    /// The longest answer head a proxy may send to `CONNECT`.
    static let maxTunnelAnswer = 16 * 1024

    /// Sends `CONNECT`, then reads the answer.
    func openTunnel() {
        stage = .tunnelling
        tunnelWritten = 0
        tunnelAnswer = []
        continueTunnel()
    }

    /// Goes on with the tunnel as the socket allows: the rest of the request, then the answer.
    func continueTunnel() {
        guard let request = route.tunnelRequest, let proxy = route.proxy else { return }
        if tunnelWritten < request.count {
            switch Sockets.write(fd, request, from: &tunnelWritten) {
            case .done:
                watch(.readable)
            case .wouldBlock:
                return watch(.writable)
            case .failed(let error):
                return failed(
                    error == ECONNRESET ? .connectionReset : .connectionClosed,
                    detail: "the proxy \(proxy.authority) closed the connection before CONNECT was sent")
            }
        }
        readAnswer(from: proxy)
    }

    /// Reads what the proxy answered so far. Bytes are peeked first and only the head's taken:
    /// the target's first bytes (an h2c server's SETTINGS) may follow it in the same segment.
    private func readAnswer(from proxy: HTTPProxy) {
        let buffer = pool.loop.readBuffer
        while true {
            let room = min(Self.maxTunnelAnswer - tunnelAnswer.count, buffer.count)
            let peeked = recv(fd, buffer.baseAddress, room, Int32(MSG_PEEK))
            if peeked == 0 {
                return failed(
                    .connectionClosed, detail: "the proxy \(proxy.authority) closed the connection before its answer to CONNECT was whole")
            }
            if peeked < 0 {
                let error = errno
                if error == EINTR { continue }
                if error == EAGAIN || error == EWOULDBLOCK { return }
                return failed(
                    error == ECONNRESET ? .connectionReset : .connectionClosed,
                    detail: "the proxy \(proxy.authority) broke the connection before its answer to CONNECT was whole")
            }
            let end = headEnd(in: UnsafeRawBufferPointer(start: buffer.baseAddress, count: peeked))
            let take = end ?? peeked
            let taken = recv(fd, buffer.baseAddress, take, 0)
            guard taken == take else {
                return failed(.connectionClosed, detail: "the proxy \(proxy.authority) broke the connection during its answer to CONNECT")
            }
            tunnelAnswer.append(contentsOf: UnsafeRawBufferPointer(start: buffer.baseAddress, count: take))
            if end != nil { return answered(by: proxy) }
            if tunnelAnswer.count >= Self.maxTunnelAnswer {
                return failed(
                    .malformedResponse,
                    detail: "the proxy \(proxy.authority) answered CONNECT with a head longer than \(Self.maxTunnelAnswer / 1024) KiB")
            }
        }
    }

    /// Where the head ends in `bytes`, just past its blank line (CRLF CRLF, or LF LF), counting
    /// the bytes of the answer already taken; nil when it does not end in them.
    private func headEnd(in bytes: UnsafeRawBufferPointer) -> Int? {
        var recent: UInt32 = 0
        for byte in tunnelAnswer.suffix(3) { recent = recent << 8 | UInt32(byte) }
        for (index, byte) in bytes.enumerated() {
            recent = recent << 8 | UInt32(byte)
            if recent == 0x0D0A_0D0A || recent & 0xFFFF == 0x0A0A { return index + 1 }
        }
        return nil
    }

    /// Judges the proxy's whole answer head by its status line.
    private func answered(by proxy: HTTPProxy) {
        let line = tunnelAnswer.prefix { $0 != 0x0D && $0 != 0x0A }
        let digits = line.dropFirst(9).prefix(3)
        guard line.starts(with: Self.http1Prefix), line.count >= 12, line[line.startIndex + 8] == 0x20,
            digits.allSatisfy({ (0x30...0x39).contains($0) }), line.count == 12 || line[line.startIndex + 12] == 0x20
        else {
            return failed(.malformedResponse, detail: "the proxy \(proxy.authority) answered CONNECT without an HTTP/1.x status line")
        }
        let status = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        tunnelAnswer = []
        guard (200..<300).contains(status) else {
            let reason = Self.shown(line.dropFirst(13))
            return failed(
                .proxyRefused,
                detail: "the proxy \(proxy.authority) answered CONNECT \(route.targetAuthority) with \(status)"
                    + (reason.isEmpty ? "" : " \(reason)") + ": " + Self.meaning(of: status, credentialsGiven: proxy.hasCredentials))
        }
        tunnelOpened()
    }

    private static let http1Prefix = Array("HTTP/1.".utf8)

    /// A reason phrase as a detail may show it: printable ASCII, at most 80 characters.
    private static func shown(_ phrase: ArraySlice<UInt8>) -> String {
        String(decoding: phrase.prefix(80).map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    /// What a refusal of `CONNECT` with `status` means for whoever runs the plan.
    static func meaning(of status: Int, credentialsGiven: Bool) -> String {
        switch status {
        // tinyproxy answers wrong credentials with 401 where RFC 9110 has 407.
        case 407, 401:
            credentialsGiven
                ? "the proxy refused the credentials of the proxy URL"
                : "give credentials in the proxy URL (http://user:password@host:port)"
        case 403: "the proxy forbids a tunnel to this host or port (squid's default allows CONNECT to port 443 alone)"
        case 400, 405, 501: "the proxy does not open tunnels (CONNECT) to this target"
        case 502, 503, 504: "the proxy could not reach the target"
        default: "the proxy did not open the tunnel"
        }
    }
}
