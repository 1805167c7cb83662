@testable import StorehouseServer
import Dispatch
import Synchronization
import XCTest

/// `SessionLoader`: a burst of loads holds no more threads than its width, and one session's
/// requests run in order.
final class SessionLoaderTests: XCTestCase {
    func testABurstOfBlockedLoadsRunsAtMostWidthAtOnceAndAllFinish() {
        let loader = SessionLoader(width: 3)
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let counts = Mutex((running: 0, most: 0, finished: 0))
        let all = DispatchGroup()
        let ids = (0..<60).map { "session-\($0)" }
        let busyQueues = Set(ids.map { SessionLoader.queueIndex(of: $0, among: 3) }).count
        XCTAssertEqual(busyQueues, 3, "the ids spread over every queue")
        for id in ids {
            all.enter()
            loader.run(for: id) {
                counts.withLock { $0.running += 1; $0.most = max($0.most, $0.running) }
                started.signal()
                gate.wait()  // a load blocked on the disk
                counts.withLock { $0.running -= 1; $0.finished += 1 }
                all.leave()
            }
        }
        // Every queue has one blocked load; the other 57 wait on their queues, holding no thread.
        for _ in 0..<3 { started.wait() }
        XCTAssertEqual(counts.withLock { $0.running }, 3)
        for _ in ids { gate.signal() }
        all.wait()
        XCTAssertEqual(counts.withLock { $0.most }, 3, "never more than the width at once")
        XCTAssertEqual(counts.withLock { $0.finished }, 60)
    }

    func testOneSessionsRequestsRunInTheOrderTheyCame() {
        let loader = SessionLoader(width: 4)
        let order = Mutex<[Int]>([])
        let all = DispatchGroup()
        for n in 0..<200 {
            all.enter()
            loader.run(for: "one-session") {
                order.withLock { $0.append(n) }
                all.leave()
            }
        }
        all.wait()
        XCTAssertEqual(order.withLock { $0 }, Array(0..<200))
    }
}
