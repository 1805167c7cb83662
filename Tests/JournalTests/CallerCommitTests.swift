import Dispatch
import Foundation
import Glibc
import Synchronization
import XCTest
@testable import Journal

/// `append(commitLater: true)` + `commit()`: an event loop's appends become one group, written,
/// synced and completed on the loop's own thread.
final class CallerCommitTests: XCTestCase {
    func testCommitRunsTheGroupAndItsCompletionsOnTheCallingThread() throws {
        let dir = makeTempDirectory(self)
        let j = try Journal(directory: dir, fsync: .always)
        _ = j.recover()
        try j.createSession(id: "a", meta: [])
        try j.createSession(id: "b", meta: [])
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
        XCTAssertEqual(after.syncCalls - before.syncCalls, 2, "one fdatasync per written file")
        j.close()

        let reopened = try Journal(directory: dir, fsync: .always)
        let found = reopened.recover()
        XCTAssertEqual(found.session("a")?.versions, Array(1...5))
        XCTAssertEqual(found.session("b")?.versions, Array(1...5))
        reopened.close()
    }

    /// An append left for a commit still goes with a group the writer thread was woken for, and a
    /// later commit with nothing queued returns at once.
    func testDeferredAppendRidesAlongWithAWokenGroup() throws {
        let dir = makeTempDirectory(self)
        let j = try Journal(directory: dir, fsync: .always)
        defer { j.close() }
        _ = j.recover()
        try j.createSession(id: "a", meta: [])
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
        let j = try Journal(directory: dir, fsync: .always)
        _ = j.recover()
        try j.createSession(id: "shared", meta: [])
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
        XCTAssertEqual(order.withLock { $0 }, Array(1...200))
        j.close()
        let reopened = try Journal(directory: dir, fsync: .always)
        XCTAssertEqual(reopened.recover().session("shared")?.versions, Array(1...200))
        reopened.close()
    }
}

private extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}
