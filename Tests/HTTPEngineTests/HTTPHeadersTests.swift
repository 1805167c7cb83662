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
}
