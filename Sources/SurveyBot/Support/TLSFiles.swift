import SurveyEngine
import SurveyWire

/// The PEM files of TLS, read here for the engine, which reads no files: through `FileAccess`,
/// so that what is not a regular file (a FIFO, a directory, a device) is refused here, once, and
/// every error names its file.
///
/// A plan's `tls.ca_file`, `tls.client_cert` and `tls.client_key` stay paths in the `Plan` (its
/// digest, its record in a report and its errors show them) and are read into the engine's
/// `TLSConfiguration` when the plan is checked; `serve --tls-cert/--tls-key` are read into a
/// `TLSServerContext` by `serverContext`.
struct TLSFiles: Sendable, Hashable {
    /// `tls.ca_file`: a PEM file of certificates to trust instead of the system's.
    var caFile: String?
    /// `tls.client_cert`: the client's certificate chain, PEM, leaf first.
    var clientCertificate: String?
    /// `tls.client_key`: the private key of `clientCertificate`, PEM.
    var clientKey: String?

    /// The most a TLS file may hold: a bundle of every public CA's certificate is about 200 KB.
    static let maxFileBytes = 16 << 20

    /// `configuration` with the text of the files in it: the CA file's certificates trusted first
    /// (when the server is verified at all), the client's certificate chain and its key.
    ///
    /// - Throws: `TLSSetupError` naming the file that cannot be read, with the system's reason.
    func read(into configuration: TLSConfiguration) throws(TLSSetupError) -> TLSConfiguration {
        var configuration = configuration
        if let caFile, configuration.verify {
            configuration.trustedCertificates.insert(try Self.read(caFile, as: "CA file"), at: 0)
        }
        if let clientCertificate { configuration.clientCertificateChainPEM = try Self.read(clientCertificate, as: "client certificate") }
        if let clientKey { configuration.clientPrivateKeyPEM = try Self.read(clientKey, as: "client key") }
        return configuration
    }

    /// The engine's `error` about a configuration made by `read(into:)`, naming the file its
    /// subject was read from: `CA file /x/ca.pem: no PEM certificate in it`.
    func naming(_ error: TLSSetupError) -> TLSSetupError {
        guard error.file == nil else { return error }
        if error.subject == "trusted certificate 1", let caFile { return error.naming(file: caFile, as: "CA file") }
        return Self.naming(error, role: "client", certificate: clientCertificate, key: clientKey)
    }

    /// A server context from a PEM certificate chain (leaf first) and its key, both files.
    ///
    /// - Throws: `TLSSetupError` naming the file: `server certificate /x/c.pem: no start line`.
    static func serverContext(certificateChain: String, privateKey: String) throws(TLSSetupError) -> TLSServerContext {
        let chain = try read(certificateChain, as: "server certificate")
        let key = try read(privateKey, as: "server key")
        do throws(TLSSetupError) {
            return try TLSServerContext(certificateChainPEM: chain, privateKeyPEM: key)
        } catch {
            throw naming(error, role: "server", certificate: certificateChain, key: privateKey)
        }
    }

    /// The text of the PEM file at `path`, or an error calling it `subject` with the system's reason.
    static func read(_ path: String, as subject: String) throws(TLSSetupError) -> String {
        switch FileAccess.read(path, upTo: maxFileBytes + 1) {
        case .success(let bytes):
            guard bytes.count <= maxFileBytes else {
                throw TLSSetupError(subject, file: path, reason: "is larger than \(maxFileBytes >> 20) MB, too large for a PEM file")
            }
            return String(decoding: bytes, as: UTF8.self)
        case .failure(let error):
            throw TLSSetupError(subject, file: path, reason: error.reason)
        }
    }

    /// `error` naming `certificate` when it is about "`role` certificate", `key` when about
    /// "`role` key" (and the certificate that key does not match).
    private static func naming(_ error: TLSSetupError, role: String, certificate: String?, key: String?) -> TLSSetupError {
        switch error.subject {
        case "\(role) certificate": certificate.map { error.naming(file: $0) } ?? error
        case "\(role) key": key.map { error.naming(file: $0, certificateFile: certificate) } ?? error
        default: error
        }
    }
}
