import XCTest
import StoreCore
@testable import StoreKinds
import StoreTesting

/// `TasksState.init(reading:)` (what recovery reads a snapshot with) against `init(json:path:)`
/// through `JSONReader` (the path it replaces): the same states from the same bytes, the same
/// documents refused, and no crash on any of them.
final class TasksStateReadingTests: XCTestCase {
    static func old(_ bytes: [UInt8]) -> TasksState? {
        guard let json = try? JSONReader.parse(bytes, maxDepth: 10_000) else { return nil }
        return try? TasksState(json: json, path: "")
    }

    static func new(_ bytes: [UInt8]) throws(StateDecodingError) -> TasksState {
        try JSONStreamReader.read(bytes, maxDepth: 10_000) { (r) throws(StateDecodingError) in try TasksState(reading: &r) }
    }

    /// Titles that exercise the string reader: escapes, control characters, non-ASCII, surrogate
    /// pairs, long strings, the empty string.
    static func title(_ g: inout SeededGenerator) -> String {
        let pieces = ["task", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{1F}", "é", "日本", "🎉", "\u{7F}", "~", " ", "a\u{301}", "", "0", "null"]
        var s = ""
        for _ in 0..<Int.random(in: 0...6, using: &g) { s += pieces.randomElement(using: &g) ?? "" }
        if Int.random(in: 0..<20, using: &g) == 0 { s += String(repeating: "x", count: Int.random(in: 16...300, using: &g)) }
        return s
    }

    /// A state as the reducer makes them: adds, removes (holes in the ids), toggles, renames,
    /// favorites.
    static func randomState(_ g: inout SeededGenerator, steps choices: [Int] = [0, 1, 5, 40, 400]) -> TasksState {
        var state = TasksState()
        let steps = choices.randomElement(using: &g) ?? 0
        for _ in 0..<steps {
            let id = state.tasks.ids.randomElement(using: &g) ?? 1
            switch Int.random(in: 0..<10, using: &g) {
            case 0...4:
                state.tasks.insert(TaskItem(id: state.nextId, title: title(&g)))
                state.nextId += 1
            case 5:
                state.tasks.remove(id)
                state.favoriteIds.removeAll { $0 == id }
            case 6: state.tasks.update(id, \.done, member: "done") { $0.toggle() }
            case 7: if state.tasks.contains(id), !state.favoriteIds.contains(id) { state.favoriteIds.append(id) }
            case 8: state.tasks.update(id) { $0.title = title(&g) }
            default: state.favoriteIds.removeAll { $0 == id }
            }
            state.commit()
        }
        // Ids the reducer never gives: far beyond the count (kept in the hash trie), and 0.
        if Int.random(in: 0..<4, using: &g) == 0 {
            let far = state.nextId + Int.random(in: 5_000...1_000_000_000, using: &g)
            state.tasks.insert(TaskItem(id: far, title: title(&g)))
            state.nextId = far + 1
        }
        if Int.random(in: 0..<6, using: &g) == 0, !state.tasks.contains(0) { state.tasks.insert(TaskItem(id: 0, title: "zero", done: true)) }
        state.commit()
        return state
    }

    /// The same document written another way: members in random order, whitespace between
    /// tokens, some characters as `\u` escapes, numbers as written.
    static func rewrite(_ value: JSONValue, _ g: inout SeededGenerator, into out: inout [UInt8]) {
        func space() {
            if Int.random(in: 0..<4, using: &g) == 0 { out += [[0x20], [0x0A], [0x09, 0x20], [0x0D, 0x0A]].randomElement(using: &g) ?? [] }
        }
        func string(_ s: String) {
            out.append(0x22)
            for u in s.unicodeScalars {
                if u.value < 0x80, u != "\"", u != "\\", u.value >= 0x20, Int.random(in: 0..<8, using: &g) != 0 {
                    out.append(UInt8(u.value))
                } else if u.value < 0x10000 {
                    out += Array(String(format: "\\u%04x", u.value).utf8)
                } else {
                    let v = u.value - 0x10000
                    out += Array(String(format: "\\u%04X\\u%04X", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)).utf8)
                }
            }
            out.append(0x22)
        }
        space()
        switch value {
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, (k, v)) in o.shuffled(using: &g).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                space(); string(k); space(); out.append(UInt8(ascii: ":"))
                rewrite(v, &g, into: &out)
            }
            space()
            out.append(UInt8(ascii: "}"))
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                rewrite(v, &g, into: &out)
            }
            space()
            out.append(UInt8(ascii: "]"))
        case .string(let s): string(s)
        default: out += value.encoded()
        }
        space()
    }

    func testRandomStatesReadBackEqualWithEqualBytes() throws {
        var g = SeededGenerator(seed: 2511)
        var sawHoles = false, sawEmpty = false, sawFar = false
        for round in 0..<300 {
            let state = Self.randomState(&g)
            let bytes = state.jsonBytes()
            let read = try Self.new(bytes)
            XCTAssertEqual(read, state, "round \(round)")
            XCTAssertEqual(read.jsonBytes(), bytes, "round \(round)")
            XCTAssertEqual(Self.old(bytes), read, "round \(round)")
            let ids = state.tasks.ids
            sawEmpty = sawEmpty || ids.isEmpty
            sawHoles = sawHoles || (ids.last.map { $0 > ids.count } ?? false)
            sawFar = sawFar || (ids.last.map { $0 > 5_000 } ?? false)
            // The same state written another way (the table's members out of order too).
            var other: [UInt8] = []
            Self.rewrite(try JSONReader.parse(bytes, maxDepth: 10_000), &g, into: &other)
            let reread = try Self.new(other)
            XCTAssertEqual(reread, state, "round \(round): \(String(decoding: other.prefix(300), as: UTF8.self))")
            XCTAssertEqual(reread.jsonBytes(), bytes, "round \(round)")
            XCTAssertEqual(Self.old(other), reread, "round \(round)")
        }
        XCTAssertTrue(sawEmpty && sawHoles && sawFar, "the generator covers empty tables, removed ids and far ids")
    }

    /// Damaged documents: both paths refuse the same ones (and read the same state from the
    /// others), the new one with an error naming a byte or a path, and neither crashes.
    func testDamagedDocumentsAreRefusedAsBefore() {
        var g = SeededGenerator(seed: 77)
        let alphabet = Array(#"{}[]:,"\0123456789-.eEtrufalsn xu/"#.utf8)
        var refused = 0, accepted = 0
        for round in 0..<2_000 {
            var bytes = Self.randomState(&g, steps: [0, 1, 3, 10, 30]).jsonBytes()
            guard !bytes.isEmpty else { continue }
            for _ in 0..<Int.random(in: 1...2, using: &g) {
                let i = Int.random(in: 0..<bytes.count, using: &g)
                switch Int.random(in: 0..<4, using: &g) {
                case 0: bytes.remove(at: i)
                case 1: bytes.insert(alphabet.randomElement(using: &g) ?? 0, at: i)
                case 2: bytes[i] = alphabet.randomElement(using: &g) ?? 0
                default: bytes = Array(bytes[..<i])
                }
                if bytes.isEmpty { break }
            }
            let old = Self.old(bytes)
            do {
                let new = try Self.new(bytes)
                accepted += 1
                XCTAssertEqual(old, new, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            } catch {
                refused += 1
                XCTAssertNil(old, "round \(round): the old path accepts what the new refuses (\(error)): \(String(decoding: bytes, as: UTF8.self))")
                XCTAssertTrue(error.description.contains("byte") || !error.path.isEmpty, "\(error)")
            }
        }
        XCTAssertGreaterThan(refused, 500)
        XCTAssertGreaterThan(accepted, 50, "some damage leaves a valid state (a changed title or digit)")
    }

    func testErrorsNameThePathAndTheByte() {
        func error(_ s: String) -> String? {
            do { _ = try Self.new(Array(s.utf8)); return nil } catch { return error.description }
        }
        let ok = #"{"id":1,"title":"a","done":false}"#
        XCTAssertEqual(error(#"{"tasks":{"byId":{"1":\#(ok)},"allIds":[1,1]},"favoriteIds":[],"nextId":2}"#), "/tasks/allIds/1: duplicate id")
        XCTAssertEqual(error(#"{"tasks":{"byId":{"1":{"id":1,"title":"a","done":0}},"allIds":[1]},"favoriteIds":[],"nextId":2}"#),
                       "/tasks/byId/1/done: expected a boolean, got a number at byte 49")
        XCTAssertEqual(error(#"{"tasks":{"byId":{"01":\#(ok)},"allIds":[1]},"favoriteIds":[],"nextId":2}"#), "/tasks/byId/01: not listed in allIds")
        XCTAssertEqual(error(#"{"tasks":{"byId":{"2":\#(ok)},"allIds":[2]},"favoriteIds":[],"nextId":3}"#), "/tasks/byId/2/id: does not match its key")
        XCTAssertEqual(error(#"{"tasks":{"byId":{"1":\#(ok)},"allIds":[1]},"favoriteIds":[],"nextId":1}"#), "/nextId: must be greater than every task id")
        XCTAssertEqual(error(#"{"tasks":{"byId":{},"allIds":[]},"favoriteIds":[3],"nextId":1}"#), "/favoriteIds/0: no task has this id")
        XCTAssertEqual(error(#"{"tasks":{"allIds":[]},"favoriteIds":[],"nextId":1}"#), "/tasks/byId: missing")
        XCTAssertEqual(error(#"{"tasks":{"byId":{},"allIds":[]},"favoriteIds":[],"nextId":1"#), "unexpected end of input in an object at byte 60")
        XCTAssertEqual(error(#"{"tasks":{"byId":{},"allIds":[]},"favoriteIds":[],"nextId":1} x"#), "unexpected data after the JSON value at byte 62")
        XCTAssertEqual(error("[]"), "expected an object, got an array at byte 0")
        XCTAssertNil(error(#" {"nextId":1,"other":[{"deep":null}],"favoriteIds":[],"tasks":{"allIds":[],"byId":{}}} "#))
    }
}
