import Foundation
import Testing

@testable import SurveyEngine
@testable import SurveyWire

/// HPACK against other implementations' header blocks: the public hpack-test-case corpus
/// (github.com/http2jp/hpack-test-case), one story of each of eight encoders — nghttp2 (with
/// its default table, a changing table size, and a 16 KiB table), Go, Python, node, swift-nio,
/// Haskell — each a sequence of blocks through one dynamic table. Every block must decode to
/// the story's header list, in order; and this end's encoder, fed the same lists, must write
/// blocks its own decoder and the lists agree on. `Fixtures/make-hpack-cases.py` made the
/// fixture from a checkout of the corpus.
@Suite struct HPACKCorpusTests {
    struct Case {
        var story: String
        var seqno: Int
        var tableSize: Int
        var wire: [UInt8]
        var headers: [(String, String)]
    }

    static let cases: [Case] = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/hpack-test-case.txt")
        guard let text = try? String(contentsOf: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> Case? in
            guard !line.hasPrefix("#") else { return nil }
            let parts = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
            guard parts.count == 5, let seqno = Int(parts[1]), let size = Int(parts[2]),
                let pairs = try? JSONSerialization.jsonObject(with: Data(parts[4].utf8)) as? [[String]]
            else { return nil }
            return Case(
                story: String(parts[0]), seqno: seqno, tableSize: size, wire: HPACKTests.hex(String(parts[3])),
                headers: pairs.map { ($0[0], $0[1]) })
        }
    }()

    static var stories: [String] { Array(Set(cases.map(\.story))).sorted() }

    /// nginx sends `server`, `content-type` and `date` as new table entries in every response,
    /// the same bytes each time: decoded once and remembered, each block still adds its entry,
    /// and a name taken from the dynamic table (which moves) is never remembered by its index.
    @Test func aRepeatedIndexedLiteralDecodesAlikeAndStillEntersTheTable() throws {
        var encoder = HPACKEncoder()
        var wire: [UInt8] = []
        encoder.encode([HPACK.Field("server", "nginx/1.22.1")], into: &wire)
        // Literal with incremental indexing, name 54 (`server`) from the static table.
        #expect(wire.first == UInt8(0x40 | 54))
        var decoder = HPACKDecoder()
        for round in 1...3 {
            let fields = try decoder.decode(wire)
            #expect(fields == [HPACK.Field("server", "nginx/1.22.1")])
            #expect(decoder.table.fields.count == round)
        }
        // `x-a: 1` enters the table; a literal naming dynamic index 62 then names `x-a` — and
        // after `x-b` enters, the same bytes name `x-b`.
        var literalNamedByTable: [UInt8] = [0x40 | 62]
        HPACK.appendString(Array("v".utf8), to: &literalNamedByTable)
        var second = HPACKDecoder()
        _ = try second.decode([0x40, 0x03] + Array("x-a".utf8) + [0x01] + Array("1".utf8))
        #expect(try second.decode(literalNamedByTable) == [HPACK.Field("x-a", "v")])
        _ = try second.decode([0x40, 0x03] + Array("x-b".utf8) + [0x01] + Array("2".utf8))
        #expect(try second.decode(literalNamedByTable) == [HPACK.Field("x-b", "v")])
    }

    /// A whole block sent again (nginx's responses, alike until the second changes) is
    /// remembered: decoded again it gives the same fields, enters the table again, and a value
    /// skipped the first time (unwanted) is read when a later caller wants it. A block that
    /// names a dynamic entry (which moves) is read anew each time.
    @Test func aRepeatedBlockDecodesAlikeAndStillEntersTheTable() throws {
        var encoder = HPACKEncoder()
        var wire: [UInt8] = [0x88]  // `:status 200`, indexed
        encoder.encode(name: Array("server".utf8), value: Array("nginx".utf8), indexing: .incremental, into: &wire)
        encoder.encode(name: Array("etag".utf8), value: Array("\"abc\"".utf8), indexing: .without, into: &wire)
        var decoder = HPACKDecoder()
        let status = Array(":status".utf8)
        let all = [HPACK.Field(":status", "200"), HPACK.Field("server", "nginx"), HPACK.Field("etag", "\"abc\"")]
        for round in 1...3 {
            var fields: [HPACK.Field] = []
            try decoder.decode(wire, wanting: { $0 == status }) { fields.append($0) }
            #expect(fields == [HPACK.Field(":status", "200")], "round \(round)")
            #expect(decoder.table.fields == Array(repeating: HPACK.Field("server", "nginx"), count: round))
        }
        #expect(try decoder.decode(wire) == all)
        #expect(try decoder.decode(wire) == all)
        #expect(decoder.table.fields.count == 5)
        // Index 62, the newest dynamic entry: what it names changes as entries come.
        var moving = HPACKDecoder()
        _ = try moving.decode([0x40, 0x03] + Array("x-a".utf8) + [0x01] + Array("1".utf8))
        #expect(try moving.decode([0xBE]) == [HPACK.Field("x-a", "1")])
        _ = try moving.decode([0x40, 0x03] + Array("x-b".utf8) + [0x01] + Array("2".utf8))
        #expect(try moving.decode([0xBE]) == [HPACK.Field("x-b", "2")])
    }

    /// A caller that names its wishes (`wantsKey`) is asked them once per remembered block: the
    /// same key again gets the fields chosen then, another key is asked anew, and every block
    /// still enters the table.
    @Test func aNamedWishIsAskedOncePerRememberedBlock() throws {
        var encoder = HPACKEncoder()
        var wire: [UInt8] = [0x88]  // `:status 200`, indexed
        encoder.encode(name: Array("server".utf8), value: Array("nginx".utf8), indexing: .incremental, into: &wire)
        var decoder = HPACKDecoder()
        let status = Array(":status".utf8)
        let server = Array("server".utf8)
        var asked = 0
        func decode(_ key: Int, wanting name: [UInt8]) throws -> [HPACK.Field] {
            var fields: [HPACK.Field] = []
            try decoder.decode(
                wire[...], wantsKey: key,
                wanting: {
                    asked += 1
                    return $0 == name
                }
            ) { fields.append($0) }
            return fields
        }
        #expect(try decode(1, wanting: status) == [HPACK.Field(":status", "200")])
        asked = 0
        #expect(try decode(1, wanting: status) == [HPACK.Field(":status", "200")])
        #expect(asked == 0, "the same key is not asked again, from the first read of the block on")
        #expect(try decode(2, wanting: server) == [HPACK.Field("server", "nginx")])
        #expect(asked == 2, "another key is asked of each field")
        #expect(decoder.table.fields == Array(repeating: HPACK.Field("server", "nginx"), count: 3))
    }

    @Test func theFixtureHoldsEveryEncodersStory() {
        #expect(Self.stories.count == 8)
        #expect(Self.cases.count == 570)
    }

    @Test(arguments: stories)
    func decodesEveryBlockOfTheStory(_ story: String) throws {
        let cases = Self.cases.filter { $0.story == story }
        var decoder = HPACKDecoder(maxTableSize: cases.first?.tableSize ?? 4096, maxListSize: 1 << 20)
        for item in cases {
            decoder.maxTableSize = item.tableSize
            let fields = try decoder.decode(item.wire)
            let decoded = fields.map { (String(decoding: $0.name, as: UTF8.self), String(decoding: $0.value, as: UTF8.self)) }
            #expect(decoded.map(\.0) == item.headers.map(\.0), "\(story) case \(item.seqno)")
            #expect(decoded.map(\.1) == item.headers.map(\.1), "\(story) case \(item.seqno)")
            if decoded.map(\.0) != item.headers.map(\.0) || decoded.map(\.1) != item.headers.map(\.1) { break }
        }
    }

    /// The story's lists through this end's encoder, field by field as requests are written, and
    /// back through a decoder of its own: what an HTTP/2 server reading survey-bot's requests sees.
    @Test(arguments: stories)
    func encodesEveryListOfTheStoryBackToItself(_ story: String) throws {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder(maxListSize: 1 << 20)
        for item in Self.cases.filter({ $0.story == story }) {
            var block: [UInt8] = []
            encoder.beginBlock(into: &block)
            for (name, value) in item.headers {
                encoder.encode(
                    name: Array(name.utf8), value: Array(value.utf8), indexing: name == ":path" ? .without : .incremental, into: &block)
            }
            let decoded = try decoder.decode(block).map {
                (String(decoding: $0.name, as: UTF8.self), String(decoding: $0.value, as: UTF8.self))
            }
            #expect(decoded.map(\.0) == item.headers.map(\.0), "\(story) case \(item.seqno)")
            #expect(decoded.map(\.1) == item.headers.map(\.1), "\(story) case \(item.seqno)")
        }
    }
}
