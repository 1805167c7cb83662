import Dispatch
import Foundation
import Glibc
import Synchronization
import XCTest
@testable import Journal

/// `append(commitLater: true)` + `commit()`: an event loop's appends become one group. Without a
/// sync to wait for it is written and completed on the loop's own thread; under `always` the writer
/// thread syncs it while the loop goes on.
final class CallerCommitTests: XCTestCase {
    func testCommitRunsTheGroupAndItsCompletionsOnTheCallingThread() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .never, sessions: ["a", "b"])
        let before = j.statistics()
        let caller = pthread_self()
        let completions = Mutex<[(String, Int, Bool)]>([])
        for v in 1...5 {
            for id in ["a", "b"] {
                j.append(session: id, records: [(version: v, bytes: bytes("\(id)\(v)"))], commitLater: true) { result in
                    let onCaller = pthread_equal(pthread_self(), caller) != 0
                    if case .failure(let e) = result { XCTFail("\(id) v\(v): \(e)") }
                    completions.withLock { $0.append((id, v, onCaller)) }
                }
            }
        }
        j.commit()
        let done = completions.withLock { $0 }
        XCTAssertEqual(done.count, 10, "every completion ran before commit() returned")
        XCTAssertTrue(done.allSatisfy(\.2), "completions ran on the committing thread, not the writer's")
        XCTAssertEqual(done.filter { $0.0 == "a" }.map(\.1), Array(1...5))
        let after = j.statistics()
        // One group for the ten appends, one for the `statistics` call that reads the counters.
        XCTAssertEqual(after.groups - before.groups, 2, "the ten appends form one group")
        XCTAssertEqual(after.syncCalls - before.syncCalls, 0, "never: no sync")
        j.close()

        let found = try recoverAndClose(dir, fsync: .never)
        XCTAssertEqual(found.session("a")?.versions, Array(1...5))
        XCTAssertEqual(found.session("b")?.versions, Array(1...5))
    }

    /// `afterGroupCompletes` from a completion waits for the rest of the group's completions (a
    /// session settles its answered appends under one lock); work it defers in turn runs too, and
    /// outside a completion the body runs at once.
    func testWorkDeferredFromACompletionRunsOnceTheGroupsCompletionsHaveRun() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .never, sessions: ["a", "b"])
        defer { j.close() }
        let events = Mutex<[String]>([])
        @Sendable func note(_ event: String) { events.withLock { $0.append(event) } }
        for v in 1...3 {
            for id in ["a", "b"] {
                j.append(session: id, records: [(version: v, bytes: bytes("\(id)\(v)"))], commitLater: true) { _ in
                    note("\(id)\(v)")
                    guard v == 1 else { return }
                    j.afterGroupCompletes {
                        note("end \(id)")
                        if id == "b" { j.afterGroupCompletes { note("after end b") } }
                    }
                }
            }
        }
        j.commit()
        XCTAssertEqual(events.withLock { $0 }, ["a1", "b1", "a2", "b2", "a3", "b3", "end a", "end b", "after end b"])
        j.afterGroupCompletes { note("at once") }
        XCTAssertEqual(events.withLock { $0.last }, "at once")
    }

    /// Under `always`, `commit()` returns while the group's sync is still running, and what is
    /// committed meanwhile waits for that sync and goes in the next group, with its completions on
    /// the writer thread, in order.
    func testAlwaysCommitDoesNotWaitForTheSync() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, sessions: ["a"])
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holding = Atomic<Bool>(true)
        j.disk.setSyncGate {
            guard holding.load(ordering: .acquiring) else { return }
            entered.signal()
            _ = release.wait(timeout: .now() + 5)  // bounded: a commit that synced inline must fail, not hang
        }
        let caller = pthread_self()
        let completions = Mutex<[(Int, Bool)]>([])
        func append(_ v: Int) {
            j.append(session: "a", records: [(version: v, bytes: bytes("v\(v)"))], commitLater: true) { result in
                if case .failure(let e) = result { XCTFail("v\(v): \(e)") }
                completions.withLock { $0.append((v, pthread_equal(pthread_self(), caller) != 0)) }
            }
        }
        append(1)
        j.commit()
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "the writer thread syncs the group")
        // The sync of version 1 is held open; the caller is free to go on.
        append(2)
        append(3)
        j.commit()
        XCTAssertTrue(completions.withLock { $0.isEmpty }, "nothing completes before its sync")
        holding.store(false, ordering: .releasing)
        release.signal()
        j.flush()
        let done = completions.withLock { $0 }
        XCTAssertEqual(done.map(\.0), [1, 2, 3])
        XCTAssertFalse(done.contains(where: \.1), "completions run on the writer thread")
        j.disk.setSyncGate(nil)
        j.close()
        XCTAssertEqual(try recoverAndClose(dir).session("a")?.versions, [1, 2, 3])
    }

    /// An append left for a commit still goes with a group the writer thread was woken for, and a
    /// later commit with nothing queued returns at once.
    func testDeferredAppendRidesAlongWithAWokenGroup() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, sessions: ["a"])
        defer { j.close() }
        let done = DispatchSemaphore(value: 0)
        j.append(session: "a", records: [(version: 1, bytes: bytes("one"))], commitLater: true) { _ in done.signal() }
        // `statistics` wakes the writer thread; its group takes the queued append too.
        _ = j.statistics()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        j.commit()
        XCTAssertEqual(appendSync(j, "a", [(2, "two")]).isSuccess, true)
    }

    /// Many committing threads at once (two event loops and more): every append completes once, in
    /// order per session, and nothing is lost.
    func testConcurrentCommittersKeepOrderPerSession() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, sessions: ["shared"])
        let order = Mutex<[Int]>([])
        let next = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<50 {
                // Versions are taken and appended under one lock, as a session does.
                next.withLock { v in
                    v += 1
                    let version = v
                    j.append(session: "shared", records: [(version: version, bytes: bytes("v\(version)"))], commitLater: true) { _ in
                        order.withLock { $0.append(version) }
                    }
                }
                j.commit()
            }
        }
        j.flush()  // under `always` the last groups may still be syncing on the writer thread
        XCTAssertEqual(order.withLock { $0 }, Array(1...200))
        j.close()
        XCTAssertEqual(try recoverAndClose(dir).session("shared")?.versions, Array(1...200))
    }
}

private extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}
