@testable import StorehouseServer
import XCTest

/// `SessionIndex`: pages in id order across pending changes and compactions.
final class SessionIndexTests: XCTestCase {
    private func pages(_ index: inout SessionIndex, limit: Int, include: (String) -> Bool = { _ in true }) -> [String] {
        var all: [String] = []
        var cursor: String?
        while true {
            let (packed, more) = index.page(after: cursor, limit: limit) { include($0.string) }
            let ids = packed.map(\.string)
            XCTAssertLessThanOrEqual(ids.count, limit)
            all += ids
            guard more else { return all }
            XCTAssertEqual(ids.count, limit, "a page that is not the last is full")
            cursor = ids.last
        }
    }

    func testPagesListEveryLiveIdOnceInOrderThroughChangesAndCompactions() {
        var generator = SystemRandomNumberGenerator()
        var index = SessionIndex()
        var live = Set<String>()
        // Enough changes to pass the compaction threshold (4,096) several times, with pages read
        // in between so that both the merged walk and the compacted base are used.
        for round in 0..<3 {
            for _ in 0..<2_500 {
                let id = Secrets.randomBase64URL(bytes: 16)
                index.insert(id)
                live.insert(id)
            }
            for id in live.shuffled(using: &generator).prefix(500) {
                index.remove(id)
                live.remove(id)
            }
            XCTAssertEqual(index.count, live.count, "round \(round)")
            XCTAssertEqual(pages(&index, limit: 997), live.sorted(), "round \(round)")
        }
        let even = pages(&index, limit: 50) { $0.utf8.last.map { $0 % 2 == 0 } ?? false }
        XCTAssertEqual(even, live.sorted().filter { $0.utf8.last.map { $0 % 2 == 0 } ?? false })
    }

    func testARemovedIdInsertedAgainIsListedOnce() {
        var index = SessionIndex()
        for id in ["a", "b", "c"] { index.insert(id) }
        _ = index.page(after: nil, limit: 10) { _ in true }
        index.remove("b")
        index.insert("b")
        XCTAssertEqual(pages(&index, limit: 2), ["a", "b", "c"])
        XCTAssertEqual(index.page(after: "c", limit: 5) { _ in true }.ids, [])
        XCTAssertEqual(index.page(after: "a", limit: 1) { _ in true }.ids.map(\.string), ["b"])
        XCTAssertEqual(index.page(after: "a", limit: 1) { _ in true }.more, true)
    }
}
