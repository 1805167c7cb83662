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
}
