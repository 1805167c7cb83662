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

    func testFenwick() {
        var f = Fenwick([1, 0, 1, 1, 0, 1])
        XCTAssertEqual((0...6).map(f.prefix), [0, 1, 1, 2, 3, 3, 4])
        f.append(1)
        f.add(-1, at: 2)
        XCTAssertEqual((0...7).map(f.prefix), [0, 1, 1, 1, 2, 2, 3, 4])
        f.removeLast()
        XCTAssertEqual(f.prefix(6), 3)
        var g = SeededGenerator(seed: 7)
        var values: [Int] = []
        var h = Fenwick()
        for _ in 0..<500 {
            switch Int.random(in: 0..<3, using: &g) {
            case 0, 1: let v = Int.random(in: 0...1, using: &g); values.append(v); h.append(v)
            default:
                if !values.isEmpty, Bool.random(using: &g) { values.removeLast(); h.removeLast() } else if !values.isEmpty {
                    let i = Int.random(in: 0..<values.count, using: &g)
                    h.add(1 - 2 * values[i], at: i); values[i] = 1 - values[i]
                }
            }
            let k = Int.random(in: 0...values.count, using: &g)
            XCTAssertEqual(h.prefix(k), values.prefix(k).reduce(0, +))
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
            XCTAssertLessThanOrEqual(table.slots.count, 2 * model.count + 65, "tombstones are compacted")
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
