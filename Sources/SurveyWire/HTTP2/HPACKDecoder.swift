/// Reads the header blocks of one direction of a connection, keeping its dynamic table.
///
/// A server sends the same block again and again — nginx every response's `server`, `date`,
/// `content-type` and `content-length` as new table entries, the same bytes until the second
/// changes —, and a block that names no entry of the dynamic table decodes to the same fields
/// whatever the table holds. Such a block is remembered with its fields (`DecodedBlock`); the
/// same bytes again are not read, its fields go into the table and to the caller as the first
/// time.
struct HPACKDecoder: Sendable {
    private(set) var table: HPACK.DynamicTable
    /// The largest table the peer may ask for: what this end's SETTINGS_HEADER_TABLE_SIZE said.
    var maxTableSize: Int
    /// The most bytes the fields of one block may add up to (names, values and 32 each), like
    /// SETTINGS_MAX_HEADER_LIST_SIZE: a response's headers cannot grow without bound.
    var maxListSize: Int
    /// The last fields added to the table with their value as it came on the wire: a server that
    /// sends every response's `server`, `content-type` and `date` as new table entries (nginx
    /// does) sends the same bytes again and again, which need not be decoded each time.
    private var recent: [(nameIndex: Int, wire: [UInt8], field: HPACK.Field)] = []
    private var recentNext = 0
    private static let recentCount = 8

    /// A header block read before that named no entry of the dynamic table and set no table
    /// size: its fields are its bytes' alone.
    private struct DecodedBlock: Sendable {
        let wire: [UInt8]
        /// Its fields in order.
        let fields: [DecodedField]
        /// Its fields whose values were skipped, a bit each by position: a caller that wants one
        /// has the block read again.
        let skipped: UInt64
        /// What its fields add up to against `maxListSize`.
        let listSize: Int
        /// The fields the last caller that named its wishes (`wantsKey`) wanted, a bit each by
        /// position, and that key: the same caller again is not asked field by field.
        var wantedKey: Int?
        var wanted: UInt64 = 0

        init(wire: [UInt8], fields: [DecodedField], listSize: Int, wantedKey: Int?) {
            self.wire = wire
            self.fields = fields
            var skipped: UInt64 = 0
            for position in fields.indices where fields[position].skipped { skipped |= 1 << position }
            self.skipped = skipped
            self.listSize = listSize
            self.wantedKey = wantedKey
            for position in fields.indices where fields[position].wanted { wanted |= 1 << position }
        }
    }

    /// A field of a `DecodedBlock`: whether it went into the table (`adds`), and whether its
    /// value was skipped, unwanted then (`skipped`: its `field` has its name alone).
    private struct DecodedField: Sendable {
        let field: HPACK.Field
        let adds: Bool
        let skipped: Bool
        /// Whether the caller that read it wanted it.
        let wanted: Bool
    }

    private var decodedBlocks: [DecodedBlock] = []
    private var decodedNext = 0
    /// A server's few kinds of response, each until its `date` changes.
    private static let decodedCount = 4
    /// The longest block remembered: a response's usual fields, not a large cookie's.
    private static let decodedMaxBytes = 512
    /// The most fields of a block remembered: a bit each in `DecodedBlock.wanted`.
    private static let decodedMaxFields = 64

    init(maxTableSize: Int = 4096, maxListSize: Int = 64 << 10) {
        table = HPACK.DynamicTable(maxSize: maxTableSize)
        self.maxTableSize = maxTableSize
        self.maxListSize = maxListSize
    }

    /// The fields of a whole header block (a HEADERS frame's and its CONTINUATIONs' fragments).
    mutating func decode(_ block: [UInt8]) throws(HPACK.DecodingError) -> [HPACK.Field] {
        var fields: [HPACK.Field] = []
        try decode(block) { fields.append($0) }
        return fields
    }

    /// Hands each field of a whole header block to `visit`, in order, without gathering them:
    /// a response whose fields nobody keeps costs no list.
    mutating func decode(_ block: [UInt8], _ visit: (HPACK.Field) -> Void) throws(HPACK.DecodingError) {
        try decode(block, wantsKey: Self.everyField, wanting: { _ in true }, visit)
    }

    /// Hands `visit` the fields whose names `wants`; a field that goes into no table and whose
    /// name is not wanted has its value skipped, not decoded (a response's `date` and `server`,
    /// which a request that keeps no headers never reads). The table still sees every field.
    mutating func decode(_ block: [UInt8], wanting wants: ([UInt8]) -> Bool, _ visit: (HPACK.Field) -> Void)
        throws(HPACK.DecodingError)
    {
        try decode(block, wantsKey: nil, wanting: wants, visit)
    }

    /// `decode(_:wanting:_:)` with `wants` named by `wantsKey` (nil: unnamed): a block read
    /// before asks `wants` nothing when its last caller gave the same key, but hands `visit`
    /// the fields `wants` chose then. One key, one `wants`, always.
    mutating func decode(_ block: [UInt8], wantsKey: Int?, wanting wants: ([UInt8]) -> Bool, _ visit: (HPACK.Field) -> Void)
        throws(HPACK.DecodingError)
    {
        if try replayed(block, wantsKey: wantsKey, wanting: wants, visit) { return }
        try read(block, wantsKey: wantsKey, wanting: wants, visit)
    }

    /// `decode(_:wantsKey:wanting:_:)` of a block that lies in the bytes of a frame: copied
    /// into an array of its own only when it is not one read before.
    mutating func decode(_ block: ArraySlice<UInt8>, wantsKey: Int?, wanting wants: ([UInt8]) -> Bool, _ visit: (HPACK.Field) -> Void)
        throws(HPACK.DecodingError)
    {
        if try replayed(block, wantsKey: wantsKey, wanting: wants, visit) { return }
        try read(Array(block), wantsKey: wantsKey, wanting: wants, visit)
    }

    /// The key of a `wants` that wants every field.
    static let everyField = -1

    /// Replays `block` when it was read before and can be (`replay`); false when it must be read.
    private mutating func replayed(
        _ block: some Collection<UInt8>, wantsKey: Int?, wanting wants: ([UInt8]) -> Bool, _ visit: (HPACK.Field) -> Void
    ) throws(HPACK.DecodingError) -> Bool {
        for position in decodedBlocks.indices where HPACK.sameBytes(decodedBlocks[position].wire, block) {
            let wanted: UInt64
            if let wantsKey, decodedBlocks[position].wantedKey == wantsKey {
                wanted = decodedBlocks[position].wanted
            } else {
                wanted = Self.wanted(decodedBlocks[position].fields, wantsKey: wantsKey, wanting: wants)
                decodedBlocks[position].wantedKey = wantsKey
                decodedBlocks[position].wanted = wanted
            }
            if try replay(at: position, wanted: wanted, visit) { return true }
            // A value skipped then is wanted now: read again, and remembered as read now.
            decodedBlocks.remove(at: position)
            decodedNext = 0
            break
        }
        return false
    }

    /// Reads a block not replayed, and remembers it when it can be replayed.
    private mutating func read(_ block: [UInt8], wantsKey: Int?, wanting wants: ([UInt8]) -> Bool, _ visit: (HPACK.Field) -> Void)
        throws(HPACK.DecodingError)
    {
        var recorded: [DecodedField] = []
        var remembers = block.count <= Self.decodedMaxBytes
        // A response's fields, at once: appended one by one, the list would grow three times.
        if remembers { recorded.reserveCapacity(8) }
        let listSize = try read(block, wanting: wants, visit, recording: &recorded, remembers: &remembers)
        guard remembers, recorded.count <= Self.decodedMaxFields else { return }
        let decoded = DecodedBlock(wire: block, fields: recorded, listSize: listSize, wantedKey: wantsKey)
        if decodedBlocks.count < Self.decodedCount {
            decodedBlocks.append(decoded)
        } else {
            decodedBlocks[decodedNext] = decoded
            decodedNext = (decodedNext + 1) % Self.decodedCount
        }
    }

    /// The fields of a remembered block `wants` chooses, a bit each by position.
    private static func wanted(_ fields: [DecodedField], wantsKey: Int?, wanting wants: ([UInt8]) -> Bool) -> UInt64 {
        if wantsKey == everyField { return fields.count == 64 ? .max : (1 << fields.count) - 1 }
        var wanted: UInt64 = 0
        for position in fields.indices where wants(fields[position].field.name) { wanted |= 1 << position }
        return wanted
    }

    /// The block at `position` of `decodedBlocks`, again: its fields into the table, and the
    /// `wanted` ones to `visit`. False, with nothing done, when a value skipped then is wanted
    /// now. The block is read where it lies: a copy of it, or of each field, costs a retain and a
    /// release of each array in it, some twenty a response.
    private mutating func replay(at position: Int, wanted: UInt64, _ visit: (HPACK.Field) -> Void) throws(HPACK.DecodingError)
        -> Bool
    {
        if wanted & decodedBlocks[position].skipped != 0 { return false }
        guard decodedBlocks[position].listSize <= maxListSize else {
            throw HPACK.DecodingError(description: "header fields larger than \(maxListSize) bytes in all")
        }
        for index in 0..<decodedBlocks[position].fields.count {
            if decodedBlocks[position].fields[index].adds { table.add(decodedBlocks[position].fields[index].field) }
            if wanted & (1 << index) != 0 { visit(decodedBlocks[position].fields[index].field) }
        }
        return true
    }

    /// Reads a block field by field (`decode`), recording each into `recorded` while
    /// `remembers`: it stops remembering at a field that depends on the dynamic table (an index
    /// into it, or a size update). What the fields add up to.
    private mutating func read(
        _ block: [UInt8], wanting wants: ([UInt8]) -> Bool, _ visit: (HPACK.Field) -> Void, recording recorded: inout [DecodedField],
        remembers: inout Bool
    ) throws(HPACK.DecodingError) -> Int {
        let statics = HPACK.staticTable.count
        var index = 0
        var listSize = 0
        var fieldSeen = false
        while index < block.count {
            let first = block[index]
            let field: HPACK.Field
            var adds = false
            if first & 0x80 != 0 {
                // Indexed (§6.1).
                let position = try HPACK.readInteger(block, &index, prefix: 7)
                if position > statics { remembers = false }
                field = try entry(position)
            } else if first & 0xC0 == 0x40 {
                // Literal with incremental indexing (§6.2.1); a name from the dynamic table has
                // an index past the static table's, or a prefix of all ones.
                if Int(first & 0x3F) > statics { remembers = false }
                field = try indexedLiteral(block, &index)
                table.add(field)
                adds = true
            } else if first & 0xE0 == 0x20 {
                // Dynamic table size update (§6.3): only before the block's first field.
                guard !fieldSeen else { throw HPACK.DecodingError(description: "a table size update after a header field") }
                let size = try HPACK.readInteger(block, &index, prefix: 5)
                guard size <= maxTableSize else {
                    throw HPACK.DecodingError(description: "a table size update to \(size), above the \(maxTableSize) allowed")
                }
                table.resize(size)
                remembers = false
                continue
            } else {
                // Literal without indexing, or never indexed (§6.2.2, §6.2.3).
                let nameIndex = try HPACK.readInteger(block, &index, prefix: 4)
                if nameIndex > statics { remembers = false }
                let name = nameIndex == 0 ? try HPACK.readString(block, &index, limit: maxListSize) : try entry(nameIndex).name
                if !wants(name) {
                    guard index < block.count else { throw HPACK.DecodingError(description: "a header block ends before a string") }
                    let length = try HPACK.readInteger(block, &index, prefix: 7)
                    guard length <= block.count - index else {
                        throw HPACK.DecodingError(description: "a string runs past the header block's end")
                    }
                    index += length
                    fieldSeen = true
                    listSize += name.count + length + 32
                    guard listSize <= maxListSize else {
                        throw HPACK.DecodingError(description: "header fields larger than \(maxListSize) bytes in all")
                    }
                    if remembers { recorded.append(DecodedField(field: HPACK.Field(name, []), adds: false, skipped: true, wanted: false)) }
                    continue
                }
                field = HPACK.Field(name, try HPACK.readString(block, &index, limit: maxListSize))
            }
            fieldSeen = true
            listSize += field.size
            guard listSize <= maxListSize else {
                throw HPACK.DecodingError(description: "header fields larger than \(maxListSize) bytes in all")
            }
            let wanted = wants(field.name)
            if remembers { recorded.append(DecodedField(field: field, adds: adds, skipped: false, wanted: wanted)) }
            if wanted { visit(field) }
        }
        return listSize
    }

    /// The field at `index` of the static table then the dynamic one.
    private func entry(_ index: Int) throws(HPACK.DecodingError) -> HPACK.Field {
        let statics = HPACK.staticTable.count
        if index >= 1 && index <= statics { return HPACK.staticTable[index - 1] }
        guard index > statics, index - statics <= table.fields.count else {
            throw HPACK.DecodingError(description: "index \(index) is in neither table")
        }
        return table.fields[index - statics - 1]
    }

    /// A literal with incremental indexing: the field decoded before from the same name index
    /// and the same bytes on the wire when there is one, else decoded now and remembered.
    private mutating func indexedLiteral(_ block: [UInt8], _ index: inout Int) throws(HPACK.DecodingError) -> HPACK.Field {
        var at = index
        let nameIndex = try HPACK.readInteger(block, &at, prefix: 6)
        // A name from the static table only: a dynamic index names another field as the table moves.
        guard nameIndex != 0, nameIndex <= HPACK.staticTable.count, at < block.count else { return try literal(block, &index, prefix: 6) }
        let valueStart = at
        let length = try HPACK.readInteger(block, &at, prefix: 7)
        guard length <= block.count - at else { throw HPACK.DecodingError(description: "a string runs past the header block's end") }
        let wire = block[valueStart..<(at + length)]
        // By position, not `for entry in recent`: each entry copied out would retain and release
        // its three arrays, for the one of them compared.
        for position in recent.indices
        where recent[position].nameIndex == nameIndex && HPACK.sameBytes(recent[position].wire, wire) {
            index = at + length
            return recent[position].field
        }
        let field = try literal(block, &index, prefix: 6)
        let remembered = (nameIndex, Array(wire), field)
        if recent.count < Self.recentCount {
            recent.append(remembered)
        } else {
            recent[recentNext] = remembered
            recentNext = (recentNext + 1) % Self.recentCount
        }
        return field
    }

    private func literal(_ block: [UInt8], _ index: inout Int, prefix: Int) throws(HPACK.DecodingError) -> HPACK.Field {
        let nameIndex = try HPACK.readInteger(block, &index, prefix: prefix)
        let name = nameIndex == 0 ? try HPACK.readString(block, &index, limit: maxListSize) : try entry(nameIndex).name
        let value = try HPACK.readString(block, &index, limit: maxListSize)
        return HPACK.Field(name, value)
    }
}
