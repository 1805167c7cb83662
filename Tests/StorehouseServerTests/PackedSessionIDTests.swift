@testable import StorehouseServer
import XCTest

/// `PackedSessionID`: the registry's key, packed from a string or from a request path's bytes.
final class PackedSessionIDTests: XCTestCase {
    private func packed(bytes text: String) -> PackedSessionID? {
        Array(text.utf8).withUnsafeBufferPointer { PackedSessionID(wellFormed: $0) }
    }

    func testAnIdPackedFromBytesEqualsTheSameIdPackedFromItsStringAndHashesAlike() throws {
        for id in ["a", "3q2-7wBqT0uX2mYw9bZ1Qg", "web-1.3q2-7wBqT0uX2mYw9bZ1Qg", String(repeating: "z", count: 64), "abcdefgh", "abcdefghi"] {
            let fromBytes = try XCTUnwrap(packed(bytes: id), id)
            let fromString = try XCTUnwrap(PackedSessionID(id), id)
            XCTAssertEqual(fromBytes, fromString, id)
            XCTAssertEqual(fromBytes.hashValue, fromString.hashValue, id)
            XCTAssertEqual(fromBytes.string, id)
            XCTAssertEqual(Set([fromBytes, fromString]).count, 1)
        }
    }

    func testOnlyWellFormedIdsPackFromBytes() {
        for id in ["", "a/b", "a b", "é", ".abc", "Web-1.abc", "a..b", "web-1.", String(repeating: "z", count: 65)] {
            XCTAssertNil(packed(bytes: id), id)
        }
        XCTAssertNotNil(packed(bytes: "web-1.abc"))
    }

    func testIdsThatDifferOnlyPastTheFirstWordOrInLengthAreDifferentKeys() throws {
        let ids = ["abcdefgh", "abcdefghi", "abcdefghj", "abcdefg", "abcdefgh" + String(repeating: "x", count: 56)]
        let keys = try ids.map { try XCTUnwrap(PackedSessionID($0)) }
        XCTAssertEqual(Set(keys).count, ids.count)
        var table: [PackedSessionID: String] = [:]
        for (key, id) in zip(keys, ids) { table[key] = id }
        for (key, id) in zip(keys, ids) { XCTAssertEqual(table[key], id) }
    }

    func testOrderIsTheStringsOrder() throws {
        let ids = ["a", "ab", "abcdefgh", "abcdefgha", "abcdefgi", "B", "_", "-", "z9", "3q2", "3q3", "3q2-7wBqT0uX2mYw9bZ1Qg"]
        let keys = try ids.map { try XCTUnwrap(PackedSessionID($0)) }
        XCTAssertEqual(keys.sorted().map(\.string), ids.sorted())
    }

    func testHasNodeIsWhetherTheIdHoldsADot() throws {
        XCTAssertTrue(try XCTUnwrap(packed(bytes: "web-1.3q2-7wBqT0uX2mYw9bZ1Qg")).hasNode)
        XCTAssertTrue(try XCTUnwrap(packed(bytes: "abcdefghijklmnop.q")).hasNode)  // the dot in a later word
        XCTAssertFalse(try XCTUnwrap(packed(bytes: "3q2-7wBqT0uX2mYw9bZ1Qg")).hasNode)
        XCTAssertFalse(try XCTUnwrap(packed(bytes: String(repeating: "-", count: 64))).hasNode)
    }
}
