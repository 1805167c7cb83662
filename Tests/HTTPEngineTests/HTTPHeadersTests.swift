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
}
