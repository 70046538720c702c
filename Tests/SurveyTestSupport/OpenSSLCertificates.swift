/// Certificates made by the `openssl` command, RSA 2048, in files of `directory`: a private CA
/// and what it issues, or self-signed ones. Code the tests share none of with the certificates
/// `TLSIdentity` makes in memory.
struct OpenSSLCertificates {
    let directory: TemporaryDirectory

    /// Makes the CA (`ca.pem`, `ca.key`).
    func makeAuthority() async throws -> (certificate: String, key: String) {
        let certificate = "\(directory.path)/ca.pem"
        let key = "\(directory.path)/ca.key"
        try await openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
            "-subj", "/CN=survey-bot test CA", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        return (certificate, key)
    }

    /// A certificate `name`.pem (key `name`.key) for the IP addresses `addresses`, issued by the CA,
    /// valid from now for `days` — or, for a negative number, expired that many days ago.
    func issue(_ name: String, for addresses: [String], days: Int, by authority: (certificate: String, key: String))
        async throws -> (certificate: String, key: String)
    {
        let certificate = "\(directory.path)/\(name).pem"
        let key = "\(directory.path)/\(name).key"
        let request = "\(directory.path)/\(name).csr"
        let extensions = try directory.write(
            "\(name).ext", "subjectAltName=\(addresses.map { "IP:\($0)" }.joined(separator: ","))\nbasicConstraints=CA:FALSE\n")
        try await openssl(["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request, "-subj", "/CN=\(name)"])
        try await openssl([
            "x509", "-req", "-in", request, "-CA", authority.certificate, "-CAkey", authority.key,
            "-set_serial", "\(UInt32.random(in: 1...UInt32.max))", "-days", "\(days)", "-extfile", extensions, "-out", certificate,
        ])
        return (certificate, key)
    }

    /// A self-signed certificate `name`.pem (key `name`.key) for the IP addresses `addresses`.
    func selfSigned(_ name: String, for addresses: [String]) async throws -> (certificate: String, key: String) {
        let certificate = "\(directory.path)/\(name).pem"
        let key = "\(directory.path)/\(name).key"
        try await openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=\(name)",
            "-addext", "subjectAltName=\(addresses.map { "IP:\($0)" }.joined(separator: ","))",
        ])
        return (certificate, key)
    }

    private func openssl(_ arguments: [String]) async throws {
        guard let openssl = Installed.openssl else { throw PeerFailure(description: "openssl is not installed") }
        let tool = try ChildProcess(openssl, arguments)
        let status = await tool.wait(seconds: 30)
        guard status == 0 else {
            throw PeerFailure(description: "openssl \(arguments.joined(separator: " ")) exited \(status):\n\(tool.standardError)")
        }
    }
}
