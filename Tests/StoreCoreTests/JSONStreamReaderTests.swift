import XCTest
@testable import StoreCore
import StoreTesting

/// `JSONStreamReader` token by token against `JSONReader`, and the bottom-up builds of the tries
/// against the same elements `set` one by one.
final class JSONStreamReaderTests: XCTestCase {
    /// Any document read through the token API (objects, arrays, scalars by their readers).
    static func walk(_ r: inout JSONStreamReader) throws(StateDecodingError) -> JSONValue {
        switch r.peek() {
        case UInt8(ascii: "{"):
            var o: [String: JSONValue] = [:]
            try r.beginObject()
            while let key = try r.nextKey() { o[key.string] = try walk(&r) }
            return .object(o)
        case UInt8(ascii: "["):
            var a: [JSONValue] = []
            try r.beginArray()
            while try r.nextElement() { a.append(try walk(&r)) }
            return .array(a)
        case UInt8(ascii: "\""): return .string(try r.readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try r.readBool())
        case UInt8(ascii: "n"):
            guard try r.readNull() else { throw r.error("not null") }
            return .null
        default: return try r.readValue()  // numbers, and whatever is not JSON (the parser's error)
        }
    }

    static func randomValue(_ g: inout SeededGenerator, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &g) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &g))
        case 2: return .int(Int.random(in: -1_000_000...1_000_000, using: &g))
        case 3: return .double(Double.random(in: -1e6...1e6, using: &g))
        case 4: return .string(["", "a", "é\"\\", "🎉\n", "k~/"].randomElement(using: &g) ?? "")
        case 5: return .array((0..<Int.random(in: 0...4, using: &g)).map { _ in randomValue(&g, depth: depth + 1) })
        default:
            var o: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &g) { o[["a", "b", "é", "x\\\"y", ""].randomElement(using: &g) ?? ""] = randomValue(&g, depth: depth + 1) }
            return .object(o)
        }
    }

    func testTokensReadWhatJSONReaderReads() {
        var g = SeededGenerator(seed: 5)
        let alphabet = Array(#"{}[]:,"\019-.eEtrufalsn "#.utf8)
        var same = 0
        for round in 0..<3_000 {
            var bytes = Self.randomValue(&g).encoded()
            if round % 3 != 0, !bytes.isEmpty {
                let i = Int.random(in: 0..<bytes.count, using: &g)
                switch Int.random(in: 0..<3, using: &g) {
                case 0: bytes.remove(at: i)
                case 1: bytes.insert(alphabet.randomElement(using: &g) ?? 0, at: i)
                default: bytes[i] = alphabet.randomElement(using: &g) ?? 0
                }
            }
            let expected = try? JSONReader.parse(bytes)
            let read = try? JSONStreamReader.read(bytes) { (r) throws(StateDecodingError) in try Self.walk(&r) }
            XCTAssertEqual(read, expected, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            let skipped = (try? JSONStreamReader.read(bytes) { (r) throws(StateDecodingError) in try r.skipValue() }) != nil
            XCTAssertEqual(skipped, expected != nil, "round \(round): skipped \(String(decoding: bytes, as: UTF8.self))")
            if read == expected, skipped == (expected != nil) { same += 1 }
        }
        XCTAssertEqual(same, 3_000)
    }

    func testKeysAndIntegers() throws {
        let bytes = Array(#"{"plain":1,"esc\u0061ped":-2,"é":9223372036854775807}"#.utf8)
        let members = try JSONStreamReader.read(bytes) { (r) throws(StateDecodingError) -> [String] in
            var out: [String] = []
            try r.beginObject()
            while let key = try r.nextKey() { out.append("\(key.string)=\(try r.readInt()) \(key == "escaped") \(key == "plain")") }
            return out
        }
        XCTAssertEqual(members, ["plain=1 false true", "escaped=-2 true false", "é=9223372036854775807 false false"])
        func int(_ s: String) -> Int? {
            try? JSONStreamReader.read(Array(#"{"\#(s)":0}"#.utf8)) { (r) throws(StateDecodingError) -> Int? in
                try r.beginObject()
                let key = try r.nextKey()
                _ = try r.readInt()
                _ = try r.nextKey()
                return key?.canonicalInt
            }
        }
        for s in ["0", "7", "-7", "123456", "9223372036854775807", "-9223372036854775808", "03", "-0", "+3", "3.0", "", "-", "9223372036854775808", "1e2", "x"] {
            XCTAssertEqual(int(s), Int(key: s), s)
        }
        for (doc, message) in [("1.5", "expected an integer, got a number at byte 0"), ("1e3", "expected an integer, got a number at byte 0"),
                               ("\"1\"", "expected an integer, got a string at byte 0"), ("99999999999999999999", "expected an integer, got a number at byte 0")] {
            XCTAssertThrowsError(try JSONStreamReader.read(Array(doc.utf8)) { (r) throws(StateDecodingError) in try r.readInt() }) {
                XCTAssertEqual(($0 as? StateDecodingError)?.message, message)
            }
        }
    }

    func testSlotTrieBuilderGivesTheTrieSetGives() {
        var g = SeededGenerator(seed: 11)
        for round in 0..<200 {
            var builder = SlotTrie<Int>.Builder()
            var set = SlotTrie<Int>()
            var i = -1
            let gap = [1, 2, 40, 5_000].randomElement(using: &g) ?? 1
            for _ in 0..<Int.random(in: 0...3_000, using: &g) {
                i += Int.random(in: 1...gap, using: &g)
                XCTAssertTrue(builder.append(i, i * 10))
                set.set(i, i * 10)
            }
            XCTAssertFalse(builder.append(max(i, 0), 0), "not above the last index")
            let built = builder.build()
            XCTAssertEqual(built.count, set.count, "round \(round)")
            XCTAssertEqual(built.height, set.height, "round \(round)")
            var a: [Int] = [], b: [Int] = []
            built.forEach { a.append($0) }
            set.forEach { b.append($0) }
            XCTAssertEqual(a, b, "round \(round)")
            for _ in 0..<20 where i > 0 {
                let probe = Int.random(in: 0...i, using: &g)
                XCTAssertEqual(built[probe], set[probe])
                XCTAssertEqual(built.rank(probe), set.rank(probe))
                let k = Int.random(in: 0..<set.count, using: &g)
                XCTAssertEqual(built.select(k)?.index, set.select(k)?.index)
            }
            // Written after the build as any trie is.
            var copy = built
            copy.set(i + 1, 1)
            XCTAssertEqual(copy.count, set.count + 1)
            XCTAssertEqual(built.count, set.count, "the build shares nothing it would write")
        }
    }

    /// A table of another entity (read through `init(json:)` per entity), sparse and far ids,
    /// colliding string ids: the same table as `init(json:path:)`, and it changes as one.
    func testTablesReadAsInitJSONReadsThem() throws {
        var g = SeededGenerator(seed: 3)
        for round in 0..<100 {
            var table = EntityTable<Row>()
            var id = Int.random(in: 0...3, using: &g)
            for _ in 0..<Int.random(in: 0...500, using: &g) {
                table.insert(Row(id: id, name: "r\(id)", n: id % 7))
                id += Bool.random(using: &g) ? 1 : Int.random(in: 1...100_000, using: &g)
            }
            if Bool.random(using: &g), let first = table.ids.first { table.remove(first); table.insert(Row(id: first, name: "moved")) }
            if Bool.random(using: &g) { table.insert(Row(id: -5, name: "negative")) }
            table.commit()
            let bytes = table.jsonBytes()
            var read = try JSONStreamReader.read(bytes) { (r) throws(StateDecodingError) in
                try EntityTable<Row>(reading: &r) { (r) throws(StateDecodingError) in try Row(json: r.readValue(), path: "") }
            }
            let old = try EntityTable<Row>(json: JSONReader.parse(bytes), path: "")
            XCTAssertEqual(read, old, "round \(round)")
            XCTAssertEqual(read.jsonBytes(), bytes, "round \(round)")
            var oldCopy = old
            for probe in table.ids.prefix(5) {
                read.update(probe) { $0.n += 1 }
                oldCopy.update(probe) { $0.n += 1 }
            }
            read.insert(Row(id: id + 1, name: "new"))
            oldCopy.insert(Row(id: id + 1, name: "new"))
            XCTAssertEqual(read.jsonBytes(), oldCopy.jsonBytes(), "round \(round)")
        }
        var named = EntityTable<Named>()
        for i in 0..<50 { named.insert(Named(id: Colliding("n\(i)"), n: i)) }
        let bytes = named.jsonBytes()
        let read = try JSONStreamReader.read(bytes) { (r) throws(StateDecodingError) in
            try EntityTable<Named>(reading: &r) { (r) throws(StateDecodingError) in try Named(json: r.readValue(), path: "") }
        }
        XCTAssertEqual(read.jsonBytes(), bytes)
        XCTAssertEqual(read.ids, named.ids)
    }
}
