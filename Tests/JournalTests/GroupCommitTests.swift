import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import Journal

final class GroupCommitTests: XCTestCase {
    /// Many threads append to many sessions without waiting: completions arrive in call order per
    /// session, every record is recovered, and syncs are shared (far fewer syncs than appends).
    func testConcurrentAppendsShareSyncsAndCompleteInOrder() throws {
        for mode in [JournalWriter.SyncMode.perFile, .syncfs(threshold: 4)] {
            let dir = makeTempDirectory(self)
            let sessions = 32
            let perSession = 40
            do {
                let j = try Journal(directory: dir, fsync: .always, snapshotEvery: 1_000, syncMode: mode)
                _ = j.recover()
                for s in 0..<sessions { try j.createSession(id: "s\(s)", meta: []) }
                let before = j.statistics()
                let order = Mutex<[Int: [Int]]>([:])
                let failures = Mutex(0)
                let all = DispatchGroup()
                DispatchQueue.concurrentPerform(iterations: sessions) { s in
                    for v in 1...perSession {
                        all.enter()
                        j.append(session: "s\(s)", records: [(version: v, bytes: bytes("s\(s)v\(v)"))]) { r in
                            if case .failure = r { failures.withLock { $0 += 1 } }
                            order.withLock { $0[s, default: []].append(v) }
                            all.leave()
                        }
                    }
                }
                XCTAssertEqual(all.wait(timeout: .now() + 60), .success)
                XCTAssertEqual(failures.withLock { $0 }, 0)
                let orders = order.withLock { $0 }
                for s in 0..<sessions { XCTAssertEqual(orders[s], Array(1...perSession), "session \(s) completions out of order") }
                let after = j.statistics()
                let syncs = after.syncCalls - before.syncCalls
                let groups = after.groups - before.groups
                XCTAssertEqual(after.appends - before.appends, sessions * perSession)
                XCTAssertLessThan(groups, sessions * perSession / 4, "appends must share groups")
                print("\(mode): \(sessions * perSession) appends in \(groups) groups, \(syncs) sync calls")
                j.close()
            }
            let r = try recoverAndClose(dir)
            XCTAssertEqual(r.sessions.count, sessions)
            XCTAssertTrue(r.sessions.allSatisfy { $0.versions == Array(1...perSession) })
        }
    }

    /// Waiting writers (one append in flight each, like HTTP clients) under `always`: each
    /// completion means the record was synced, so a group holds many sessions' appends.
    func testWaitingWritersUnderAlways() throws {
        let dir = makeTempDirectory(self)
        let writers = 16
        let j = try openJournal(dir, fsync: .always, sessions: (0..<writers).map { "w\($0)" })
        defer { j.close() }
        let before = j.statistics()
        let threads = DispatchGroup()
        for w in 0..<writers {
            threads.enter()
            Thread.detachNewThread {
                for v in 1...25 { _ = appendSync(j, "w\(w)", [(v, "x")]) }
                threads.leave()
            }
        }
        XCTAssertEqual(threads.wait(timeout: .now() + 60), .success)
        let after = j.statistics()
        XCTAssertEqual(after.appends - before.appends, writers * 25)
        XCTAssertLessThan(after.groups - before.groups, writers * 25)
    }

    /// `batch`: completions do not wait for a sync, and the background sync follows within its interval.
    func testBatchPolicySyncsInTheBackground() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .batch, sessions: ["s"])
        defer { j.close() }
        let before = j.statistics().syncCalls
        for v in 1...50 { XCTAssertNoThrow(try appendSync(j, "s", [(v, "x")]).get()) }
        // The sync runs on its own thread on a timer: poll its counter with a deadline.
        let deadline = Date().addingTimeInterval(5)
        while j.statistics().syncCalls == before, Date() < deadline { usleep(1_000) }
        let syncs = j.statistics().syncCalls - before
        XCTAssertGreaterThan(syncs, 0)
        XCTAssertLessThan(syncs, 50, "at most one sync per interval, not one per append")
    }

    /// Completions run on the writer thread: synchronous calls from there must not wait for it.
    /// An append refused because the journal closed is answered after the completions of the
    /// appends still in flight, so a session settles its versions in order.
    func testAClosedJournalsRefusalComesAfterTheCompletionsStillToRun() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, sessions: ["s"])
        let order = Mutex<[String]>([])
        let closing = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), refused = DispatchSemaphore(value: 0)
        j.append(session: "s", records: [(version: 1, bytes: bytes("a"))]) { _ in
            j.close()  // from a completion: queued, not awaited
            closing.signal()
            release.wait()
            order.withLock { $0.append("1") }
        }
        XCTAssertEqual(closing.wait(timeout: .now() + 10), .success)
        j.append(session: "s", records: [(version: 2, bytes: bytes("b"))]) { result in
            guard case .failure(.closed) = result else { return XCTFail("\(result)") }
            order.withLock { $0.append("2 closed") }
            refused.signal()
        }
        XCTAssertEqual(order.withLock { $0 }, [], "the refusal came while version 1's completion was still to finish")
        release.signal()
        XCTAssertEqual(refused.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.withLock { $0 }, ["1", "2 closed"])
    }

    func testSynchronousCallsFromACompletionDoNotDeadlock() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, sessions: ["s"])
        let got = Mutex<JournalError?>(nil)
        let done = DispatchSemaphore(value: 0)
        j.append(session: "s", records: [(version: 1, bytes: bytes("x"))]) { _ in
            do { try j.createSession(id: "t", meta: []) } catch { got.withLock { $0 = error as? JournalError } }
            j.flush()
            _ = j.statistics()
            j.deleteSession(id: "s")
            j.close()
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "deadlock")
        XCTAssertEqual(got.withLock { $0 }, .calledFromCompletion)
        j.close()
        guard case .failure(.closed) = appendSync(j, "s", [(2, "y")]) else { return XCTFail("close from a completion must take effect") }
        XCTAssertEqual(files(in: dir), [], "the queued delete ran before the close")
    }
}
