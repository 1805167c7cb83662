import XCTest
@testable import Journal

/// The list `batch` and `never` claims are made from: oldest first, the oldest dropped past the limit.
final class UnsyncedWritesTests: XCTestCase {
    func testKeepsTheNewestLimitWritesInOrder() {
        var writes = UnsyncedWrites()
        for g in 1...(3 * UnsyncedWrites.limit + 5) { writes.append(group: g, size: g * 10) }
        XCTAssertEqual(writes.count, UnsyncedWrites.limit)
        let first = 2 * UnsyncedWrites.limit + 6
        XCTAssertEqual(writes.map(\.group), Array(first...(3 * UnsyncedWrites.limit + 5)))
        XCTAssertEqual(writes.map(\.size), writes.map { $0.group * 10 })
    }

    func testRemovingFromTheFrontAndByCondition() {
        var writes = UnsyncedWrites()
        for g in 1...(UnsyncedWrites.limit + 3) { writes.append(group: g, size: g) }
        writes.removeFirst(2)
        XCTAssertEqual(writes.map(\.group).first, 6)
        writes.removeAll { $0.size > 10 }
        XCTAssertEqual(writes.map(\.group), [6, 7, 8, 9, 10])
        writes.removeFirst(5)
        XCTAssertTrue(writes.isEmpty)
        writes.append(group: 99, size: 1)
        XCTAssertEqual(writes.map(\.group), [99])
        writes.removeAll()
        XCTAssertEqual(writes.count, 0)
    }
}
