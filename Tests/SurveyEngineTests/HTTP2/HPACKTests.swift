import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// HPACK against RFC 7541's own examples (Appendix C): integers, Huffman strings, and request
/// and response sequences through one dynamic table each, decoded and encoded byte for byte.
@Suite struct HPACKTests {
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter(\.isHexDigit))
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    static func fields(_ pairs: [(String, String)]) -> [HPACK.Field] {
        pairs.map { HPACK.Field($0.0, $0.1) }
    }

    /// C.1: 10 in a 5-bit prefix, 1337 in a 5-bit prefix, 42 at a byte's start.
    @Test func integersAreWrittenAndReadAsTheExamplesShow() throws {
        for (value, prefix, bytes) in [(10, 5, [0x0A]), (1337, 5, [0x1F, 0x9A, 0x0A]), (42, 8, [0x2A])] as [(Int, Int, [UInt8])] {
            var output: [UInt8] = []
            HPACK.appendInteger(value, prefix: prefix, flags: 0, to: &output)
            #expect(output == bytes)
            var index = 0
            #expect(try HPACK.readInteger(bytes, &index, prefix: prefix) == value && index == bytes.count)
        }
        var index = 0
        #expect(throws: HPACK.DecodingError.self) { try HPACK.readInteger([0x1F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], &index, prefix: 5) }
        index = 0
        #expect(throws: HPACK.DecodingError.self) { try HPACK.readInteger([0x1F, 0x9A], &index, prefix: 5) }
    }

    @Test func huffmanStringsRoundTripAndBadPaddingIsRefused() throws {
        var coded: [UInt8] = []
        HPACKHuffman.encode(Array("www.example.com".utf8), into: &coded)
        #expect(coded == Self.hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff"))
        #expect(try HPACKHuffman.decode(coded) == Array("www.example.com".utf8))
        for text in [[], Array("a".utf8), [0x00, 0xFF, 0x7F], Array("Una été\u{1F600}".utf8), Array(0...255)] as [[UInt8]] {
            var encoded: [UInt8] = []
            HPACKHuffman.encode(text, into: &encoded)
            #expect(encoded.count == HPACKHuffman.encodedCount(text))
            #expect(try HPACKHuffman.decode(encoded) == text)
        }
        var badPadding = coded
        badPadding[badPadding.count - 1] &= 0xFE
        #expect(throws: HPACKHuffman.Failure.invalidPadding) { try HPACKHuffman.decode(badPadding) }
        // A whole byte of padding, and the end-of-string symbol itself.
        #expect(throws: HPACKHuffman.Failure.invalidPadding) { try HPACKHuffman.decode(coded + [0xFF]) }
        #expect(throws: HPACKHuffman.Failure.invalidCode) { try HPACKHuffman.decode([0xFF, 0xFF, 0xFF, 0xFF]) }
    }

    static let requests = [
        fields([(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "www.example.com")]),
        fields([(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "www.example.com"), ("cache-control", "no-cache")]),
        fields([
            (":method", "GET"), (":scheme", "https"), (":path", "/index.html"), (":authority", "www.example.com"),
            ("custom-key", "custom-value"),
        ]),
    ]

    /// C.3 (literals as they are) and C.4 (Huffman-coded): one decoder for each sequence.
    @Test func theRequestExamplesDecodeThroughOneTable() throws {
        for blocks in [
            [
                "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d", "8286 84be 5808 6e6f 2d63 6163 6865",
                "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
            ],
            [
                "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff", "8286 84be 5886 a8eb 1064 9cbf",
                "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
            ],
        ] {
            var decoder = HPACKDecoder()
            for (block, expected) in zip(blocks, Self.requests) {
                #expect(try decoder.decode(Self.hex(block)) == expected)
            }
            #expect(decoder.table.size == 164)
            #expect(decoder.table.fields.map(\.name) == [Array("custom-key".utf8), Array("cache-control".utf8), Array(":authority".utf8)])
        }
    }

    /// C.4: the encoder writes the published blocks, Huffman where shorter.
    @Test func theEncoderWritesThePublishedRequestBlocks() {
        var encoder = HPACKEncoder()
        let expected = [
            "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff", "8286 84be 5886 a8eb 1064 9cbf",
            "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
        ]
        for (fields, block) in zip(Self.requests, expected) {
            var output: [UInt8] = []
            encoder.encode(fields, into: &output)
            #expect(output == Self.hex(block))
        }
        #expect(encoder.table.size == 164)
    }

    /// C.6: responses through a 256-byte table, which evicts.
    @Test func theResponseExamplesEvictFromASmallTable() throws {
        var decoder = HPACKDecoder(maxTableSize: 256)
        let first = try decoder.decode(
            Self.hex(
                "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3"
            ))
        #expect(
            first
                == Self.fields([
                    (":status", "302"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:21 GMT"),
                    ("location", "https://www.example.com"),
                ]))
        #expect(decoder.table.size == 222)
        let second = try decoder.decode(Self.hex("4883 640e ffc1 c0bf"))
        #expect(second.first == HPACK.Field(":status", "307") && decoder.table.size == 222)
        let third = try decoder.decode(
            Self.hex(
                "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07"
            ))
        #expect(third.count == 6)
        #expect(third[2] == HPACK.Field("date", "Mon, 21 Oct 2013 20:13:22 GMT"))
        #expect(third[4] == HPACK.Field("content-encoding", "gzip"))
        #expect(third[5] == HPACK.Field("set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"))
        #expect(decoder.table.size == 215)
    }

    @Test func aBlockThatBreaksTheRulesIsACompressionError() {
        var decoder = HPACKDecoder(maxTableSize: 4096, maxListSize: 100)
        for (block, reason) in [
            ("be", "index 62 is in neither table"), ("80", "index 0 is in neither table"),
            ("823f e11f", "a table size update after a header field"), ("3fe1 3f", "a table size update to 8192, above the 4096 allowed"),
            ("4005 6162", "a string runs past the header block's end"),
            ("0085 ffff ffff ff", "a Huffman code no byte has"),
        ] {
            #expect(throws: HPACK.DecodingError(description: reason), "\(block)") { try decoder.decode(Self.hex(block)) }
        }
        // Fields adding up to more than the list's limit.
        var big = HPACKEncoder()
        var block: [UInt8] = []
        big.encode(
            [HPACK.Field("x-a", String(repeating: "a", count: 40)), HPACK.Field("x-b", String(repeating: "b", count: 40))], into: &block)
        #expect(throws: HPACK.DecodingError(description: "header fields larger than 100 bytes in all")) {
            try decoder.decode(block)
        }
    }

    @Test func credentialsAreNeverIndexedAndASmallerTableIsAnnounced() throws {
        var encoder = HPACKEncoder()
        var block: [UInt8] = []
        encoder.encode([HPACK.Field("authorization", "Bearer t-1"), HPACK.Field("x-team", "blue")], into: &block)
        // Never indexed (0001xxxx) with the static table's name, and not in the table after.
        #expect(block.first == 0x1F && block[1] == 0x08)
        #expect(encoder.table.fields == [HPACK.Field("x-team", "blue")])
        encoder.setMaxTableSize(0)
        var next: [UInt8] = []
        encoder.encode([HPACK.Field("x-team", "blue")], into: &next)
        #expect(next.first == 0x20, "a size update to 0 first")
        #expect(encoder.table.fields.isEmpty)
        var decoder = HPACKDecoder()
        #expect(try decoder.decode(block) == [HPACK.Field("authorization", "Bearer t-1"), HPACK.Field("x-team", "blue")])
        #expect(try decoder.decode(next) == [HPACK.Field("x-team", "blue")])
        #expect(decoder.table.fields.isEmpty)
    }

    /// A request's `content-length` and `cookie` go by the static table's name, their values
    /// into no table: the same fields a lookup of both tables would have written.
    @Test func aFieldNamedByTheStaticTableDecodesAndIndexesNothing() throws {
        #expect(HPACK.staticTable[HTTP2Connection.contentLengthIndex - 1].name == Array("content-length".utf8))
        #expect(HPACK.staticTable[HTTP2Connection.cookieIndex - 1].name == Array("cookie".utf8))
        var encoder = HPACKEncoder()
        var block: [UInt8] = []
        encoder.encode(staticName: HTTP2Connection.contentLengthIndex, value: Array("42".utf8), into: &block)
        encoder.encode(staticName: HTTP2Connection.cookieIndex, value: Array("a=1; b=2".utf8), into: &block)
        var looked: [UInt8] = []
        var other = HPACKEncoder()
        other.encode(name: Array("content-length".utf8), value: Array("42".utf8), indexing: .without, into: &looked)
        other.encode(name: Array("cookie".utf8), value: Array("a=1; b=2".utf8), indexing: .without, into: &looked)
        #expect(block == looked)
        #expect(encoder.table.fields.isEmpty)
        var decoder = HPACKDecoder()
        #expect(try decoder.decode(block) == [HPACK.Field("content-length", "42"), HPACK.Field("cookie", "a=1; b=2")])
        #expect(decoder.table.fields.isEmpty)
    }
}

/// The byte comparison every field's table lookup makes, whatever collection holds the bytes.
@Suite struct HPACKSameBytesTests {
    @Test func bytesCompareByContentWhateverHoldsThem() {
        let name = Array("content-type".utf8)
        #expect(HPACK.sameBytes(name, Array("content-type".utf8)))
        #expect(HPACK.sameBytes(name, "content-type".utf8))
        #expect(HPACK.sameBytes(name, Array("xcontent-type".utf8)[1...]))
        #expect(!HPACK.sameBytes(name, Array("content-typf".utf8)))
        #expect(!HPACK.sameBytes(name, Array("content-typ".utf8)))
        #expect(HPACK.sameBytes([], [UInt8]()))
        #expect(!HPACK.sameBytes([], [0x61]))
        // Not contiguous: compared element by element.
        #expect(HPACK.sameBytes(name, "CONTENT-TYPE".utf8.lazy.map { $0 | 0x20 }))
        #expect(!HPACK.sameBytes(name, "CONTENT-TYPO".utf8.lazy.map { $0 | 0x20 }))
        #expect(HPACKEncoder.isSensitive("proxy-authorization".utf8))
        #expect(HPACKEncoder.isSensitive(Array("authorization".utf8)))
        #expect(!HPACKEncoder.isSensitive("authorization-x".utf8))
    }
}
