import Testing

@testable import SurveyBot
@testable import SurveyWire

@Suite struct SHA256Tests {
    /// The examples of FIPS 180-4 (NIST's "SHA256.pdf" of example values: one block, two
    /// blocks) and the empty message.
    @Test(arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ])
    func digestsMatchTheStandardsExamples(message: String, digest: String) {
        #expect(SHA256.hex(of: Array(message.utf8)) == digest)
    }

    /// FIPS 180-2's long message: a million 'a's, 15,625 blocks.
    @Test func aMillionAs() {
        #expect(
            SHA256.hex(of: Array(repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Messages whose padding falls on each side of a block's end: 55 bytes fit the length in
    /// the same block, 56 do not, 64 fill one exactly (values from `sha256sum`).
    @Test(arguments: [
        (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
    ])
    func paddingAtBlockBoundaries(length: Int, digest: String) {
        #expect(SHA256.hex(of: Array(repeating: UInt8(ascii: "a"), count: length)) == digest)
    }

    /// A message past `fastFrom` goes to OpenSSL when it is there (it is on every machine the
    /// tests run on): the same digest as the one written here, byte for byte, for lengths on
    /// either side of a block's end.
    @Test func openSSLAndTheHashWrittenHereAgree() throws {
        for length in [SHA256.fastFrom, SHA256.fastFrom + 55, SHA256.fastFrom + 64 + 7] {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
            let openSSL = try #require(message.withUnsafeBytes { OpenSSLDigest.sha256($0) })
            let here = message.withUnsafeBytes { SHA256.digest(of: $0) }
            #expect(openSSL == here, "\(length)")
            #expect(SHA256.digest(of: message) == here)
        }
    }
}
