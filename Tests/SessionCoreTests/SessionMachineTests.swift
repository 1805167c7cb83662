import SessionCore
import XCTest

/// The request lifecycle without sockets, journal or threads: every command and every change of
/// state, event by event.
final class SessionMachineTests: XCTestCase {
    let later = MonotonicInstant.now

    /// A POST under `--fsync always`: applied, appended, answered once durable.
    func testAPostIsAnsweredOnceItsAppendIsDurable() {
        let machine = TestMachine()
        XCTAssertTrue(machine.machine.admitsAtOnce(head: 0), "without a key the host may skip .submit")
        machine.send(.submit(1, key: nil, head: 0, now: 0), [.proceed(1)])
        machine.send(.applied(1, versions: 1...2, key: nil, inline: false), [.append(1, epoch: 0)]) { $0.inFlight = 1 }
        machine.send(.appendAnswered(1, versions: 1...2, key: nil, epoch: 0, durable: true, head: 2),
                     [.madeDurable(1, through: 2), .reply(1, .answer), .startEffects(1)]) {
            $0.inFlight = 0
            $0.durable = 2
            $0.published = 2
        }
    }

    /// In memory the log takes the actions durable: no append, the answer at once.
    func testInMemoryTheAnswerComesWithTheApply() {
        let machine = TestMachine()
        machine.send(.applied(7, versions: 1...1, key: nil, inline: true), [.madeDurable(7, through: 1), .reply(7, .answer), .startEffects(7)]) {
            $0.durable = 1
            $0.published = 1
        }
    }

    /// The journal refuses an append: the head goes back to the durable version, the request, the
    /// repeats waiting on it and every append queued behind it are answered 503, and the reads
    /// parked on the rolled-back head read again.
    func testAFailedSyncRollsBackAndRefusesEverythingAfterTheDurableVersion() {
        let machine = TestMachine()
        machine.send(.applied(1, versions: 1...1, key: nil, inline: false), [.append(1, epoch: 0)]) { $0.inFlight = 1 }
        machine.insertKey("k", versions: 2...2)
        machine.send(.applied(2, versions: 2...2, key: "k", inline: false), [.append(2, epoch: 0)]) { $0.inFlight = 2 }
        machine.send(.submit(3, key: ("k", [1]), head: 2, now: 0), []) { $0.keys["k"]?.waiters = [3] }
        machine.send(.read("GET state", version: 2, head: 2, at: later), []) { $0.parked = 1 }

        machine.send(.appendAnswered(1, versions: 1...1, key: nil, epoch: 0, durable: false, head: 2),
                     [.rollBack(to: 0), .readAgain("GET state"), .reply(1, .journalUnavailable), .reply(3, .journalUnavailable)]) {
            $0.inFlight = 1
            $0.epoch = 1
            $0.parked = 0
            $0.keys["k"] = nil
        }
        // Queued behind the refused one, its success is stale: its version is gone.
        machine.send(.appendAnswered(2, versions: 2...2, key: "k", epoch: 0, durable: true, head: 0), [.reply(2, .journalUnavailable)]) {
            $0.inFlight = 0
        }
        // The next request starts the new epoch and is durable as usual.
        machine.send(.applied(4, versions: 1...1, key: nil, inline: false), [.append(4, epoch: 1)]) { $0.inFlight = 1 }
        machine.send(.appendAnswered(4, versions: 1...1, key: nil, epoch: 1, durable: true, head: 1),
                     [.madeDurable(4, through: 1), .reply(4, .answer), .startEffects(4)]) {
            $0.inFlight = 0
            $0.durable = 1
            $0.published = 1
        }
    }

    /// A rollback that could not rebuild the head leaves it stuck ahead of the journal: writes and
    /// reads are refused until a restart rebuilds the session.
    func testAStuckHeadRefusesWritesAndSendsReadsBack() {
        let machine = TestMachine()
        machine.send(.applied(1, versions: 1...1, key: nil, inline: false), [.append(1, epoch: 0)]) { $0.inFlight = 1 }
        machine.send(.applied(2, versions: 2...2, key: nil, inline: false), [.append(2, epoch: 0)]) { $0.inFlight = 2 }
        machine.send(.read("GET state", version: 2, head: 2, at: later), []) { $0.parked = 1 }
        machine.send(.appendAnswered(1, versions: 1...1, key: nil, epoch: 0, durable: false, head: 2),
                     [.rollBack(to: 0), .readAgain("GET state"), .reply(1, .journalUnavailable)]) {
            $0.inFlight = 1
            $0.epoch = 1
            $0.parked = 0
        }
        // The host kept the head at 2 (no kept state to rebuild from); a read parked meanwhile...
        machine.send(.read("GET again", version: 2, head: 2, at: later), []) { $0.parked = 1 }
        // ...reads again once the last append in flight is answered and nothing can make 2 durable.
        machine.send(.appendAnswered(2, versions: 2...2, key: nil, epoch: 0, durable: true, head: 2),
                     [.readAgain("GET again"), .reply(2, .journalUnavailable)]) {
            $0.inFlight = 0
            $0.parked = 0
        }
        XCTAssertTrue(machine.machine.admitsAtOnce(head: 0), "a head back at the durable version is not stuck")
        XCTAssertFalse(machine.machine.admitsAtOnce(head: 2), "the host feeds .submit, which refuses")
        machine.send(.submit(5, key: nil, head: 2, now: 0), [.reply(5, .headStuck)])
        machine.send(.read("GET third", version: 2, head: 2, at: later), [.refuseRead("GET third", .headStuck)])
    }

    /// A repeat while the first request is in flight waits for its answer; once durable, a repeat
    /// gets the kept first answer; the same key with another body is refused.
    func testIdempotentRepeatsGetTheFirstAnswer() {
        let machine = TestMachine()
        machine.send(.submit(1, key: ("k", [1]), head: 0, now: 0), [.proceed(1)])
        machine.insertKey("k", versions: 1...1)
        machine.send(.applied(1, versions: 1...1, key: "k", inline: false), [.append(1, epoch: 0)]) { $0.inFlight = 1 }
        machine.send(.submit(2, key: ("k", [1]), head: 1, now: 0), []) { $0.keys["k"]?.waiters = [2] }
        machine.send(.appendAnswered(1, versions: 1...1, key: "k", epoch: 0, durable: true, head: 1),
                     [.madeDurable(1, through: 1), .reply(1, .answer), .reply(2, .replayOf(1)), .startEffects(1)]) {
            $0.inFlight = 0
            $0.durable = 1
            $0.published = 1
            $0.keys["k"] = .init(durable: true)
        }
        machine.send(.submit(3, key: ("k", [1]), head: 1, now: 5), [.reply(3, .replay)])
        XCTAssertEqual(machine.machine.ledger.entries["k"]?.response, Array("first".utf8), "the answer the host replays")
        machine.send(.submit(4, key: ("k", [2]), head: 1, now: 5), [.reply(4, .keyReused)])
        // Past its lifetime the key is new again.
        machine.send(.submit(5, key: ("k", [2]), head: 1, now: 24 * 3_600_000), [.proceed(5)])
    }

    /// After a restart the ledger is read back from the journal without the answers: a repeat gets
    /// the entry, which the host renders again from history.
    func testARepeatAcrossARestartGetsTheRecoveredEntry() {
        var ledger = IdempotencyLedger<[UInt8], RequestID>()
        let recovered = IdempotencyLedger<[UInt8], RequestID>.Entry(bodyHash: [9], firstVersion: 3, lastVersion: 4, minimal: true,
                                                                     createdAt: 0, response: nil, durable: true)
        ledger.insert("k", recovered)
        let machine = TestMachine(version: 4, ledger: ledger)
        machine.send(.recovered(version: 4), [])
        machine.send(.submit(1, key: ("k", [9]), head: 4, now: 1), [.reply(1, .replay)])
        XCTAssertEqual(machine.machine.ledger.entries["k"], recovered, "without its answer: the host renders it from history")
    }

    /// A read of a head not durable yet waits for it; past the deadline it is answered 503.
    func testParkedReadsWaitForTheirVersionOrExpire() {
        let machine = TestMachine()
        let start = MonotonicInstant.now
        machine.send(.read("now", version: 0, head: 0, at: start), [.answerRead("now")])
        machine.send(.applied(1, versions: 1...1, key: nil, inline: false), [.append(1, epoch: 0)]) { $0.inFlight = 1 }
        machine.send(.read("r1", version: 1, head: 1, at: start), []) { $0.parked = 1 }
        machine.send(.applied(2, versions: 2...2, key: nil, inline: false), [.append(2, epoch: 0)]) { $0.inFlight = 2 }
        machine.send(.read("r2", version: 2, head: 2, at: start + .seconds(1)), []) { $0.parked = 2 }
        machine.send(.tick(now: start + .milliseconds(999), deadline: .seconds(1)), [])
        machine.send(.appendAnswered(1, versions: 1...1, key: nil, epoch: 0, durable: true, head: 2),
                     [.madeDurable(1, through: 1), .reply(1, .answer), .startEffects(1), .answerRead("r1")]) {
            $0.inFlight = 1
            $0.durable = 1
            $0.published = 1
            $0.parked = 1
        }
        machine.send(.tick(now: start + .seconds(2), deadline: .seconds(1)), [.refuseRead("r2", .notDurableInTime)]) { $0.parked = 0 }
    }

    /// A delete sends every parked read back (to find the session gone) and answers the waiting
    /// repeats 404, as it does the appends still in flight.
    func testDeleteAnswersEverythingWaiting() {
        let machine = TestMachine()
        machine.insertKey("k", versions: 1...1)
        machine.send(.applied(1, versions: 1...1, key: "k", inline: false), [.append(1, epoch: 0)]) { $0.inFlight = 1 }
        machine.send(.submit(2, key: ("k", [1]), head: 1, now: 0), []) { $0.keys["k"]?.waiters = [2] }
        machine.send(.read("r", version: 1, head: 1, at: later), []) { $0.parked = 1 }
        machine.send(.delete(now: 0), [.readAgain("r"), .reply(2, .notFound)]) {
            $0.deleted = true
            $0.parked = 0
            $0.keys["k"]?.waiters = []
        }
        machine.send(.appendAnswered(1, versions: 1...1, key: "k", epoch: 0, durable: true, head: 1), [.reply(1, .notFound)]) { $0.inFlight = 0 }
        XCTAssertFalse(machine.machine.admitsAtOnce(head: 1), "the host feeds .submit, which refuses")
        machine.send(.submit(3, key: nil, head: 1, now: 0), [.reply(3, .notFound)])
        machine.send(.read("late", version: 0, head: 1, at: later), [.refuseRead("late", .notFound)])
    }
}
