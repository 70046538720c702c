import Foundation
import Synchronization

/// A blocking HTTP/1.1 server on 127.0.0.1 for one test script: it answers requests with
/// `200` and an empty body, `answers` answers in all, except that on its first connection it
/// answers only the first request and closes (a FIN, as an idle timeout sends) when the next one
/// arrives, without answering it. It counts every request it read. Runs on a thread of its own;
/// ends itself after its answers or 60 s (a bound for a stuck test, not a timing).
final class ScriptedServer: Sendable {
    let port: Int
    private let listener: Int32
    private let state = Mutex<(read: Int, first: Int32)>((0, -1))

    init(answers: Int) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        let thread = Thread { [self] in serve(answers: answers) }
        thread.start()
    }

    /// Requests read so far, answered or not.
    var requestsRead: Int { state.withLock { $0.read } }

    /// Connections accepted so far.
    var connectionsAccepted: Int { accepted.load(ordering: .relaxed) }
    private let accepted = Atomic<Int>(0)

    private func serve(answers: Int) {
        let deadline = Date().addingTimeInterval(60)
        var answered = 0
        var connections: [Int32] = []
        defer {
            for fd in connections { close(fd) }
            close(listener)
        }
        _ = fcntl(listener, F_SETFL, O_NONBLOCK)
        var buffers: [Int32: [UInt8]] = [:]
        while answered < answers && Date() < deadline {
            let fd = accept(listener, nil, nil)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFL, O_NONBLOCK)
                connections.append(fd)
                accepted.add(1, ordering: .relaxed)
                state.withLock { if $0.first < 0 { $0.first = fd } }
            }
            for fd in connections {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = recv(fd, &chunk, chunk.count, 0)
                guard count > 0 else { continue }
                buffers[fd, default: []] += chunk[..<count]
                while let end = Self.endOfRequest(buffers[fd] ?? []) {
                    buffers[fd]?.removeFirst(end)
                    let (read, first) = state.withLock { state in
                        state.read += 1
                        return (state.read, state.first)
                    }
                    if fd == first && read > 1 {
                        shutdown(fd, Int32(SHUT_WR))
                        continue
                    }
                    let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
                    _ = send(fd, response, response.count, Int32(MSG_NOSIGNAL))
                    answered += 1
                }
            }
            usleep(1000)
        }
    }

    /// The length of the first whole request in `bytes` (head and Content-Length body), if any.
    private static func endOfRequest(_ bytes: [UInt8]) -> Int? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let head = text.range(of: "\r\n\r\n") else { return nil }
        let headText = text[..<head.lowerBound].lowercased()
        var bodyLength = 0
        if let line = headText.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }) {
            bodyLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        let headLength = text[..<head.upperBound].utf8.count
        return bytes.count >= headLength + bodyLength ? headLength + bodyLength : nil
    }
}
