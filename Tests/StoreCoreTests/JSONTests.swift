import Foundation
import XCTest
@testable import StoreCore

final class JSONTests: XCTestCase {
    private func text(_ v: JSONValue) -> String { String(decoding: v.encoded(), as: UTF8.self) }

    func testWriterSortsObjectKeysAndEscapes() {
        let v: JSONValue = .object(["b": .int(1), "a": .array([.null, .bool(true), .double(1.5), .string("q\"\\\n\u{1}é")]), "c": .object([:])])
        XCTAssertEqual(text(v), #"{"a":[null,true,1.5,"q\"\\\n\u0001é"],"b":1,"c":{}}"#)
    }

    func testWriterNumbers() {
        XCTAssertEqual(text(.array([.int(0), .int(-7), .int(Int.max), .int(Int.min), .double(2), .double(-0.25), .double(.nan), .double(1e300)])),
                       "[0,-7,9223372036854775807,-9223372036854775808,2.0,-0.25,null,1e+300]")
    }

    func testCursorWritesWhatTheWriterWrites() {
        // Runs written in place, between values written by the writer, in an array (commas
        // carried across both ways), with every number at its longest.
        var w = JSONWriter(capacity: 0)
        w.beginArray()
        w.write("a")
        w.withCursor(maxBytes: 80 + 3 * JSONCursor.maxIntBytes) { c in
            c.beginObject()
            c.key("min"); c.write(Int.min)
            c.key("max"); c.write(Int.max)
            c.key("none"); c.write(nil as Int?)
            c.key("list"); c.write([Int]([0, -1]))
            c.key("t"); c.write(true)
            c.endObject()
        }
        w.write(7)
        w.withCursor(maxBytes: 2 * JSONCursor.maxIntBytes) { c in c.write(-5); c.write(0) }
        w.endArray()
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self),
                       #"["a",{"min":-9223372036854775808,"max":9223372036854775807,"none":null,"list":[0,-1],"t":true},7,-5,0]"#)
    }

    func testFieldPatchOfATopLevelScalarIsAReplace() {
        var patch = PatchWriter()
        patch.field(3, 2, "", "/count")
        patch.field(Int?.none, 5, "", "/nthPrime")
        patch.field(true, true, "", "/same")
        patch.field([1, 2], [1], "", "/list")
        patch.field(4, 1, "/nested", "/n")
        patch.field(Int?(9), nil, "", "/maybe")
        patch.field(false, true, "", "/flag")
        patch.field(Int.min, 0, "", "/min")
        XCTAssertEqual(String(decoding: patch.finish(), as: UTF8.self),
                       #"[{"op":"replace","path":"/count","value":3},{"op":"replace","path":"/nthPrime","value":null},"#
                       + #"{"op":"add","path":"/list/1","value":2},{"op":"replace","path":"/nested/n","value":4},"#
                       + #"{"op":"replace","path":"/maybe","value":9},{"op":"replace","path":"/flag","value":false},"#
                       + #"{"op":"replace","path":"/min","value":-9223372036854775808}]"#)
    }

    func testReaderRoundTripsWhatTheWriterWrites() throws {
        let v: JSONValue = .object(["s": .string("tab\t \"quote\" \u{1F600} / \\"), "n": .array([.int(-1), .double(0.5), .null]),
                                    "o": .object(["x": .bool(false)])])
        XCTAssertEqual(try JSONReader.parse(v.encoded()), v)
    }

    func testReaderAcceptsRFC8259Forms() throws {
        XCTAssertEqual(try JSONReader.parse(" [1, -0, 2.5e3, 1E-2, \"\\u00e9\\ud83d\\ude00\\/\"] "),
                       .array([.int(1), .int(0), .double(2500), .double(0.01), .string("é😀/")]))
        XCTAssertEqual(try JSONReader.parse("99999999999999999999"), .double(1e20))
        XCTAssertEqual(try JSONReader.parse(#"{"a":1,"a":2}"#), .object(["a": .int(2)]))
    }

    func testReaderErrorsNameOffsetAndPath() {
        func error(_ s: String, maxDepth: Int = 64) -> JSONParseError? {
            do { _ = try JSONReader.parse(s, maxDepth: maxDepth); return nil } catch { return error }
        }
        XCTAssertEqual(error(#"{"a":[1,2,}"#)?.path, "/a/2")
        XCTAssertEqual(error(#"{"a":{"b~/":tru}}"#)?.path, "/a/b~0~1")
        XCTAssertEqual(error(#"{"a":{"b~/":tru}}"#)?.offset, 12)
        for bad in ["", "{", "[1,]", "01", "1.", "-", "\"\u{1}\"", "\"\\x\"", "\"\\ud800\"", "nul", "[1] 2", "{1:2}", "\"abc"] {
            XCTAssertNotNil(error(bad), bad)
        }
        XCTAssertNil(error(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)))
        XCTAssertEqual(error(String(repeating: "[", count: 65) + String(repeating: "]", count: 65))?.message, "nesting deeper than 64")
        XCTAssertNotNil(error(String(repeating: "[", count: 100_000)), "deep input is refused, not a stack overflow")
    }

    func testUnexpectedBytesAreNamedAsAClientWouldReadThem() {
        func message(_ bytes: [UInt8]) -> String? {
            do { _ = try JSONReader.parse(bytes); return nil } catch { return error.message }
        }
        XCTAssertEqual(message(Array("{\"a\":}".utf8)), "unexpected character '}'")
        // A UTF-8 byte-order mark, a control character: hex, not Swift's "\u{ef}".
        XCTAssertEqual(message([0xEF, 0xBB, 0xBF] + Array("{}".utf8)), "unexpected byte 0xEF")
        XCTAssertEqual(message(Array("[\u{1}]".utf8)), "unexpected byte 0x01")
    }

    func testInvalidUTF8IsRefused() {
        XCTAssertThrowsError(try JSONReader.parse([0x22, 0xFF, 0x22]))
    }

    func testPointer() throws {
        XCTAssertEqual(try JSONPointer("").tokens, [])
        XCTAssertEqual(try JSONPointer("/a~1b/~0/0").tokens, ["a/b", "~", "0"])
        XCTAssertEqual(try JSONPointer("/a~1b/~0").description, "/a~1b/~0")
        XCTAssertThrowsError(try JSONPointer("a"))
        XCTAssertThrowsError(try JSONPointer("/a~2"))
        let doc = try JSONReader.parse(#"{"tasks":{"byId":{"3":{"title":"x"}}},"list":[10,20],"":{"a/b":1}}"#)
        XCTAssertEqual(doc.value(at: try JSONPointer("/tasks/byId/3/title")), .string("x"))
        XCTAssertEqual(doc.value(at: try JSONPointer("/list/1")), .int(20))
        XCTAssertEqual(doc.value(at: try JSONPointer("//a~1b")), .int(1))
        XCTAssertNil(doc.value(at: try JSONPointer("/list/01")))
        XCTAssertNil(doc.value(at: try JSONPointer("/list/2")))
        XCTAssertNil(doc.value(at: try JSONPointer("/list/-")))
        XCTAssertNil(doc.value(at: try JSONPointer("/tasks/nope")))
        XCTAssertEqual(doc.value(at: try JSONPointer("")), doc)
    }

    func testLocateAnswersTheBytesThatStandThere() throws {
        let text = #"{ "z": 1, "b" : [10, {"y":"]}\"{","a":[]}, -2.5e3 ], "a\"b":true, "e\u0301": null, "":{"a/b":{}} }"#
        let bytes = Array(text.utf8)
        func at(_ pointer: String) throws -> String? {
            JSONPointer.locate(try JSONPointer(pointer).tokens[...], in: bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
        }
        XCTAssertEqual(try at(""), text.trimmingCharacters(in: .whitespaces))
        XCTAssertEqual(try at("/b/1"), #"{"y":"]}\"{","a":[]}"#, "key order and spelling as written, not sorted")
        XCTAssertEqual(try at("/b/1/a"), "[]")
        XCTAssertEqual(try at("/b/2"), "-2.5e3", "a number's own spelling")
        XCTAssertEqual(try at("/a\"b"), "true", "an escaped key")
        XCTAssertEqual(try at("/e\u{301}"), "null", "a \\u escape in a key")
        XCTAssertEqual(try at("//a~1b"), "{}")
        for missing in ["/x", "/b/3", "/b/01", "/b/-", "/z/0", "/b/1/y/0", "/b/x"] { XCTAssertNil(try at(missing), missing) }
        // Whatever comes in, an answer or nil: never a trap.
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let cut = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
            for pointer in ["/b/1/a", "/b/2", "//a~1b"] {
                if let range = JSONPointer.locate(try JSONPointer(pointer).tokens[...], in: cut) {
                    XCTAssertTrue(range.lowerBound >= 0 && range.upperBound <= cut.count)
                }
            }
        }
    }

    /// The examples of RFC 6902 appendix A.
    func testPointerSplitsOnScalarsNotGraphemes() throws {
        // "/" + U+0301 is one Character but two scalars: still a separator, then a token "\u{301}".
        XCTAssertEqual(try JSONPointer("/\u{301}").tokens, ["\u{301}"])
        XCTAssertEqual(try JSONPointer("/a/\u{1F3FB}").tokens, ["a", "\u{1F3FB}"])
        XCTAssertEqual(try JSONPointer("/~0\u{301}").tokens, ["~\u{301}"])
        XCTAssertEqual(try JSONPointer("/é/~1").tokens, ["é", "/"])
    }

    func testPatchRFC6902Examples() throws {
        func check(_ doc: String, _ patch: String, _ expected: String?, file: StaticString = #filePath, line: UInt = #line) throws {
            let d = try JSONReader.parse(doc), p = try JSONReader.parse(patch)
            if let expected {
                XCTAssertEqual(try JSONPatch.apply(p, to: d), try JSONReader.parse(expected), file: file, line: line)
            } else {
                XCTAssertThrowsError(try JSONPatch.apply(p, to: d), file: file, line: line)
            }
        }
        try check(#"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz","value":"qux"}]"#, #"{"baz":"qux","foo":"bar"}"#)
        try check(#"{"foo":["bar","baz"]}"#, #"[{"op":"add","path":"/foo/1","value":"qux"}]"#, #"{"foo":["bar","qux","baz"]}"#)
        try check(#"{"baz":"qux","foo":"bar"}"#, #"[{"op":"remove","path":"/baz"}]"#, #"{"foo":"bar"}"#)
        try check(#"{"foo":["bar","qux","baz"]}"#, #"[{"op":"remove","path":"/foo/1"}]"#, #"{"foo":["bar","baz"]}"#)
        try check(#"{"baz":"qux","foo":"bar"}"#, #"[{"op":"replace","path":"/baz","value":"boo"}]"#, #"{"baz":"boo","foo":"bar"}"#)
        try check(#"{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}"#,
                  #"[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]"#,
                  #"{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}"#)
        try check(#"{"foo":["all","grass","cows","eat"]}"#, #"[{"op":"move","from":"/foo/1","path":"/foo/3"}]"#,
                  #"{"foo":["all","cows","eat","grass"]}"#)
        try check(#"{"baz":"qux","foo":["a",2,"c"]}"#,
                  #"[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]"#, #"{"baz":"qux","foo":["a",2,"c"]}"#)
        try check(#"{"baz":"qux"}"#, #"[{"op":"test","path":"/baz","value":"bar"}]"#, nil)
        try check(#"{"foo":"bar"}"#, #"[{"op":"add","path":"/child","value":{"grandchild":{}}}]"#, #"{"foo":"bar","child":{"grandchild":{}}}"#)
        try check(#"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz/bat","value":"qux"}]"#, nil)
        try check(#"{"/":9,"~1":10}"#, #"[{"op":"test","path":"/~01","value":10}]"#, #"{"/":9,"~1":10}"#)
        try check(#"{"foo":["bar"]}"#, #"[{"op":"add","path":"/foo/-","value":["abc","def"]}]"#, #"{"foo":["bar",["abc","def"]]}"#)
        try check(#"{"a":1}"#, #"[{"op":"copy","from":"/a","path":"/b"}]"#, #"{"a":1,"b":1}"#)
        try check(#"{"a":1}"#, #"[{"op":"remove","path":"/b"}]"#, nil)
        try check(#"{"a":[1]}"#, #"[{"op":"add","path":"/a/2","value":1}]"#, nil)
        try check(#"{"a":{"b":1}}"#, #"[{"op":"move","from":"/a","path":"/a/b/c"}]"#, nil)
        try check(#"{"a":1}"#, #"[{"op":"replace","path":"","value":[1]}]"#, #"[1]"#)
    }

    func testTimestampsByHand() {
        XCTAssertEqual(Timestamp.iso8601(millis: 0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp.iso8601(millis: 1_795_291_301_123), "2026-11-21T20:01:41.123Z")
        XCTAssertEqual(Timestamp.iso8601(millis: 951_782_400_000), "2000-02-29T00:00:00.000Z")
        XCTAssertEqual(Timestamp.iso8601(millis: -1), "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(Timestamp.iso8601(millis: 253_402_300_799_999), "9999-12-31T23:59:59.999Z")
        XCTAssertEqual(Timestamp.iso8601(millis: 253_402_300_800_000), "+010000-01-01T00:00:00.000Z")
        _ = Timestamp.iso8601(millis: .max)
        _ = Timestamp.iso8601(millis: .min)
        XCTAssertEqual(Timestamp.millis(iso8601: "2026-11-21T20:01:41.123Z"), 1_795_291_301_123)
        XCTAssertEqual(Timestamp.millis(iso8601: "2026-11-21T20:01:41Z"), 1_795_291_301_000)
        XCTAssertEqual(Timestamp.millis(iso8601: "2026-11-21T20:01:41.5Z"), 1_795_291_301_500)
        XCTAssertNil(Timestamp.millis(iso8601: "2026-13-21T20:01:41.123Z"))
        // No silent roll-over into another day or minute.
        XCTAssertNil(Timestamp.millis(iso8601: "2026-02-30T00:00:00.000Z"))
        XCTAssertNil(Timestamp.millis(iso8601: "2026-04-31T00:00:00.000Z"))
        XCTAssertNil(Timestamp.millis(iso8601: "2025-02-29T00:00:00.000Z"))
        XCTAssertNil(Timestamp.millis(iso8601: "2026-11-21T20:01:60.000Z"))
        XCTAssertEqual(Timestamp.millis(iso8601: "2024-02-29T00:00:00.000Z"), 1_709_164_800_000)
        XCTAssertEqual(Timestamp.millis(iso8601: "2000-02-29T00:00:00.000Z"), 951_782_400_000)
        XCTAssertNil(Timestamp.millis(iso8601: "1900-02-29T00:00:00.000Z"))
        XCTAssertNil(Timestamp.millis(iso8601: "2026-11-21 20:01:41.123Z"))
        XCTAssertNil(Timestamp.millis(iso8601: "2026-11-21T20:01:41.123"))
        var g = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let m = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &g)
            XCTAssertEqual(Timestamp.millis(iso8601: Timestamp.iso8601(millis: m)), m)
        }
    }

    /// Our hand-written dates agree with Foundation's formatter.
    func testTimestampsAgreeWithFoundation() {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var g = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let m = Int64.random(in: 0...4_102_444_800_000, using: &g)
            XCTAssertEqual(Timestamp.iso8601(millis: m), f.string(from: Date(timeIntervalSince1970: Double(m) / 1000)))
        }
    }

    func testActionRecordRoundTrip() throws {
        let r = ActionRecord(type: "tasks/add", payload: .object(["title": .string("x")]), meta: .object(["k": .int(1)]), at: 1_795_291_301_123, source: .effect)
        XCTAssertEqual(String(decoding: r.jsonBytes(), as: UTF8.self),
                       #"{"type":"tasks/add","payload":{"title":"x"},"meta":{"k":1},"at":"2026-11-21T20:01:41.123Z","source":"effect"}"#)
        XCTAssertEqual(try ActionRecord(record: try JSONReader.parse(r.jsonBytes())), r)
        let bare = ActionRecord(type: "counter/incrTapped", at: 5, source: .client)
        XCTAssertEqual(String(decoding: bare.jsonBytes(), as: UTF8.self), #"{"type":"counter/incrTapped","at":"1970-01-01T00:00:00.005Z","source":"client"}"#)
        XCTAssertEqual(try ActionRecord(record: .object(["type": .string("a"), "at": .int(5), "source": .string("client")])), bare.with(type: "a"))
        XCTAssertThrowsError(try ActionRecord(record: .object(["type": .string("a"), "at": .int(5), "source": .string("x")])))
    }

    func testFSAEnvelope() throws {
        let r = try ActionRecord(fsa: try JSONReader.parse(#"{"type":"a/b","payload":1,"meta":{"m":true},"extra":0}"#), at: 9, source: .client)
        XCTAssertEqual(r, ActionRecord(type: "a/b", payload: .int(1), meta: .object(["m": .bool(true)]), at: 9, source: .client))
        XCTAssertThrowsError(try ActionRecord(fsa: .array([]), at: 0, source: .client)) {
            XCTAssertEqual($0 as? ActionError, .invalidAction(detail: "an action is a JSON object, got an array"))
        }
        XCTAssertThrowsError(try ActionRecord(fsa: .object([:]), at: 0, source: .client)) {
            XCTAssertEqual($0 as? ActionError, .invalidAction(detail: "the action has no \"type\""))
        }
        XCTAssertThrowsError(try ActionRecord(fsa: .object(["type": .int(1)]), at: 0, source: .client)) {
            XCTAssertEqual($0 as? ActionError, .invalidAction(detail: "\"type\" must be a string, got a number"))
        }
    }

    func testActionErrorSlugsAndStatuses() {
        XCTAssertEqual(ActionError.invalidAction(detail: "").slug, "invalid-action")
        XCTAssertEqual(ActionError.unknownAction(type: "x", validTypes: ["a", "b"]).slug, "unknown-action")
        XCTAssertEqual(ActionError.unknownAction(type: "x", validTypes: ["a", "b"]).detail, "unknown action type \"x\"; valid types: a, b")
        XCTAssertEqual(ActionError.invalidPayload(detail: "").status, 422)
        XCTAssertEqual(ActionError.internalAction(type: "x").status, 403)
        XCTAssertEqual(ActionError.rejected(detail: "").status, 409)
        XCTAssertEqual(ActionError.rejected(detail: "").slug, "action-rejected")
        XCTAssertEqual(ActionError.internalAction(type: "x").slug, "internal-action")
    }
}

extension ActionRecord {
    func with(type: String) -> ActionRecord { var r = self; r.type = type; return r }
}
