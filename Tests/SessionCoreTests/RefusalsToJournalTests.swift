import SessionCore
import XCTest

/// Which kept refusals the next journaled record carries, and until when.
final class RefusalsToJournalTests: XCTestCase {
    let refused = Array(#"{"status":409}"#.utf8)

    @discardableResult
    func keep(_ key: String, on version: Int = 1, durable: Bool = true, answer: [UInt8]? = nil,
              _ refusals: inout RefusalsToJournal, _ ledger: inout Ledger) -> Bool {
        refusals.keep(key, bodyHash: [1], answer: answer ?? refused, decidedOn: version, minimal: false, now: 0, durable: durable, in: &ledger)
    }

    /// Every refusal still kept goes onto the next record, and onto each one after it until one
    /// that carried it is durable (an earlier carrier may yet be refused); a durable carrier
    /// releases what it carried, not what was kept after it.
    func testEveryRecordCarriesTheKeptRefusalsUntilACarrierIsDurable() {
        var ledger = Ledger()
        var refusals = RefusalsToJournal(journaled: true)
        XCTAssertTrue(keep("a", &refusals, &ledger))
        keep("b", &refusals, &ledger)
        let first = refusals.toCarry(in: ledger)
        XCTAssertEqual(first, ["a", "b"])
        XCTAssertEqual(ledger.entries["a"]?.refusal, true)
        XCTAssertEqual(ledger.entries["a"]?.response, refused, "kept as the key's first answer")
        keep("c", &refusals, &ledger)
        XCTAssertEqual(refusals.toCarry(in: ledger), ["a", "b", "c"], "the first carrier is not durable yet: all of them again")
        refusals.carrierDurable(first)
        XCTAssertEqual(refusals.keys, ["c"])
        XCTAssertEqual(refusals.toCarry(in: ledger), ["c"])
        refusals.carrierDurable(["c"])
        XCTAssertTrue(refusals.isEmpty)
        XCTAssertEqual(refusals.toCarry(in: ledger), [])
    }

    /// A key no longer kept as a refusal is not carried and stops waiting: evicted from the
    /// ledger, rolled back with the head it was decided on, or used again by a request applied.
    func testEvictedRolledBackAndReusedKeysAreNotCarried() {
        var ledger = Ledger(capacity: 4)
        var refusals = RefusalsToJournal(journaled: true)
        for key in ["evicted", "reused", "kept", "newer"] { keep(key, &refusals, &ledger) }
        keep("rolled back", on: 3, durable: false, &refusals, &ledger)
        XCTAssertNil(ledger.entries["evicted"], "past the ledger's capacity")
        ledger.drop(after: 2)
        ledger.insert("reused", .init(bodyHash: [2], firstVersion: 2, lastVersion: 2, minimal: false, createdAt: 0, response: [0x7B, 0x7D], durable: true))
        XCTAssertEqual(ledger.entries.keys.sorted(), ["kept", "newer", "reused"])
        XCTAssertEqual(refusals.toCarry(in: ledger), ["kept", "newer"])
        XCTAssertEqual(refusals.keys, ["kept", "newer"], "the others no longer wait")
    }

    /// The list never holds more keys than the ledger can keep, even while keys not durable yet
    /// hold the ledger over its capacity: the oldest names go.
    func testTheListIsCutAtTheLedgersCapacity() {
        var ledger = Ledger(capacity: 2)
        var refusals = RefusalsToJournal(journaled: true)
        for version in 1...5 { keep("k\(version)", on: version, durable: false, &refusals, &ledger) }
        XCTAssertEqual(ledger.entries.count, 5, "keys not durable stay in the ledger")
        XCTAssertEqual(refusals.keys, ["k4", "k5"])
    }

    /// With a log that makes records durable as it takes them, the refusal is kept as the first
    /// answer and nothing waits to be carried.
    func testInMemoryNothingIsCarried() {
        var ledger = Ledger()
        var refusals = RefusalsToJournal(journaled: false)
        XCTAssertTrue(keep("a", &refusals, &ledger))
        XCTAssertEqual(ledger.entries["a"]?.refusal, true)
        XCTAssertTrue(refusals.isEmpty)
        XCTAssertEqual(refusals.toCarry(in: ledger), [])
    }

    /// A refusal larger than `maxRefusalBytes` is not kept at all: the key stays unused.
    func testAnOversizedRefusalIsNotKept() {
        var ledger = Ledger()
        var refusals = RefusalsToJournal(journaled: true)
        let big = Array(repeating: UInt8(0x20), count: Ledger.maxRefusalBytes + 1)
        XCTAssertFalse(keep("big", answer: big, &refusals, &ledger))
        XCTAssertNil(ledger.entries["big"])
        XCTAssertTrue(refusals.isEmpty)
        XCTAssertTrue(keep("fits", answer: Array(big.dropLast()), &refusals, &ledger))
    }

    /// A refusal decided on a head not yet durable is pending, with its repeats waiting; once
    /// that head is durable the refusal is, and its repeats are handed back to be answered, once.
    func testARefusalDecidedOnAPendingHeadReleasesItsRepeatsWhenDurable() {
        var ledger = Ledger()
        var refusals = RefusalsToJournal(journaled: true)
        keep("k", on: 4, durable: false, &refusals, &ledger)
        XCTAssertEqual(ledger.entries["k"]?.durable, false)
        ledger.update("k") { $0.waiters += [7, 8] }
        XCTAssertEqual(refusals.decidedOnDurableHead("k", in: &ledger), [7, 8])
        XCTAssertEqual(ledger.entries["k"]?.durable, true)
        XCTAssertEqual(ledger.entries["k"]?.waiters, [])
        XCTAssertEqual(refusals.decidedOnDurableHead("k", in: &ledger), [], "answered once")
        ledger.insert("ok", .init(bodyHash: [1], firstVersion: 5, lastVersion: 5, minimal: false, createdAt: 0, response: [1], durable: false,
                                  waiters: [9]))
        XCTAssertEqual(refusals.decidedOnDurableHead("ok", in: &ledger), [], "a success's repeats wait for its own append")
    }

    /// Recovery reads back each record's carried refusals before its mark, in journal order: a
    /// refusal two records carried (the first not durable when the second was made) is one entry
    /// in its first place, as the ledger held it live; a key kept again later (after it expired)
    /// moves to the back, as live.
    func testRecoveryKeepsARefusalCarriedTwiceInItsFirstPlace() {
        func refusal(at time: Int64) -> Ledger.Entry {
            .init(bodyHash: [1], firstVersion: 1, lastVersion: 1, minimal: false, createdAt: time, response: refused, durable: true, refusal: true)
        }
        func mark(_ version: Int) -> Ledger.Entry {
            .init(bodyHash: [2], firstVersion: version, lastVersion: version, minimal: false, createdAt: 0, response: nil, durable: true)
        }
        var ledger = Ledger()
        for (key, entry) in [("r", refusal(at: 0)), ("s2", mark(2)), ("r", refusal(at: 0)), ("s3", mark(3))] {
            RefusalsToJournal.recover(key, entry, into: &ledger)
        }
        XCTAssertEqual(ledger.entriesInOrder.map(\.key), ["r", "s2", "s3"])
        RefusalsToJournal.recover("r", refusal(at: 100), into: &ledger)
        XCTAssertEqual(ledger.entriesInOrder.map(\.key), ["s2", "s3", "r"], "kept again: a new entry")
        XCTAssertEqual(ledger.entries["r"]?.createdAt, 100)
        RefusalsToJournal.recover("s2", mark(2), into: &ledger)
        XCTAssertEqual(ledger.entriesInOrder.map(\.key), ["s3", "r", "s2"], "a success's mark is inserted as read")
    }
}
