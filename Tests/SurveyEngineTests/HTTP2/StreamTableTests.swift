import Testing

@testable import SurveyWire

/// The streams of a connection by id: every lookup, change and removal agrees with a
/// dictionary's, whether the ids open at once fit the slots or one stream outlives many others
/// (its slot taken by a later one, found beside the slots, and given its slot back).
@Suite struct StreamTableTests {
    /// The table's streams as a dictionary.
    func contents<Value>(_ table: StreamTable<Value>) -> [UInt32: Value] {
        var contents: [UInt32: Value] = [:]
        for (key, value) in table { contents[key] = value }
        return contents
    }

    @Test func aStreamIsStoredFoundChangedInPlaceAndRemoved() {
        var table = StreamTable<String>()
        #expect(table.isEmpty)
        #expect(table.index(forKey: 1) == nil)
        table.insert("one", for: 1)
        table[3] = "three"
        #expect(table.count == 2)
        #expect(table[1] == "one")
        let index = table.index(forKey: 3)!
        table[at: index] += "!"
        #expect(table[3] == "three!")
        table[1] = "uno"
        #expect(table.count == 2)
        #expect(table.removeValue(forKey: 1) == "uno")
        #expect(table.removeValue(forKey: 1) == nil)
        table[3] = nil
        #expect(table.isEmpty)
        #expect(table[3] == nil)
    }

    /// One stream stays open while a hundred others come and go, more than the slots: each
    /// later stream whose slot it holds is found beside the slots, and takes its slot once the
    /// old one leaves.
    @Test func aStreamThatOutlivesOthersSharesItsSlot() {
        var table = StreamTable<String>()
        table[1] = "long"
        var id: UInt32 = 3
        while id < 203 {
            table[id] = "short \(id)"
            table[id + 2] = "short \(id + 2)"
            #expect(table[1] == "long")
            #expect(table[id] == "short \(id)")
            #expect(table.removeValue(forKey: id) == "short \(id)")
            #expect(table[id + 2] == "short \(id + 2)")
            #expect(table.removeValue(forKey: id + 2) == "short \(id + 2)")
            id += 4
        }
        // Eight slots now: stream 209 belongs in stream 1's, and takes it when stream 1 leaves.
        table[209] = "209"
        table[211] = "211"
        #expect(table.removeValue(forKey: 1) == "long")
        #expect(table[209] == "209")
        table[225] = "225"
        #expect(table.removeValue(forKey: 209) == "209")
        #expect(contents(table) == [211: "211", 225: "225"])
    }

    /// Random opening and closing of streams, the way a connection's come and go, against a
    /// dictionary doing the same.
    @Test func randomOpeningAndClosingAgreesWithADictionary() {
        var generator = SplitMix64(seed: 37)
        var table = StreamTable<Int>()
        var model: [UInt32: Int] = [:]
        var next: UInt32 = 1
        for step in 0..<20_000 {
            let open = Array(model.keys)
            switch generator.next() % 10 {
            case 0...4 where model.count < 120:
                table[next] = step
                model[next] = step
                next += 2
            case 5...7 where !open.isEmpty:
                // Mostly the oldest, as responses come back roughly in order.
                let id = generator.next() % 3 == 0 ? open[Int(generator.next() % UInt64(open.count))] : open.min()!
                #expect(table.removeValue(forKey: id) == model.removeValue(forKey: id))
            case 8 where !open.isEmpty:
                let id = open[Int(generator.next() % UInt64(open.count))]
                table[at: table.index(forKey: id)!] += 1
                model[id]! += 1
            default:
                let id = UInt32(generator.next() % UInt64(next + 4)) | 1
                #expect(table[id] == model[id])
            }
            #expect(table.count == model.count)
        }
        #expect(contents(table) == model)
        #expect(table.keys.sorted() == model.keys.sorted())
        #expect(table.keys(where: { $0 % 2 == 0 }).sorted() == model.filter { $0.value % 2 == 0 }.keys.sorted())
    }
}
