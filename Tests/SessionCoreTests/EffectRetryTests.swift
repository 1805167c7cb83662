import SessionCore
import XCTest

/// The retry rule of an effect's action: every answer, every attempt up to the limit.
final class EffectRetryTests: XCTestCase {
    func testAnUnavailableJournalIsRetriedWithDoublingDelaysUpToTheCapThenDropped() {
        let rule = EffectRetry()
        let delays = (0..<12).map { rule.next(after: .unavailable, attempt: $0) }
        XCTAssertEqual(delays, [25, 50, 100, 200, 400, 800, 1_600, 2_000, 2_000, 2_000, 2_000, 2_000].map { .retry(after: .milliseconds($0)) })
        XCTAssertEqual(rule.next(after: .unavailable, attempt: 12), .drop)
        XCTAssertEqual(rule.next(after: .unavailable, attempt: 1_000), .drop)
    }

    func testAnAppliedOrGoneActionIsDoneAndARefusedOneDroppedAtOnce() {
        let rule = EffectRetry()
        for attempt in [0, 5, 12] {
            XCTAssertEqual(rule.next(after: .applied, attempt: attempt), .done)
            XCTAssertEqual(rule.next(after: .gone, attempt: attempt), .done)
            XCTAssertEqual(rule.next(after: .refused, attempt: attempt), .drop)
        }
    }

    func testTheDelayNeverPassesTheCapNorOverflowsWithManyRetries() {
        let rule = EffectRetry(maxRetries: 10_000, firstDelay: .milliseconds(1), maxDelay: .seconds(60))
        XCTAssertEqual(rule.next(after: .unavailable, attempt: 9_999), .retry(after: .seconds(60)))
        XCTAssertEqual(rule.next(after: .unavailable, attempt: 3), .retry(after: .milliseconds(8)))
    }
}
