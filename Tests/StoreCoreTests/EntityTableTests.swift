import XCTest
@testable import StoreCore
import StoreTesting

struct Row: Entity, Equatable {
    var id: Int
    var name: String
    var n: Int

    func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("id"); w.write(id)
        w.key("name"); w.write(name)
        w.key("n"); w.write(n)
        w.endObject()
    }

    init(id: Int, name: String, n: Int = 0) { self.id = id; self.name = name; self.n = n }

    init(json: JSONValue, path: String) throws(StateDecodingError) {
        id = try json.decodeMember("id", at: path)
        name = try json.decodeMember("name", at: path)
        n = try json.decodeMember("n", at: path)
    }

    func diff(from old: Row, at path: String, into patch: inout PatchWriter) {
        patch.field(id, old.id, path, "/id")
        patch.field(name, old.name, path, "/name")
        patch.field(n, old.n, path, "/n")
    }
}

/// An id whose hash is the same for every value: the hash trie's worst case.
struct Colliding: EntityID {
    var name: String
    init(_ name: String) { self.name = name }
    var key: String { name }
    init?(key: String) { name = key }
    func hash(into hasher: inout Hasher) { hasher.combine(0) }
    func writeJSON(to w: inout JSONWriter) { w.write(name) }
    init(json: JSONValue, path: String) throws(StateDecodingError) { name = try String(json: json, path: path) }
}

struct Named: Entity, Equatable {
    var id: Colliding
    var n: Int
    func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("id"); id.writeJSON(to: &w)
        w.key("n"); w.write(n)
        w.endObject()
    }
    init(id: Colliding, n: Int) { self.id = id; self.n = n }
    init(json: JSONValue, path: String) throws(StateDecodingError) {
        id = try json.decodeMember("id", at: path)
        n = try json.decodeMember("n", at: path)
    }
}

final class EntityTableTests: XCTestCase {
    func testShapeAndBasicOperations() throws {
        var t = EntityTable<Row>()
        XCTAssertTrue(t.insert(Row(id: 2, name: "b")))
        XCTAssertTrue(t.insert(Row(id: 1, name: "a/~")))
        XCTAssertFalse(t.insert(Row(id: 1, name: "dup")))
        XCTAssertTrue(t.update(2) { $0.n = 5 })
        XCTAssertFalse(t.update(9) { $0.n = 5 })
        XCTAssertEqual(t[2]?.n, 5)
        XCTAssertNil(t[9])
        XCTAssertEqual(String(decoding: t.jsonBytes(), as: UTF8.self),
                       #"{"byId":{"2":{"id":2,"name":"b","n":5},"1":{"id":1,"name":"a/~","n":0}},"allIds":[2,1]}"#)
        XCTAssertEqual(t.remove(2)?.name, "b")
        XCTAssertNil(t.remove(2))
        XCTAssertEqual(t.ids, [1])
        XCTAssertEqual(t.count, 1)
        let back = try EntityTable<Row>(json: t.jsonValue(), path: "")
        XCTAssertEqual(back, t)
    }

    /// Random sets against a plain array model: lookups, counts, ranks, selects and order agree,
    /// and copies taken along the way keep what they held while the original changes.
    func testSlotTrieAgainstAModel() {
        var g = SeededGenerator(seed: 7)
        var trie = SlotTrie<Int>()
        var model: [Int?] = []
        var kept: [(trie: SlotTrie<Int>, model: [Int?])] = []
        for step in 0..<3_000 {
            // Mostly near the end (as slots are used), sometimes far (the trie grows a level).
            let i = Int.random(in: 0..<8, using: &g) == 0 ? Int.random(in: 0..<40_000, using: &g) : Int.random(in: 0...model.count, using: &g)
            let value: Int? = Int.random(in: 0..<3, using: &g) == 0 ? nil : step
            if i >= model.count { model.append(contentsOf: repeatElement(nil, count: i + 1 - model.count)) }
            XCTAssertEqual(trie.set(i, value), model[i])
            model[i] = value
            let probe = Int.random(in: 0...model.count, using: &g)
            XCTAssertEqual(trie[probe], probe < model.count ? model[probe] : nil)
            if step % 10 == 0 { XCTAssertEqual(trie.rank(probe), model.prefix(probe).filter { $0 != nil }.count) }
            if step % 50 == 0 {
                let live = model.enumerated().compactMap { i, v in v.map { (i, $0) } }
                XCTAssertEqual(trie.count, live.count)
                var all: [Int] = []
                trie.forEach { all.append($0) }
                XCTAssertEqual(all, live.map(\.1))
                if !live.isEmpty {
                    let k = Int.random(in: 0..<live.count, using: &g)
                    XCTAssertEqual(trie.select(k)?.index, live[k].0)
                    XCTAssertEqual(trie.select(k)?.element, live[k].1)
                }
                XCTAssertNil(trie.select(live.count))
                kept.append((trie, model))
            }
            if step % 7 == 0 { XCTAssertEqual(trie.modify(probe) { $0 += 1; return $0 }, probe < model.count ? model[probe].map { $0 + 1 } : nil) }
            if step % 7 == 0, probe < model.count, model[probe] != nil { model[probe]! += 1 }
        }
        for (copy, copyModel) in kept {
            for (i, v) in copyModel.enumerated() { XCTAssertEqual(copy[i], v) }
        }
    }

    /// Ids whose hashes are all equal end in the hash trie's last-level lists, which must
    /// still insert, find, update and remove each one.
    func testHashCollisions() throws {
        var table = EntityTable<Named>()
        let names = (0..<40).map { "n\($0)" }
        for name in names { XCTAssertTrue(table.insert(Named(id: Colliding(name), n: 0))) }
        let kept = table
        for name in names.prefix(20) { XCTAssertTrue(table.update(Colliding(name)) { $0.n = 1 }) }
        for name in names.suffix(10) { XCTAssertNotNil(table.remove(Colliding(name))) }
        XCTAssertEqual(table.count, 30)
        XCTAssertEqual(table.ids.map(\.name), Array(names.prefix(30)))
        XCTAssertEqual(table.values.map(\.n), Array(repeating: 1, count: 20) + Array(repeating: 0, count: 10))
        XCTAssertNil(table[Colliding("n35")])
        XCTAssertEqual(kept.count, 40)
        XCTAssertEqual(kept.values.map(\.n), Array(repeating: 0, count: 40))
        for name in names.suffix(10) { XCTAssertTrue(table.insert(Named(id: Colliding(name), n: 2))) }
        XCTAssertEqual(table[Colliding("n39")]?.n, 2)
        XCTAssertEqual(kept[Colliding("n39")]?.n, 0)
    }

    /// A copy costs nothing and stays what it was: every copy taken between rounds of random
    /// changes (commits, rollbacks, compactions) still encodes as the model did then.
    func testCopiesKeepTheirState() throws {
        var g = SeededGenerator(seed: 99)
        var table = EntityTable<Row>()
        var model: [Row] = []
        var kept: [(table: EntityTable<Row>, json: JSONValue, model: [Row])] = []
        var nextId = 1
        for round in 0..<300 {
            let mark = table.mark
            let markModel = model
            for _ in 0..<Int.random(in: 1...8, using: &g) {
                switch Int.random(in: 0..<6, using: &g) {
                case 0, 1:
                    let id = Int.random(in: 0..<5, using: &g) == 0 ? -nextId : nextId
                    nextId += 1
                    table.insert(Row(id: id, name: "r\(id)")); model.append(Row(id: id, name: "r\(id)"))
                case 2, 3:
                    guard let victim = model.randomElement(using: &g) else { continue }
                    table.remove(victim.id); model.removeAll { $0.id == victim.id }
                default:
                    guard let target = model.randomElement(using: &g), let i = model.firstIndex(of: target) else { continue }
                    table.update(target.id, \.n, member: "n") { $0 += 1 }; model[i].n += 1
                }
            }
            if Int.random(in: 0..<4, using: &g) == 0 { table.rollback(to: mark); model = markModel }
            table.commit()
            let copy = table
            XCTAssertEqual(copy, table, "a fresh copy is equal")
            if round % 5 == 0 { kept.append((copy, copy.jsonValue(), model)) }
        }
        for (copy, json, copyModel) in kept {
            XCTAssertEqual(copy.values, copyModel)
            XCTAssertEqual(copy.jsonValue(), json)
            XCTAssertEqual(copy, EntityTable(copyModel))
        }
    }

    /// Random operations against a plain array model: contents, JSON, per-step patches,
    /// rollbacks to random marks and compaction all agree.
    func testAgainstAModel() throws {
        try checkAgainstModel { n, _ in n }
    }

    /// Negative and far-away ids live in the table's dictionary, small ones in its array.
    func testAgainstAModelWithSparseIds() throws {
        try checkAgainstModel { n, g in
            switch Int.random(in: 0..<4, using: &g) {
            case 0: return -n
            case 1: return 1_000_000_000 + n
            default: return n
            }
        }
    }

    private func checkAgainstModel(_ makeId: (Int, inout SeededGenerator) -> Int) throws {
        var g = SeededGenerator(seed: 42)
        var table = EntityTable<Row>()
        var model: [Row] = []
        var nextId = 1
        for round in 0..<400 {
            let markModel = model
            let mark = table.mark
            var json = table.jsonValue()
            // Some rounds log more than 16 changes, where the patch writer switches to a set.
            let steps = Int.random(in: 0..<5, using: &g) == 0 ? Int.random(in: 17...30, using: &g) : Int.random(in: 1...6, using: &g)
            for _ in 0..<steps {
                let before = table.mark
                switch Int.random(in: 0..<10, using: &g) {
                case 0...3:
                    let row = Row(id: makeId(nextId, &g), name: "r\(nextId)")
                    nextId += 1
                    XCTAssertTrue(table.insert(row)); model.append(row)
                case 4...6:
                    guard let victim = model.randomElement(using: &g) else { continue }
                    XCTAssertEqual(table.remove(victim.id), victim)
                    model.removeAll { $0.id == victim.id }
                default:
                    guard let target = model.randomElement(using: &g) else { continue }
                    let n = Int.random(in: 0..<3, using: &g)
                    switch Int.random(in: 0..<3, using: &g) {
                    case 0:
                        XCTAssertTrue(table.update(target.id) { $0.n = n; $0.name += "!" })
                        if let i = model.firstIndex(where: { $0.id == target.id }) { model[i].n = n; model[i].name += "!" }
                    case 1:
                        XCTAssertTrue(table.update(target.id, \.n, member: "n") { $0 = n })
                        if let i = model.firstIndex(where: { $0.id == target.id }) { model[i].n = n }
                    default:
                        XCTAssertTrue(table.update(target.id, \.name, member: "name") { $0 += "~/" })
                        if let i = model.firstIndex(where: { $0.id == target.id }) { model[i].name += "~/" }
                    }
                    XCTAssertFalse(table.update(-12_345, \.n, member: "n") { $0 = 1 })
                }
                var patch = PatchWriter()
                table.writePatch(since: before, at: "", into: &patch)
                json = try JSONPatch.apply(patch.finish(), to: json)
                XCTAssertEqual(json, table.jsonValue(), "round \(round)")
            }
            // The patch since the round's mark, in one go, also matches.
            var whole = PatchWriter()
            table.writePatch(since: mark, at: "", into: &whole)
            XCTAssertEqual(try JSONPatch.apply(whole.finish(), to: EntityTable(markModel).jsonValue()), table.jsonValue())
            if Int.random(in: 0..<3, using: &g) == 0 {
                table.rollback(to: mark)
                model = markModel
            }
            table.commit()
            XCTAssertEqual(table.values, model)
            XCTAssertEqual(table.count, model.count)
            XCTAssertLessThanOrEqual(table.slotCount, 2 * model.count + 65, "tombstones are compacted")
        }
    }

    func testDecodingErrorsNameThePath() {
        func error(_ s: String) -> String? {
            do { _ = try EntityTable<Row>(json: try JSONReader.parse(s), path: "/t"); return nil } catch { return "\(error)" }
        }
        XCTAssertEqual(error(#"{"byId":{"1":{"id":1,"name":"a","n":0}},"allIds":[1,1]}"#), "/t/allIds/1: duplicate id")
        XCTAssertEqual(error(#"{"byId":{"1":{"id":1,"name":"a","n":"x"}},"allIds":[1]}"#), "/t/byId/1/n: expected an integer, got a string")
        XCTAssertEqual(error(#"{"byId":{"x":{}},"allIds":[]}"#), "/t/byId/x: not listed in allIds")
        XCTAssertEqual(error(#"{"byId":[],"allIds":[]}"#), "/t/byId: expected an object, got an array")
        XCTAssertEqual(error(#"{"allIds":[]}"#), "/t/byId: missing")
    }
}
