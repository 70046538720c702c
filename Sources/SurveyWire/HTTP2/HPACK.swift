#if canImport(Glibc)
    import Glibc
#endif

/// HPACK, HTTP/2's header compression (RFC 7541): a header field is an index into a table both
/// ends keep — the static table of common fields, and a dynamic table of fields sent before —
/// or a literal name and value, each optionally Huffman-coded.
enum HPACK {
    /// Whether `bytes` are `array`'s bytes: by length, then one `memcmp` where `bytes` are
    /// contiguous (an array, a slice, a buffer, a native string's UTF-8) — every field of every
    /// request is compared so with the tables' entries, and `elementsEqual`'s iterators were the
    /// encoder's largest cost.
    @inline(__always)
    static func sameBytes(_ array: [UInt8], _ bytes: some Collection<UInt8>) -> Bool {
        guard array.count == bytes.count else { return false }
        let compared = bytes.withContiguousStorageIfAvailable { other in
            array.withUnsafeBufferPointer { mine in
                guard let mine = mine.baseAddress, let other = other.baseAddress else { return true }
                return memcmp(mine, other, array.count) == 0
            }
        }
        return compared ?? array.elementsEqual(bytes)
    }

    /// A header field: a name (lowercase in HTTP/2) and its value, as bytes.
    struct Field: Sendable, Hashable {
        var name: [UInt8]
        var value: [UInt8]

        init(_ name: [UInt8], _ value: [UInt8]) {
            self.name = name
            self.value = value
        }

        init(_ name: String, _ value: String) {
            self.init(Array(name.utf8), Array(value.utf8))
        }

        /// What it counts for in a table: its bytes and 32 more (§4.1).
        var size: Int { name.count + value.count + 32 }
    }

    /// The static table (Appendix A): index 1 is the first.
    static let staticTable: [Field] = [
        (":authority", ""), (":method", "GET"), (":method", "POST"), (":path", "/"), (":path", "/index.html"),
        (":scheme", "http"), (":scheme", "https"), (":status", "200"), (":status", "204"), (":status", "206"),
        (":status", "304"), (":status", "400"), (":status", "404"), (":status", "500"), ("accept-charset", ""),
        ("accept-encoding", "gzip, deflate"), ("accept-language", ""), ("accept-ranges", ""), ("accept", ""),
        ("access-control-allow-origin", ""), ("age", ""), ("allow", ""), ("authorization", ""), ("cache-control", ""),
        ("content-disposition", ""), ("content-encoding", ""), ("content-language", ""), ("content-length", ""),
        ("content-location", ""), ("content-range", ""), ("content-type", ""), ("cookie", ""), ("date", ""), ("etag", ""),
        ("expect", ""), ("expires", ""), ("from", ""), ("host", ""), ("if-match", ""), ("if-modified-since", ""),
        ("if-none-match", ""), ("if-range", ""), ("if-unmodified-since", ""), ("last-modified", ""), ("link", ""),
        ("location", ""), ("max-forwards", ""), ("proxy-authenticate", ""), ("proxy-authorization", ""), ("range", ""),
        ("referer", ""), ("refresh", ""), ("retry-after", ""), ("server", ""), ("set-cookie", ""),
        ("strict-transport-security", ""), ("transfer-encoding", ""), ("user-agent", ""), ("vary", ""), ("via", ""),
        ("www-authenticate", ""),
    ].map { Field($0.0, $0.1) }

    /// The dynamic table (§2.3.2): the newest field first, evicted oldest first so that the
    /// fields' sizes stay within `maxSize`.
    struct DynamicTable: Sendable {
        private(set) var fields: [Field] = []
        /// The fields' sizes added up.
        private(set) var size = 0
        /// The most `size` may be: the size the peer's last table size update set.
        private(set) var maxSize: Int
        /// How many times the table changed (a field added, a size set): an encoding made against
        /// it holds while this stays the same (`HTTP2Connection.EncodedHeads`).
        private(set) var changes = 0

        init(maxSize: Int) {
            self.maxSize = maxSize
        }

        /// Adds `field`, evicting what no longer fits; a field larger than the table empties it.
        mutating func add(_ field: Field) {
            changes &+= 1
            evict(toFit: field.size)
            guard field.size <= maxSize else { return }
            fields.insert(field, at: 0)
            size += field.size
        }

        /// Sets the table's largest size, evicting what no longer fits.
        mutating func resize(_ newMax: Int) {
            changes &+= 1
            maxSize = newMax
            evict(toFit: 0)
        }

        private mutating func evict(toFit extra: Int) {
            while !fields.isEmpty, size + extra > maxSize {
                size -= fields.removeLast().size
            }
        }
    }

    /// Why a header block cannot be read: the connection's compression state is lost with it, a
    /// connection error of type COMPRESSION_ERROR (RFC 9113 §4.3).
    struct DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        var description: String
    }

    /// Appends `value` as an integer with an `prefix`-bit prefix (§5.1), the first byte's other
    /// bits `flags`.
    static func appendInteger(_ value: Int, prefix: Int, flags: UInt8, to output: inout [UInt8]) {
        let limit = (1 << prefix) - 1
        if value < limit {
            output.append(flags | UInt8(value))
            return
        }
        output.append(flags | UInt8(limit))
        var rest = value - limit
        while rest >= 128 {
            output.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        output.append(UInt8(rest))
    }

    /// Reads an integer with a `prefix`-bit prefix at `index`, moving it past the integer.
    static func readInteger(_ bytes: [UInt8], _ index: inout Int, prefix: Int) throws(DecodingError) -> Int {
        guard index < bytes.count else { throw DecodingError(description: "a header block ends inside an integer") }
        let limit = (1 << prefix) - 1
        var value = Int(bytes[index]) & limit
        index += 1
        guard value == limit else { return value }
        var shift = 0
        while true {
            guard index < bytes.count else { throw DecodingError(description: "a header block ends inside an integer") }
            let byte = bytes[index]
            index += 1
            // No integer here is legitimately larger than 2^28: a longer one is an attack.
            guard shift <= 21 else { throw DecodingError(description: "an integer longer than any header block needs") }
            value += Int(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 { return value }
        }
    }

    /// Appends a string literal (§5.2): Huffman-coded when that is shorter.
    static func appendString(_ bytes: some Collection<UInt8>, to output: inout [UInt8]) {
        let coded = HPACKHuffman.encodedCount(bytes)
        if coded < bytes.count {
            appendInteger(coded, prefix: 7, flags: 0x80, to: &output)
            HPACKHuffman.encode(bytes, into: &output)
        } else {
            appendInteger(bytes.count, prefix: 7, flags: 0, to: &output)
            output.append(contentsOf: bytes)
        }
    }

    /// Reads a string literal at `index`, no longer than `limit` bytes once decoded.
    static func readString(_ bytes: [UInt8], _ index: inout Int, limit: Int) throws(DecodingError) -> [UInt8] {
        guard index < bytes.count else { throw DecodingError(description: "a header block ends before a string") }
        let huffman = bytes[index] & 0x80 != 0
        let length = try readInteger(bytes, &index, prefix: 7)
        guard length <= bytes.count - index else { throw DecodingError(description: "a string runs past the header block's end") }
        let raw = bytes[index..<(index + length)]
        index += length
        guard huffman else {
            guard length <= limit else { throw DecodingError(description: "a header field larger than \(limit) bytes") }
            return Array(raw)
        }
        let decoded: [UInt8]
        do throws(HPACKHuffman.Failure) {
            decoded = try HPACKHuffman.decode(raw)
        } catch {
            throw DecodingError(description: error == .invalidCode ? "a Huffman code no byte has" : "a Huffman string's padding is wrong")
        }
        guard decoded.count <= limit else { throw DecodingError(description: "a header field larger than \(limit) bytes") }
        return decoded
    }
}

/// Writes the header blocks of one direction of a connection, keeping its dynamic table.
struct HPACKEncoder: Sendable {
    private(set) var table: HPACK.DynamicTable
    /// A table size the peer allowed, still to be announced at the next block's start.
    private var pendingSize: Int?

    init(maxTableSize: Int = 4096) {
        table = HPACK.DynamicTable(maxSize: maxTableSize)
    }

    /// Uses a table of at most `size` bytes from the next block on (the peer's
    /// SETTINGS_HEADER_TABLE_SIZE, or less).
    mutating func setMaxTableSize(_ size: Int) {
        guard size != table.maxSize else { return }
        pendingSize = size
    }

    private static let authorizationName = Array("authorization".utf8)
    private static let proxyAuthorizationName = Array("proxy-authorization".utf8)

    /// Fields whose values are never put in a table (§7.1.3): a credential a proxy could probe.
    static func isSensitive(_ name: some Collection<UInt8>) -> Bool {
        HPACK.sameBytes(authorizationName, name) || HPACK.sameBytes(proxyAuthorizationName, name)
    }

    /// Appends the header block of `fields` to `output`.
    mutating func encode(_ fields: [HPACK.Field], into output: inout [UInt8]) {
        if let size = pendingSize {
            table.resize(size)
            HPACK.appendInteger(size, prefix: 5, flags: 0x20, to: &output)
            pendingSize = nil
        }
        for field in fields {
            var nameIndex = 0
            if let exact = index(of: field, nameOnly: false) {
                HPACK.appendInteger(exact, prefix: 7, flags: 0x80, to: &output)
                continue
            }
            nameIndex = index(of: field, nameOnly: true) ?? 0
            if Self.isSensitive(field.name) {
                HPACK.appendInteger(nameIndex, prefix: 4, flags: 0x10, to: &output)
            } else {
                HPACK.appendInteger(nameIndex, prefix: 6, flags: 0x40, to: &output)
                table.add(field)
            }
            if nameIndex == 0 { HPACK.appendString(field.name, to: &output) }
            HPACK.appendString(field.value, to: &output)
        }
    }

    /// How a field goes into a header block.
    enum Indexing {
        /// Into the dynamic table, for the next requests to name by its index.
        case incremental
        /// Not into any table: a value that changes from request to request (a path, a length),
        /// which would only push the fields that repeat out of the table.
        case without
    }

    /// Appends one field to the block being written, its name in lower case already, without
    /// making a `Field` unless it goes into the dynamic table. Call `beginBlock` first.
    mutating func encode(name: some Collection<UInt8>, value: some Collection<UInt8>, indexing: Indexing, into output: inout [UInt8]) {
        var nameIndex = 0
        if name.count < Self.staticByLength.count {
            for position in Self.staticByLength[name.count] where HPACK.sameBytes(HPACK.staticTable[position].name, name) {
                if HPACK.sameBytes(HPACK.staticTable[position].value, value) {
                    HPACK.appendInteger(position + 1, prefix: 7, flags: 0x80, to: &output)
                    return
                }
                if nameIndex == 0 { nameIndex = position + 1 }
            }
        }
        for position in table.fields.indices where table.fields[position].name.count == name.count {
            guard HPACK.sameBytes(table.fields[position].name, name) else { continue }
            if HPACK.sameBytes(table.fields[position].value, value) {
                HPACK.appendInteger(HPACK.staticTable.count + position + 1, prefix: 7, flags: 0x80, to: &output)
                return
            }
            if nameIndex == 0 { nameIndex = HPACK.staticTable.count + position + 1 }
        }
        let sensitive = Self.isSensitive(name)
        if sensitive {
            HPACK.appendInteger(nameIndex, prefix: 4, flags: 0x10, to: &output)
        } else if indexing == .without {
            HPACK.appendInteger(nameIndex, prefix: 4, flags: 0x00, to: &output)
        } else {
            HPACK.appendInteger(nameIndex, prefix: 6, flags: 0x40, to: &output)
            table.add(HPACK.Field(Array(name), Array(value)))
        }
        if nameIndex == 0 { HPACK.appendString(name, to: &output) }
        HPACK.appendString(value, to: &output)
    }

    /// Appends a field named by the static table's entry `staticName` (1-based), its value a
    /// literal that goes into no table: a value that changes from request to request (a body's
    /// length, the cookies) needs neither table looked up, as it is never in either.
    mutating func encode(staticName: Int, value: some Collection<UInt8>, into output: inout [UInt8]) {
        HPACK.appendInteger(staticName, prefix: 4, flags: 0x00, to: &output)
        HPACK.appendString(value, to: &output)
    }

    /// Starts a header block: the table size update the peer's SETTINGS call for, if any.
    mutating func beginBlock(into output: inout [UInt8]) {
        if let size = pendingSize {
            table.resize(size)
            HPACK.appendInteger(size, prefix: 5, flags: 0x20, to: &output)
            pendingSize = nil
        }
    }

    /// The static table's positions by the length of their names.
    /// An array, not a dictionary: every field of every request looks its name up here, and
    /// hashing the length cost more than the comparisons it saves.
    private static let staticByLength: [[Int]] = {
        let longest = HPACK.staticTable.map(\.name.count).max() ?? 0
        var positions = Array(repeating: [Int](), count: longest + 1)
        for position in HPACK.staticTable.indices { positions[HPACK.staticTable[position].name.count].append(position) }
        return positions
    }()

    /// The index of `field` in the static table then the dynamic one; with `nameOnly`, of a
    /// field of its name.
    private func index(of field: HPACK.Field, nameOnly: Bool) -> Int? {
        if let position = HPACK.staticTable.firstIndex(where: { $0.name == field.name && (nameOnly || $0.value == field.value) }) {
            return position + 1
        }
        if let position = table.fields.firstIndex(where: { $0.name == field.name && (nameOnly || $0.value == field.value) }) {
            return HPACK.staticTable.count + position + 1
        }
        return nil
    }
}
