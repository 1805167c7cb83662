import StoreCore
import XCTest
@testable import StorehouseServer

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
}
