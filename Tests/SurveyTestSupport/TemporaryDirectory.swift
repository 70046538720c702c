import Foundation
import SurveyEngine
import SurveyWire

/// A fresh directory under the system's temporary directory, removed when released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/survey-bot-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes a file and returns its full path.
    @discardableResult
    func write(_ name: String, _ contents: String) throws -> String {
        let file = "\(path)/\(name)"
        try contents.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The full path of `name` in the directory, where nothing has been written.
    func missing(_ name: String) -> String { "\(path)/\(name)" }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

extension TemporaryDirectory {
    /// Writes `identity`'s certificate and private key as `name`.pem and `name`.key; returns their paths.
    func write(_ identity: TLSIdentity, as name: String) throws -> (certificate: String, key: String) {
        (try write("\(name).pem", identity.certificatePEM), try write("\(name).key", identity.privateKeyPEM))
    }
}
