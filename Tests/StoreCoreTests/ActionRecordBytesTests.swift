import XCTest
@testable import StoreCore
import StoreTesting

/// `ActionRecord.read(fsa:names:at:source:)`: what the byte reading gives is what reading the body
/// as a value gives, and a known type is the kind's own string.
final class ActionRecordBytesTests: XCTestCase {
    let names = ActionTypeNames(["counter/incrTapped", "counter/decrTapped", "tasks/toggleDone"])

    /// The record the general path makes from the same body: parse, then pick the members.
    func general(_ body: String) -> ActionRecord? {
        guard case .object(let object)? = try? JSONReader.parse(Array(body.utf8)), case .string(let type)? = object["type"] else { return nil }
        return ActionRecord(type: type, payload: object["payload"].flatMap { $0 == .null ? nil : $0 },
                            meta: object["meta"].flatMap { $0 == .null ? nil : $0 }, at: 7, source: .client)
    }

    func testReadsWhatTheGeneralPathReads() {
        let bodies = [
            #"{"type":"counter/incrTapped"}"#, #" {"type":"a","payload":{"x":[1,2]},"meta":"m"} "#,
            #"{"type":"a","payload":null,"meta":null}"#, #"{"type":"a","type":"b"}"#, #"{"t\u0079pe":"esc","other":[{}]}"#,
            #"{"payload":1,"type":"late"}"#, #"{"type":"tasks/toggleDone","payload":{"id":3}}"#, #"{"type":"counter\/incrTapped"}"#,
            #"{"type":"caf\u00e9"}"#, "{\"type\":\"café\"}", #"{"type":"counter/incrTappe"}"#,
        ]
        for body in bodies {
            XCTAssertNotNil(general(body), body)
            XCTAssertEqual(ActionRecord.read(fsa: Array(body.utf8), names: names, at: 7, source: .client), general(body), body)
            XCTAssertEqual(ActionRecord.read(fsa: Array(body.utf8), names: .none, at: 7, source: .client), general(body), body)
        }
    }

    func testEverythingElseIsLeftToTheGeneralPath() {
        let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
        for body in ["", "[]", #"[{"type":"a"}]"#, #"{"type":1}"#, "{}", #"{"type":"a"} x"#, #"{"type":"a""#, #"{"type":"a",}"#,
                     "null", #""s""#, #"{"type":"a","k":\#(deep)}"#, #"{"type":"a","payload":\#(deep)}"#, #"{"type":"\u00"}"#,
                     "{\"type\":\"a\u{1}\"}"] {
            XCTAssertNil(ActionRecord.read(fsa: Array(body.utf8), names: names, at: 0, source: .client), body)
        }
    }

    /// Types of every length with a byte that needs a look (quote, backslash, control, non-ASCII)
    /// at every place, escaped or raw: the eight-bytes-at-a-time scan misses none of them.
    func testTypesWithSpecialBytesAnywhere() {
        var g = SeededGenerator(seed: 24)
        let plain = Array("abcXYZ/09_-".unicodeScalars), special: [String] = [#"\""#, #"\\"#, #"\u0001"#, "é", #"\u00e9"#, #"\t"#, "\"", "\\", "\u{1}", "\u{7F}"]
        for length in 0..<40 {
            for place in 0...length {
                var type = String((0..<length).map { _ in Character(plain[Int.random(in: 0..<plain.count, using: &g)]) })
                let marker = special[Int.random(in: 0..<special.count, using: &g)]
                type.insert(contentsOf: marker, at: type.index(type.startIndex, offsetBy: place))
                for body in [#"{"type":"\#(type)"}"#, #"{"type":"\#(type)","payload":{"id":1}}"#, "{\"type\":\"\(type)\u{1}\"}"] {
                    XCTAssertEqual(ActionRecord.read(fsa: Array(body.utf8), names: names, at: 7, source: .client), general(body), body)
                }
            }
        }
    }

    /// A known type is the very string the kind listed (no copy per request); another is read.
    func testAKnownTypeIsTheKindsOwnString() throws {
        func storage(_ s: String) -> UnsafePointer<UInt8>? {
            var s = s
            return s.withUTF8 { $0.baseAddress }
        }
        let listed = ["counter/incrTapped", "tasks/toggleDone"]
        let names = ActionTypeNames(listed)
        let known = try XCTUnwrap(ActionRecord.read(fsa: Array(#"{"type":"tasks/toggleDone","payload":{"id":1}}"#.utf8), names: names, at: 0, source: .client))
        XCTAssertEqual(storage(known.type), storage(listed[1]))
        let unknown = try XCTUnwrap(ActionRecord.read(fsa: Array(#"{"type":"tasks/toggleDoneX"}"#.utf8), names: names, at: 0, source: .client))
        XCTAssertEqual(unknown.type, "tasks/toggleDoneX")
        XCTAssertEqual(names.name(JSONKey(raw: UnsafeBufferPointer(start: nil, count: 0), text: "tasks/toggleDone")), "tasks/toggleDone")
    }
}
