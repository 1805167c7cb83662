import StoreCore
import XCTest
@testable import SessionCore

/// The history ring: appends, the window, and truncation after a rolled-back append.
final class ActionHistoryTests: XCTestCase {
    func entry(_ version: Int) -> ActionHistory.Entry {
        .init(version: version, record: ActionRecord(type: "counter/incrTapped", at: Int64(version), source: .client), patch: [])
    }

    func testKeepsTheLastCapacityEntries() {
        var history = ActionHistory(capacity: 3)
        for v in 1...5 { history.append(entry(v)) }
        XCTAssertEqual(history.firstVersion, 3)
        XCTAssertEqual(history.lastVersion, 5)
        XCTAssertEqual(history.entries(1...9).map(\.version), [3, 4, 5])
    }

    func testAppendAfterTruncateContinuesInOrderWhetherFullOrNot() {
        for (capacity, filled) in [(10, 5), (3, 5), (4, 4)] {
            var history = ActionHistory(capacity: capacity)
            for v in 1...filled { history.append(entry(v)) }
            history.truncate(after: filled - 2)
            for v in (filled - 1)...(filled + 3) { history.append(entry(v)) }
            let kept = history.entries(0...100).map(\.version)
            XCTAssertEqual(kept, Array(max(1, filled + 4 - capacity)...(filled + 3)), "capacity \(capacity), filled \(filled)")
            XCTAssertEqual(history.lastVersion, filled + 3)
        }
    }

    /// Entries after the floor (not yet sent to subscribers) stay past the capacity; once the
    /// floor passes them, the next append brings the window back to the capacity.
    func testKeepsEntriesAfterTheFloorPastTheCapacity() {
        var history = ActionHistory(capacity: 2)
        for v in 1...2 { history.append(entry(v)) }
        for v in 3...40 { history.append(entry(v), keepingAfter: 2) }
        XCTAssertEqual(history.entries(0...100).map(\.version), Array(1...40), "the window before the floor, everything after it")
        history.append(entry(41), keepingAfter: 39)
        XCTAssertEqual(history.entries(0...100).map(\.version), [38, 39, 40, 41], "two at or before the floor, and those after it")
        history.truncate(after: 40)
        for v in 41...43 { history.append(entry(v)) }
        XCTAssertEqual(history.entries(0...100).map(\.version), [42, 43])
    }

    /// The slots a burst grew past the capacity are given back once it has passed, and the ring
    /// keeps its order through every re-layout.
    func testGivesBackTheSlotsOfABurst() {
        var history = ActionHistory(capacity: 4)
        for v in 1...3 { history.append(entry(v)) }
        for v in 4...1_000 { history.append(entry(v), keepingAfter: 3) }
        XCTAssertEqual(history.count, 1_000)
        XCTAssertGreaterThanOrEqual(history.slotCount, 1_000)
        for v in 1_001...1_010 { history.append(entry(v)) }
        XCTAssertLessThanOrEqual(history.slotCount, 32, "the burst's slots are back")
        XCTAssertEqual(history.entries(0...2_000).map(\.version), Array(1_007...1_010))
    }

    func heavy(_ version: Int, _ bytes: Int) -> ActionHistory.Entry {
        .init(version: version, record: ActionRecord(type: "t", at: 0, source: .client), patch: Array(repeating: 0x20, count: bytes))
    }

    func testBytesFollowAppendsTheCountLimitAndTruncation() {
        var history = ActionHistory(capacity: 3)
        let weight = heavy(1, 100).weight
        for v in 1...5 { history.append(heavy(v, 100)) }
        XCTAssertEqual(history.bytes, 3 * weight)
        XCTAssertEqual(history.droppedBytes, 2 * weight, "two entries left the window by count")
        history.truncate(after: 4)
        XCTAssertEqual(history.bytes, 2 * weight)
        XCTAssertEqual(history.droppedBytes, 2 * weight, "a rolled-back entry did not leave from the old end")
    }

    func testTheCutToFitTheBudgetAndDroppingThroughIt() {
        var history = ActionHistory(capacity: 100)
        for v in 1...10 { history.append(heavy(v, 1_000)) }
        let weight = heavy(1, 1_000).weight
        XCTAssertNil(history.versionToDropThrough(toFit: 10 * weight), "it fits")
        XCTAssertEqual(history.versionToDropThrough(toFit: 3 * weight), 7)
        XCTAssertEqual(history.versionToDropThrough(toFit: 3 * weight + weight / 2), 7)
        history.drop(through: 7)
        XCTAssertEqual(history.entries(0...100).map(\.version), [8, 9, 10])
        XCTAssertEqual(history.droppedBytes, 7 * weight)
        for v in 11...14 { history.append(heavy(v, 1_000)) }
        history.drop(through: 11)
        for v in 15...16 { history.append(heavy(v, 1_000)) }
        XCTAssertEqual(history.entries(0...100).map(\.version), Array(12...16), "appends continue after drops")
        XCTAssertEqual(history.bytes, 5 * weight)
    }

    func testAWeightCountsTheActionsJSON() {
        let small = ActionHistory.Entry(version: 1, record: ActionRecord(type: "t", at: 0, source: .client), patch: [])
        let big = ActionHistory.Entry(version: 1, record: ActionRecord(type: "t", meta: .string(String(repeating: "x", count: 5_000)), at: 0, source: .client), patch: [])
        XCTAssertGreaterThanOrEqual(big.weight - small.weight, 5_000)
    }
}
