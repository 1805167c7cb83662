@testable import HTTPEngine
import XCTest

/// RFC 9110 §5.1: field names are case-insensitive.
final class HTTPHeadersTests: XCTestCase {
    let headers = HTTPHeaders([
        ("Host", "example.test"),
        ("X-A-Field-Name-Longer-Than-Fifteen-Bytes", "long"),
        ("Accept", "a"),
        ("accept", "b"),
        ("Ünïcode", "u"),
    ])

    func testLookupIgnoresASCIICaseForShortAndLongNames() {
        XCTAssertEqual(headers["host"], "example.test")
        XCTAssertEqual(headers["HOST"], "example.test")
        XCTAssertEqual(headers["x-a-field-name-longer-than-fifteen-bytes"], "long")
        XCTAssertNil(headers["x-a-field-name-longer-than-fifteen-bytez"])
        XCTAssertNil(headers["hos"])
        XCTAssertNil(headers["Hosu"], "same length, another name")
    }

    func testOnlyASCIILettersFoldCase() {
        XCTAssertEqual(headers["Ünïcode"], "u")
        XCTAssertNil(headers["üNÏCODE"], "case folding is ASCII only: field names are tokens")
    }

    func testEveryValueOfARepeatedName() {
        XCTAssertEqual(headers.values("ACCEPT"), ["a", "b"])
        XCTAssertEqual(headers.count("Accept"), 2)
        XCTAssertEqual(headers.combined("accept"), "a, b")
        XCTAssertEqual(headers.count("nope"), 0)
        XCTAssertNil(headers.combined("nope"))
    }

    func testIterationGivesEveryFieldInOrderWithItsSpelling() {
        XCTAssertEqual(headers.map(\.name), ["Host", "X-A-Field-Name-Longer-Than-Fifteen-Bytes", "Accept", "accept", "Ünïcode"])
        XCTAssertEqual(headers.map(\.value), ["example.test", "long", "a", "b", "u"])
        XCTAssertEqual(headers.count, 5)
        XCTAssertTrue(HTTPHeaders().isEmpty)
        XCTAssertEqual(Array(HTTPHeaders()).count, 0)
    }

    func testSetReplacesEveryFieldOfTheNameAndRemoveKeepsTheOthersInOrder() {
        var h = headers
        h.set("ACCEPT", "c")
        XCTAssertEqual(h.values("accept"), ["c"])
        XCTAssertEqual(h.map(\.name), ["Host", "X-A-Field-Name-Longer-Than-Fifteen-Bytes", "Ünïcode", "ACCEPT"])
        h.remove("host")
        h.remove("not-there")
        XCTAssertEqual(h.map(\.name), ["X-A-Field-Name-Longer-Than-Fifteen-Bytes", "Ünïcode", "ACCEPT"])
        XCTAssertEqual(h.count, 3)
        XCTAssertEqual(headers.count, 5, "a copy is its own")
    }

    func testValuesAreReadAsBytesWithoutAString() {
        var h = HTTPHeaders()
        h.add("Empty", "")
        h.add("Authorization", "Bearer abc")
        XCTAssertEqual(h.withValue("authorization") { Array($0) }, Array("Bearer abc".utf8))
        XCTAssertEqual(h.withValue("empty") { $0.count }, 0)
        XCTAssertEqual(h["Empty"], "")
        XCTAssertNil(h.withValue("missing") { $0.count })
    }

    func testReservedHeadersHoldTheirFieldsAndGrowPastTheRoom() {
        var h = HTTPHeaders(reservingBytes: 40)
        XCTAssertTrue(h.isEmpty)
        XCTAssertEqual(h.reservedBytes, 40)
        h.add(static: "Content-Type", "application/json")  // 36 bytes with its lengths
        XCTAssertEqual(h.reservedBytes, 40, "a field that fits is copied into the room")
        h.add(static: "Vary", "Origin")
        h.add("X-Long", String(repeating: "v", count: 100))
        XCTAssertEqual(h.map { "\($0.name)=\($0.value.count)" }, ["Content-Type=16", "Vary=6", "X-Long=100"])
        XCTAssertEqual(h["vary"], "Origin")
        XCTAssertTrue(h.contains(static: "VARY", "Origin"), "the name in any case")
        XCTAssertFalse(h.contains(static: "Vary", "origin"), "the value exactly")
        XCTAssertFalse(h.contains(static: "Vary", "Origins"))
        XCTAssertFalse(h.contains(static: "X-Missing", "Origin"))
    }

    /// `nameBits`: a lookup of a name no field has is answered from the filter, and a name that
    /// is there is found in any case, whether the field was added or parsed (`appendField`), and
    /// whichever other names share its bit.
    func testTheNameFilterRulesOutAbsentNamesAndNeverAPresentOne() {
        let names = ["Host", "User-Agent", "Accept", "Accept-Encoding", "Connection", "Content-Language", "Content-Type",
                     "Authorization", "Cookie", "Origin", "If-Match", "If-None-Match", "Prefer", "Idempotency-Key",
                     "Last-Event-ID", "X-1", "x-2", "A", "Z"]
        var built = HTTPHeaders()
        for name in names { built.add(name, "v-" + name) }
        let head = "POST / HTTP/1.1\r\n" + names.map { "\($0): v-\($0)\r\n" }.joined() + "\r\n"
        var parser = HTTPRequestParser()
        let bytes = Array(head.utf8)
        guard case .request(let request) = bytes.withUnsafeBufferPointer({ parser.parse($0) }).event else {
            return XCTFail("the head parses")
        }
        for headers in [built, request.headers] {
            for name in names {
                for spelling in [name, name.lowercased(), name.uppercased()] {
                    XCTAssertEqual(headers[spelling], "v-" + name, spelling)
                    XCTAssertEqual(headers.count(spelling), 1, spelling)
                    XCTAssertTrue(headers.contains(spelling, value: "v-" + name), spelling)
                    guard case .once(let value) = headers.withSingleValue(spelling, { String(decoding: $0, as: UTF8.self) }) else {
                        return XCTFail(spelling)
                    }
                    XCTAssertEqual(value, "v-" + name)
                }
            }
            XCTAssertNil(headers["Absent-Name"])
        }

        var few = HTTPHeaders()
        few.add("Host", "h")
        few.add("Authorization", "Bearer t")
        for absent in ["Origin", "If-Match", "If-None-Match", "Prefer", "Idempotency-Key"] {
            XCTAssertFalse(absent.utf8.withContiguousStorageIfAvailable { few.mayContain($0) } ?? true, absent)
        }
        XCTAssertTrue("AUTHORIZATION".utf8.withContiguousStorageIfAvailable { few.mayContain($0) } ?? false)
        few.removeAll(keepingCapacity: true)
        XCTAssertFalse("Host".utf8.withContiguousStorageIfAvailable { few.mayContain($0) } ?? true, "emptied, the filter is too")
        few.add("Origin", "o")
        few.remove("Origin")
        XCTAssertFalse("Origin".utf8.withContiguousStorageIfAvailable { few.mayContain($0) } ?? true, "a removed name is gone from it")
    }

    /// A value is written over in place only when it is as long as the one there; the first field
    /// of the name is the one written, and a copy of the headers keeps its own value.
    func testRewriteValueWritesOnlyAValueOfTheSameLength() {
        var h = HTTPHeaders()
        h.add(static: "Content-Type", "application/json")
        h.add(static: "ETag", "\"41\"")
        h.add(static: "ETag", "\"7\"")
        let copy = h
        func rewrite(_ name: StaticString, _ value: String) -> Bool {
            let bytes = Array(value.utf8)
            return h.rewriteValue(static: name, count: bytes.count) { target in
                for i in target.indices { target[i] = bytes[i] }
            }
        }
        XCTAssertTrue(rewrite("etag", "\"42\""))
        XCTAssertEqual(h.values("ETag"), ["\"42\"", "\"7\""])
        XCTAssertEqual(copy.values("ETag"), ["\"41\"", "\"7\""])
        XCTAssertFalse(rewrite("ETag", "\"100\""), "a longer value")
        XCTAssertFalse(rewrite("ETag", "\"1"), "a shorter value")
        XCTAssertFalse(rewrite("Vary", "Origin"), "an absent field")
        XCTAssertEqual(h.map { "\($0.name): \($0.value)" }, ["Content-Type: application/json", "ETag: \"42\"", "ETag: \"7\""])
        XCTAssertEqual(h["etag"], "\"42\"")
    }
}
