import Dispatch
import Foundation
import Glibc
@testable import HTTPEngine
import Journal
import Synchronization
import XCTest
@testable import StorehouseServer

/// `Committer`: an append made on event loop N waits for that loop's `commit(loop:)`, the last step
/// of its iteration, and forms one group with the rest of the iteration's appends; any other
/// append wakes the journal's writer at once.
final class LoopCommitTests: XCTestCase {
    private typealias Done = (id: String, onCaller: Bool)

    private func openLog(_ name: String = #function, fsync: FsyncPolicy = .never, sessions: [String]) throws -> (JournalLog, Journal) {
        let journal = try Journal(directory: temporaryDirectory(name), fsync: fsync)
        _ = journal.recover()
        for id in sessions { try journal.createSession(id: id, meta: Array("{}".utf8)) }
        return (JournalLog(journal: journal, eventLoops: 2), journal)
    }

    func testALoopsAppendsWaitForItsCommitAndFormOneGroupOnTheLoop() throws {
        let (log, journal) = try openLog(sessions: ["a", "b"])
        defer { journal.close() }
        let caller = pthread_self()
        let done = Mutex<[Done]>([])
        let before = journal.statistics()
        for id in ["a", "b"] {
            log.append(sessionID: id, records: [(version: 1, bytes: Array(id.utf8))], committer: .eventLoop(0)) { result in
                if case .failure(let error) = result { XCTFail("\(id): \(error)") }
                done.withLock { $0.append((id, pthread_equal(pthread_self(), caller) != 0)) }
            }
        }
        XCTAssertTrue(done.withLock { $0.isEmpty }, "nothing woke the writer: the appends wait for loop 0")
        log.commit(loop: 1)
        XCTAssertTrue(done.withLock { $0.isEmpty }, "loop 1 appended nothing and commits nothing")
        log.commit(loop: 0)
        let completed = done.withLock { $0 }
        XCTAssertEqual(completed.map(\.id), ["a", "b"], "both completed, in order, inside loop 0's commit")
        XCTAssertTrue(completed.allSatisfy(\.onCaller), "under --fsync never the loop completes its own group")
        // One group for the two appends, one for the `statistics` call that reads the counters.
        XCTAssertEqual(journal.statistics().groups - before.groups, 2)
    }

    /// A completion run inside the commit may answer a request whose pipelined successor then
    /// appends on the same loop: that append goes in another group before the loop waits.
    func testAnAppendMadeByACompletionInsideTheCommitIsCommittedBeforeItReturns() throws {
        let (log, journal) = try openLog(sessions: ["a"])
        defer { journal.close() }
        let done = Mutex<[Int]>([])
        log.append(sessionID: "a", records: [(version: 1, bytes: [1])], committer: .eventLoop(1)) { _ in
            done.withLock { $0.append(1) }
            log.append(sessionID: "a", records: [(version: 2, bytes: [2])], committer: .eventLoop(1)) { _ in
                done.withLock { $0.append(2) }
            }
        }
        log.commit(loop: 1)
        XCTAssertEqual(done.withLock { $0 }, [1, 2])
    }

    func testAnAppendFromAnyOtherThreadWakesTheWriter() throws {
        let (log, journal) = try openLog(fsync: .always, sessions: ["a", "b"])
        defer { journal.close() }
        let caller = pthread_self()
        let completed = DispatchSemaphore(value: 0)
        let onCaller = Mutex<[Bool]>([])
        // `.journalWriter`, and a loop the log was not told of: no commit(loop:) will come for either.
        for (id, committer) in [("a", Committer.journalWriter), ("b", .eventLoop(7))] {
            log.append(sessionID: id, records: [(version: 1, bytes: [1])], committer: committer) { result in
                if case .failure(let error) = result { XCTFail("\(id): \(error)") }
                onCaller.withLock { $0.append(pthread_equal(pthread_self(), caller) != 0) }
                completed.signal()
            }
        }
        for _ in 0..<2 { XCTAssertEqual(completed.wait(timeout: .now() + 10), .success, "the writer was woken") }
        XCTAssertEqual(onCaller.withLock { $0 }, [false, false])
    }

    /// End to end: under `--fsync never` the loop that served a POST commits its append and runs
    /// the completion itself, so the answer leaves from that loop and no other thread writes it
    /// (`directAnswers` counts answers written off the loops). Under `always` the journal's thread
    /// syncs and answers, which shows the count sees such answers.
    func testAPostIsCommittedAndAnsweredByTheLoopThatServedIt() throws {
        for fsync in [ServerConfiguration.Fsync.never, .always] {
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = temporaryDirectory(); $0.fsync = fsync }
            let (id, token) = try fixture.createSession()
            let core = fixture.server.http.core
            let before = core.directAnswers.load(ordering: .relaxed)
            try fixture.client().incrementCounter(id, token, times: 20)
            let offTheLoop = core.directAnswers.load(ordering: .relaxed) - before
            if fsync == .never {
                XCTAssertEqual(offTheLoop, 0, "--fsync never: every answer leaves from the loop that committed it")
            } else {
                XCTAssertGreaterThan(offTheLoop, 0, "--fsync always: the journal's thread answers")
            }
        }
    }

    /// The session calls `append` holding its lock, which a completion takes: a refusal must not
    /// run inside the call (it comes with the loop's commit, like every answer of the journal).
    func testARefusalIsNotAnsweredInsideAppend() throws {
        let (log, journal) = try openLog(sessions: [])
        defer { journal.close() }
        let answered = DispatchSemaphore(value: 0)
        let returned = Mutex(false)
        let answeredAfterReturn = Mutex<Bool?>(nil)
        log.append(sessionID: "../not-an-id", records: [(version: 1, bytes: [1])], committer: .eventLoop(0)) { result in
            guard case .failure(JournalError.invalidSessionID) = result else { return XCTFail("an invalid id was accepted: \(result)") }
            answeredAfterReturn.withLock { $0 = returned.withLock { $0 } }
            answered.signal()
        }
        returned.withLock { $0 = true }
        log.commit(loop: 0)
        XCTAssertEqual(answered.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(answeredAfterReturn.withLock { $0 }, true)
    }
}
