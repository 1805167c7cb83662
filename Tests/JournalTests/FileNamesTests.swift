import XCTest
@testable import Journal

/// File names of ids with and without a node (`<node>.<random>`): each name parses back to the
/// id and file it was made from, and nothing else parses.
final class FileNamesTests: XCTestCase {
    func testEveryNameParsesBackToItsIdWithOrWithoutANode() {
        for id in ["3q2-7wBqT0uX2mYw9bZ1Qg", "web-1.3q2-7wBqT0uX2mYw9bZ1Qg", "snap.log", "n.snap", "x"] {
            XCTAssertTrue(FileNames.isValidSessionID(id), id)
            XCTAssertEqual(FileNames.parse(FileNames.segment(id, 7)), .segment(id: id, seq: 7), id)
            XCTAssertEqual(FileNames.parse(FileNames.tornCopy(id, 12)), .tornCopy(id: id, seq: 12), id)
            XCTAssertEqual(FileNames.parse(FileNames.snapshot(id)), .snapshot(id: id), id)
            XCTAssertEqual(FileNames.parse(FileNames.snapshotTemp(id)), .snapshotTemp(id: id), id)
            XCTAssertEqual(FileNames.parse(FileNames.snapshotPrevious(id)), .snapshotPrevious(id: id), id)
            XCTAssertEqual(FileNames.parse(FileNames.snapshotCorrupt(id)), .snapshotCorrupt(id: id), id)
        }
    }

    func testIdsHoldAtMostOneInnerDot() {
        for id in ["", ".", "..", ".a", "a.", "a..b", "a.b.c", "a/b", String(repeating: "a", count: 65)] {
            XCTAssertFalse(FileNames.isValidSessionID(id), id)
        }
        for name in ["LOCK", "a.b.c.snap", "a.log", ".snap", "a.00000001.log.tmp", "a.x.log", "a.snap.old", "a.0000001.log"] {
            XCTAssertNil(FileNames.parse(name), name)
        }
    }

    /// Every byte an id may hold, and none other: `[A-Za-z0-9_-]`, and '.' only between two parts.
    func testEveryByteIsJudgedByTheIdCharacterClass() {
        for b in 0...255 {
            let byte = UInt8(b)
            let inClass = (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) || b == 0x5F || b == 0x2D
            let text = String(decoding: [UInt8(ascii: "a"), byte, UInt8(ascii: "b")], as: UTF8.self)
            XCTAssertEqual(FileNames.isValidSessionID(text), inClass || byte == UInt8(ascii: "."), "byte \(b)")
            XCTAssertEqual(FileNames.isValidSessionID(String(decoding: [byte], as: UTF8.self)), inClass, "byte \(b) alone")
        }
        XCTAssertFalse(FileNames.isValidSessionID(""))
        XCTAssertTrue(FileNames.isValidSessionID(String(repeating: "z", count: 64)))
        XCTAssertFalse(FileNames.isValidSessionID(String(repeating: "z", count: 65)))
        XCTAssertFalse(FileNames.isValidSessionID("é"))
    }
}
