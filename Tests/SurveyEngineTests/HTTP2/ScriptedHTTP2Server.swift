import Foundation
import Synchronization

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback HTTP/2 server that does what a test scripts, frame by frame, on a thread of its own:
/// the misbehaving servers (GOAWAY mid-run, reset streams, floods, windows that never open) that
/// no real server can be made to be on demand. Blocking sockets, a 60 s receive timeout: what
/// the client sends starts from test tasks on the cooperative pool, which a busy machine may keep
/// waiting for a thread for seconds, so the timeout only stops a hung test.
final class ScriptedHTTP2Server: Sendable {
    let port: Int
    private let listener: Int32
    /// Connections accepted so far.
    private let accepted = Atomic<Int>(0)

    init() throws {
        struct NoListener: Error {}
        guard let (fd, port) = blockingLoopbackListener() else { throw NoListener() }
        listener = fd
        self.port = port
    }

    deinit { close(listener) }

    var target: HTTPTarget { HTTPTarget(scheme: .http, host: "127.0.0.1", port: port) }

    var connectionsAccepted: Int { accepted.load(ordering: .relaxed) }

    /// Accepts `connections` connections, running `script` on each (with its index, in the order
    /// accepted) on a thread of its own; the task ends when every script has returned.
    func serve(connections: Int = 1, _ script: @escaping @Sendable (Peer, Int) -> Void) -> Task<Void, Never> {
        startOnOwnThread { [self] in
            let scripts = DispatchGroup()
            for index in 0..<connections {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { break }
                accepted.add(1, ordering: .relaxed)
                scripts.enter()
                let connection = Thread {
                    let peer = Peer(fd: fd)
                    script(peer, index)
                    peer.close()
                    scripts.leave()
                }
                connection.start()
            }
            scripts.wait()
        }
    }

    /// The server's end of one connection.
    final class Peer {
        let fd: Int32
        private var input: [UInt8] = []
        private var encoder = HPACKEncoder()
        private var closed = false

        init(fd: Int32) {
            self.fd = fd
            var timeout = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        func close() {
            guard !closed else { return }
            closed = true
            Glibc.close(fd)
        }

        func send(_ frames: HTTP2Frame...) {
            var bytes: [UInt8] = []
            for frame in frames { frame.write(into: &bytes) }
            sendRaw(bytes)
        }

        func sendRaw(_ bytes: [UInt8]) {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return }
                sent += count
            }
        }

        /// Reads the client's preface and answers with SETTINGS (`settings`), as a server must first.
        @discardableResult
        func open(_ settings: [(HTTP2Setting, UInt32)] = []) -> Bool {
            while input.count < HTTP2Frame.preface.count {
                guard fill() else { return false }
            }
            guard input.starts(with: HTTP2Frame.preface) else { return false }
            input.removeFirst(HTTP2Frame.preface.count)
            send(.settings(settings, ack: false))
            return true
        }

        /// The next frame from the client; nil at its close, a timeout, or bytes that are not HTTP/2.
        func next() -> HTTP2Frame? {
            while true {
                if let read = try? HTTP2Frame.read(input[...], maxFrameSize: 1 << 20), case .frame(let frame, let length) = read {
                    input.removeFirst(length)
                    return frame
                }
                guard fill() else { return nil }
            }
        }

        /// Reads until `count` requests have ended (their END_STREAM), acknowledging the
        /// client's SETTINGS on the way: their streams, in order, and every frame read.
        func requests(_ count: Int) -> (streams: [UInt32], frames: [HTTP2Frame]) {
            var ended: [UInt32] = []
            var frames: [HTTP2Frame] = []
            while ended.count < count, let frame = next() {
                frames.append(frame)
                switch frame {
                case .settings(_, let ack) where !ack: send(.settings([], ack: true))
                case .headers(let stream, _, true, _), .data(let stream, _, true): ended.append(stream)
                default: break
                }
            }
            return (ended, frames)
        }

        /// A whole response on `stream`.
        func respond(_ stream: UInt32, status: Int = 200, body: String = "", headers: [HPACK.Field] = []) {
            var block: [UInt8] = []
            encoder.encode([HPACK.Field(":status", String(status))] + headers, into: &block)
            if body.isEmpty {
                send(.headers(stream: stream, fragment: block, endStream: true, endHeaders: true))
            } else {
                send(
                    .headers(stream: stream, fragment: block, endStream: false, endHeaders: true),
                    .data(stream: stream, data: Array(body.utf8), endStream: true))
            }
        }

        /// A response's header block, for a test that sends its own frames after it.
        func headerBlock(status: Int = 200, headers: [HPACK.Field] = []) -> [UInt8] {
            var block: [UInt8] = []
            encoder.encode([HPACK.Field(":status", String(status))] + headers, into: &block)
            return block
        }

        /// Waits for the client to close its end (or 60 s); what it sent meanwhile.
        func drain() -> [HTTP2Frame] {
            var frames: [HTTP2Frame] = []
            while let frame = next() { frames.append(frame) }
            return frames
        }

        private func fill() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            input += buffer[..<count]
            return true
        }
    }
}
