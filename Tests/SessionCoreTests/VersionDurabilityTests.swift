import SessionCore
import XCTest

/// The durable and published versions, the appends in flight, and the epoch a rollback starts.
final class VersionDurabilityTests: XCTestCase {
    func testAnAppendMadeDurableIsPublishedOnce() {
        var durability = Durability(version: 4)
        let epoch = durability.appendStarted()
        XCTAssertEqual(durability.appendsInFlight, 1)
        XCTAssertTrue(durability.appendAnswered(epoch: epoch))
        XCTAssertTrue(durability.madeDurable(through: 6))
        XCTAssertFalse(durability.madeDurable(through: 5), "versions never go back")
        XCTAssertEqual(durability.settledVersion, 4, "not published yet")
        XCTAssertEqual(durability.publishDurable(), 5...6)
        XCTAssertNil(durability.publishDurable())
        XCTAssertEqual(durability, {
            var expected = Durability(version: 6)
            _ = expected.appendStarted()
            expected.appendAnswered(epoch: 0)
            return expected
        }())
    }

    /// Answers of appends made before a rollback are stale: their versions are gone.
    func testARollbackMakesTheAppendsBeforeItStale() {
        var durability = Durability(version: 0)
        let first = durability.appendStarted()
        let second = durability.appendStarted()
        XCTAssertTrue(durability.appendAnswered(epoch: first))
        durability.rolledBack(to: 0)
        XCTAssertFalse(durability.appendAnswered(epoch: second), "queued behind the refused one")
        XCTAssertTrue(durability.appendAnswered(epoch: durability.appendStarted()), "a new append counts")
        XCTAssertEqual(durability.appendsInFlight, 0)
    }

    /// A head ahead of the durable version with nothing in flight cannot become durable.
    func testAHeadIsStuckOnlyAheadWithNothingInFlight() {
        var durability = Durability(version: 2)
        XCTAssertFalse(durability.isStuck(head: 2))
        XCTAssertTrue(durability.isStuck(head: 3))
        let epoch = durability.appendStarted()
        XCTAssertFalse(durability.isStuck(head: 3), "its append may still make it durable")
        durability.appendAnswered(epoch: epoch)
        XCTAssertTrue(durability.isStuck(head: 3))
    }

    func testResetMakesEveryVersionDurableAndPublished() {
        var durability = Durability(version: 0)
        durability.reset(to: 9)
        XCTAssertEqual(durability.durableVersion, 9)
        XCTAssertEqual(durability.publishedVersion, 9)
        XCTAssertNil(durability.publishDurable())
    }
}
