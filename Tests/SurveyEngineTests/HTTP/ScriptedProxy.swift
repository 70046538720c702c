import Foundation
import Synchronization

@testable import SurveyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback HTTP proxy that does what a test scripts, on threads of its own: it reads the
/// client's request head (a `CONNECT`, or a request in absolute form), keeps it for the test,
/// and answers as told — a refusal, a close halfway through, or a tunnel to a real server on
/// loopback, relayed byte for byte. Blocking sockets with a 60 s receive timeout, which only
/// stops a hung test.
final class ScriptedProxy: Sendable {
    let port: Int
    private let listener: Int32
    /// Every request head read, in order, as text.
    private let heads = Mutex<[String]>([])

    init() throws {
        struct NoListener: Error {}
        guard let (fd, port) = blockingLoopbackListener() else { throw NoListener() }
        listener = fd
        self.port = port
    }

    deinit { close(listener) }

    /// The request heads read so far.
    var requestHeads: [String] { heads.withLock { $0 } }

    /// Accepts `connections` connections, running `script` on each on a thread of its own; the
    /// task ends when every script has returned.
    func serve(connections: Int = 1, _ script: @escaping @Sendable (Peer) -> Void) -> Task<Void, Never> {
        startOnOwnThread { [self] in
            let scripts = DispatchGroup()
            for _ in 0..<connections {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { break }
                scripts.enter()
                Thread {
                    let peer = Peer(fd: fd, proxy: self)
                    script(peer)
                    peer.close()
                    scripts.leave()
                }.start()
            }
            scripts.wait()
        }
    }

    fileprivate func record(_ head: String) { heads.withLock { $0.append(head) } }

    /// The proxy's end of one client connection.
    final class Peer {
        let fd: Int32
        private let proxy: ScriptedProxy
        private var closed = false

        fileprivate init(fd: Int32, proxy: ScriptedProxy) {
            self.fd = fd
            self.proxy = proxy
            var timeout = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        func close() {
            guard !closed else { return }
            closed = true
            Glibc.close(fd)
        }

        /// Reads one request head, byte by byte up to its blank line (nothing of what follows),
        /// and records it; nil at the client's close. A body the head declares is read too.
        @discardableResult
        func readHead() -> String? {
            var bytes: [UInt8] = []
            var byte: UInt8 = 0
            while !bytes.suffix(4).elementsEqual([13, 10, 13, 10]) {
                guard recv(fd, &byte, 1, 0) == 1 else { return nil }
                bytes.append(byte)
            }
            let head = String(decoding: bytes, as: UTF8.self)
            proxy.record(head)
            if let line = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
                let length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)), length > 0
            {
                var body = [UInt8](repeating: 0, count: length)
                var got = 0
                while got < length {
                    let count = body[got...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    guard count > 0 else { break }
                    got += count
                }
            }
            return head
        }

        func send(_ text: String) {
            sendRaw(Array(text.utf8))
        }

        func sendRaw(_ bytes: [UInt8]) {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return }
                sent += count
            }
        }

        /// Connects to 127.0.0.1:`port` and relays bytes both ways until either side closes:
        /// the tunnel a `CONNECT` opened.
        func relay(to port: Int) {
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(upstream)
                return
            }
            let done = DispatchGroup()
            let client = fd
            for (from, to) in [(client, upstream), (upstream, client)] {
                done.enter()
                Thread {
                    var buffer = [UInt8](repeating: 0, count: 16384)
                    while true {
                        let count = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
                        guard count > 0 else { break }
                        var sent = 0
                        while sent < count {
                            let wrote = buffer[sent..<count].withUnsafeBytes {
                                Glibc.send(to, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                            }
                            guard wrote > 0 else { break }
                            sent += wrote
                        }
                    }
                    shutdown(to, Int32(SHUT_WR))
                    done.leave()
                }.start()
            }
            done.wait()
            Glibc.close(upstream)
        }
    }
}
