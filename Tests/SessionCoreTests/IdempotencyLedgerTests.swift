import SessionCore
import XCTest

/// First answers as bytes, waiting repeats as request ids: the ledger weighs and holds them, nothing more.
typealias Ledger = IdempotencyLedger<[UInt8], Int>

/// The idempotency window: keys by count and age, first answers by bytes.
final class IdempotencyLedgerTests: XCTestCase {
    func entry(version: Int, answer bytes: Int?, durable: Bool = true, refusal: Bool = false) -> Ledger.Entry {
        .init(bodyHash: [1], firstVersion: version, lastVersion: version, minimal: false, createdAt: 0,
              response: bytes.map { Array(repeating: 0x20, count: $0) }, durable: durable, refusal: refusal)
    }

    func testOldestAnswersAreLetGoPastTheBudgetAndTheirKeysStay() {
        var cache = Ledger(answerBudget: 250)
        for v in 1...5 { cache.insert("k\(v)", entry(version: v, answer: 100)) }
        XCTAssertEqual(cache.answerBytes, 200)
        XCTAssertEqual((1...5).map { cache.lookup("k\($0)", now: 0)?.response != nil }, [false, false, false, true, true])
        XCTAssertEqual((1...5).compactMap { cache.lookup("k\($0)", now: 0)?.lastVersion }, [1, 2, 3, 4, 5], "every key is still known")
    }

    /// A refusal cannot be rendered again from history, so the budget never lets it go.
    func testAKeptRefusalStaysPastTheBudget() {
        var cache = Ledger(answerBudget: 250)
        cache.insert("no", entry(version: 1, answer: 100, refusal: true))
        for v in 2...5 { cache.insert("k\(v)", entry(version: v, answer: 100)) }
        XCTAssertNotNil(cache.lookup("no", now: 0)?.response)
        XCTAssertEqual((2...5).map { cache.lookup("k\($0)", now: 0)?.response != nil }, [false, false, true, true])
    }

    /// A key whose actions are on their way to the journal may have repeats waiting on it; evicted,
    /// nothing would answer them.
    func testEvictionByCountPassesOverAKeyNotDurableYet() {
        var cache = Ledger(capacity: 2)
        cache.insert("pending", entry(version: 1, answer: 10, durable: false))
        cache.insert("k2", entry(version: 2, answer: 10))
        cache.insert("k3", entry(version: 3, answer: 10))
        XCTAssertEqual(cache.entries.keys.sorted(), ["k3", "pending"])
    }

    /// With every other key in flight the cache runs over its capacity rather than drop a key
    /// with repeats waiting on it (or the key just inserted), and comes back once they are durable.
    func testTheCacheRunsOverCapacityWhileEveryOtherKeyIsInFlight() {
        var cache = Ledger(capacity: 2)
        cache.insert("p1", entry(version: 1, answer: 10, durable: false))
        cache.insert("p2", entry(version: 2, answer: 10, durable: false))
        cache.insert("k3", entry(version: 3, answer: 10))
        XCTAssertEqual(cache.entries.keys.sorted(), ["k3", "p1", "p2"])
        cache.update("p1") { $0.durable = true }
        cache.insert("k4", entry(version: 4, answer: 10))
        XCTAssertEqual(cache.entries.keys.sorted(), ["k4", "p2"])
    }

    func testAKeptRefusalCountsNothingAgainstTheBudget() {
        var cache = Ledger(answerBudget: 100)
        cache.insert("no", entry(version: 1, answer: 90, refusal: true))
        cache.insert("ok", entry(version: 2, answer: 90))
        XCTAssertEqual(cache.answerBytes, 90)
        XCTAssertNotNil(cache.lookup("no", now: 0)?.response)
        XCTAssertNotNil(cache.lookup("ok", now: 0)?.response, "a refusal does not push a success's answer out")
    }

    func testTheNewestAnswerIsKeptEvenAloneOverTheBudget() {
        var cache = Ledger(answerBudget: 50)
        cache.insert("small", entry(version: 1, answer: 10))
        cache.insert("big", entry(version: 2, answer: 100))
        XCTAssertNotNil(cache.lookup("big", now: 0)?.response)
        XCTAssertNil(cache.lookup("small", now: 0)?.response)
        XCTAssertEqual(cache.answerBytes, 100)
    }

    func testBytesFollowEvictionReplacementUpdateAndRollback() {
        var cache = Ledger(capacity: 3, answerBudget: 1 << 20)
        for v in 1...4 { cache.insert("k\(v)", entry(version: v, answer: 10 * v)) }
        XCTAssertNil(cache.entries["k1"], "the oldest key is evicted by count")
        XCTAssertEqual(cache.answerBytes, 20 + 30 + 40)
        cache.insert("k2", entry(version: 5, answer: 7))
        XCTAssertEqual(cache.answerBytes, 7 + 30 + 40, "a key inserted again replaces its answer")
        cache.update("k3") { $0.response = nil }
        XCTAssertEqual(cache.answerBytes, 7 + 40)
        _ = cache.drop(after: 4)
        XCTAssertEqual(cache.entries.keys.sorted(), ["k3", "k4"])
        XCTAssertEqual(cache.answerBytes, 40)
    }

    func testAKeyInsertedAgainIsNotLetGoForItsOldPlace() {
        var cache = Ledger(answerBudget: 250)
        cache.insert("a", entry(version: 1, answer: 100))
        cache.insert("b", entry(version: 2, answer: 100))
        cache.insert("a", entry(version: 3, answer: 100))  // expired and reused: now the newest
        cache.insert("c", entry(version: 4, answer: 100))
        XCTAssertNil(cache.lookup("b", now: 0)?.response, "b is now the oldest answer")
        XCTAssertNotNil(cache.lookup("a", now: 0)?.response)
        XCTAssertNotNil(cache.lookup("c", now: 0)?.response)
    }

    func testAKeyUsedAgainAfterARollbackKeepsItsNewAnswer() {
        var cache = Ledger(answerBudget: 150)
        cache.insert("a", entry(version: 1, answer: 100))
        _ = cache.drop(after: 0)  // a's action was rolled back; the client retries with the same key
        cache.insert("b", entry(version: 1, answer: 100))
        cache.insert("a", entry(version: 2, answer: 100))
        XCTAssertNotNil(cache.lookup("a", now: 0)?.response, "the newest answer is kept")
        XCTAssertNil(cache.lookup("b", now: 0)?.response)
        XCTAssertEqual(cache.answerBytes, 100)
    }

    /// A rollback hands back the repeats waiting on the keys it forgets, and only those.
    func testDropAfterAVersionReturnsTheWaitersOfTheKeysItForgets() {
        var ledger = Ledger()
        ledger.insert("kept", entry(version: 1, answer: 10, durable: false))
        ledger.insert("gone", entry(version: 2, answer: 10, durable: false))
        ledger.update("kept") { $0.waiters.append(1) }
        ledger.update("gone") { $0.waiters += [2, 3] }
        XCTAssertEqual(ledger.drop(after: 1), [2, 3])
        XCTAssertEqual(ledger.entries.keys.sorted(), ["kept"])
        XCTAssertEqual(ledger.takeAllWaiters(), [1], "a deleted session answers the rest")
        XCTAssertEqual(ledger.takeAllWaiters(), [], "once")
    }

    func testAKeyExpiresAfterItsLifetime() {
        var ledger = Ledger(lifetime: 100)
        ledger.insert("k", entry(version: 1, answer: 10))
        XCTAssertNotNil(ledger.lookup("k", now: 99))
        XCTAssertNil(ledger.lookup("k", now: 100))
    }

    /// A snapshot writes the keys in eviction order, and recovery inserts them back in it.
    func testEntriesInOrderFollowInsertionAndReinsertion() {
        var ledger = Ledger()
        for key in ["a", "b", "c"] { ledger.insert(key, entry(version: 1, answer: nil)) }
        ledger.insert("a", entry(version: 2, answer: nil))
        XCTAssertEqual(ledger.entriesInOrder.map(\.key), ["b", "c", "a"])
    }
}
