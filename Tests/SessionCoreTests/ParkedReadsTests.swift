import SessionCore
import XCTest

/// Reads waiting for the head to be durable: released in order, taken back, expired.
final class ParkedReadsTests: XCTestCase {
    func testADurableVersionReleasesThePrefixUpToIt() {
        var reads = ParkedReads<String>()
        let now = MonotonicInstant.now
        reads.park("a", version: 1, at: now)
        reads.park("b", version: 2, at: now)
        reads.park("c", version: 4, at: now)
        XCTAssertEqual(reads.takeDurable(through: 0), [])
        XCTAssertEqual(reads.takeDurable(through: 3), ["a", "b"])
        XCTAssertEqual(reads.count, 1)
        XCTAssertEqual(reads.takeAll(), ["c"], "a rollback reads the rest again")
        XCTAssertTrue(reads.isEmpty)
    }

    /// A read expires past the deadline; a refusal, parked without a time, waits on.
    func testOnlyReadsParkedWithATimeExpire() {
        var reads = ParkedReads<String>()
        let start = MonotonicInstant.now
        reads.park("refusal", version: 1, at: nil)
        reads.park("early", version: 1, at: start)
        reads.park("late", version: 2, at: start + .milliseconds(500))
        XCTAssertEqual(reads.expire(now: start + .milliseconds(999), deadline: .seconds(1)), [])
        XCTAssertEqual(reads.expire(now: start + .seconds(1), deadline: .seconds(1)), ["early"])
        XCTAssertEqual(reads.expire(now: start + .seconds(60), deadline: .seconds(1)), ["late"])
        XCTAssertEqual(reads.takeDurable(through: 1), ["refusal"])
    }
}
