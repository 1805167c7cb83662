import Dispatch
import Foundation
import Synchronization
@testable import StorehouseServer
import StoreKinds
import XCTest

/// Large work runs off the event loop: a big batch held in its reducer leaves the loop free for
/// another session, and the requests behind it in its own session keep their order.
final class OffLoopTests: XCTestCase {
    /// One event loop, so a batch applied on it would hold up every other connection; bodies
    /// past 1 KiB count as large.
    private func fixture() throws -> ServerFixture {
        try ServerFixture({ $0.ioThreads = 1; $0.offLoopBodyBytes = 1 << 10 }, kinds: try KindRegistry([latchKind, .counter]))
    }

    /// 100 `latch/add` of 1 with a `latch/hold` in the middle: about 2.5 KiB.
    private let bigBatch = "[" + ((0..<50).map { _ in #"{"type":"latch/add","payload":1}"# } + [#"{"type":"latch/hold"}"#]
        + (0..<50).map { _ in #"{"type":"latch/add","payload":1}"# }).joined(separator: ",") + "]"

    /// A `latch` session whose big batch (sent by `client` with `headers`) is inside its reducer.
    private func holdBigBatch(_ fixture: ServerFixture, _ latch: Latch, headers: [String: String] = [:])
        throws -> (id: String, token: String, session: Session, client: TestClient) {
        let (id, token) = try fixture.createSession(#"{"kind":"latch"}"#)
        let session = try XCTUnwrap(fixture.server.registry.lookup(id))
        let client = try fixture.client()
        try client.sendRequest("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(headers) { $1 }, body: bigBatch)
        XCTAssertEqual(latch.entered.wait(timeout: .now() + 10), .success, "the batch's reducer never ran")
        return (id, token, session, client)
    }

    func testABigBatchHeldInItsReducerDoesNotHoldUpAnotherSessionOnTheSameLoop() throws {
        let fixture = try fixture()
        let latch = Latch.install()
        var released = false
        defer { if !released { latch.release.signal() } }
        let neighbour = try fixture.createSession(#"{"kind":"counter"}"#)
        let (_, _, _, bigClient) = try holdBigBatch(fixture, latch)

        // The batch is inside its reducer; the one event loop still answers the other session.
        let client = try fixture.client()
        for version in 1...3 {
            let answer = try client.request("POST", "/sessions/\(neighbour.id)/actions", headers: bearer(neighbour.token),
                                            body: #"{"type":"counter/incrTapped"}"#)
            XCTAssertEqual(answer.status, 200, answer.text)
            XCTAssertEqual(answer.json["version"] as? Int, version)
        }
        let read = try client.request("GET", "/sessions/\(neighbour.id)/state", headers: bearer(neighbour.token))
        XCTAssertEqual(read.json["version"] as? Int, 3)

        released = true
        latch.release.signal()
        let answer = try bigClient.readResponse()
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.text, #"{"version":101,"state":{"total":100}}"#)
    }

    func testRequestsBehindABigBatchApplyAfterItInArrivalOrderAndARepeatIsReplayed() throws {
        let fixture = try fixture()
        let latch = Latch.install()
        var released = false
        defer { if !released { latch.release.signal() } }
        let (id, token, session, batchClient) = try holdBigBatch(fixture, latch, headers: ["Idempotency-Key": "batch-1"])
        let big = (id: id, token: token)
        let keyed = bearer(token).merging(["Idempotency-Key": "batch-1"]) { $1 }

        // Small requests to the same session, sent while the batch applies: each queues behind it.
        let small = try fixture.client(), repeated = try fixture.client(), reader = try fixture.client()
        try small.sendRequest("POST", "/sessions/\(big.id)/actions", headers: bearer(big.token), body: #"{"type":"latch/add","payload":1000}"#)
        try waitForQueued(2, in: session)
        try repeated.sendRequest("POST", "/sessions/\(big.id)/actions", headers: keyed, body: bigBatch)
        try waitForQueued(3, in: session)
        try reader.sendRequest("GET", "/sessions/\(big.id)/state", headers: bearer(big.token))
        try waitForQueued(4, in: session)

        released = true
        latch.release.signal()
        let first = try batchClient.readResponse()
        XCTAssertEqual(first.text, #"{"version":101,"state":{"total":100}}"#)
        let after = try small.readResponse()
        XCTAssertEqual(after.text, #"{"version":102,"state":{"total":1100}}"#, "the small POST applies after the batch it came after")
        let replay = try repeated.readResponse()
        XCTAssertEqual(replay.status, 200, replay.text)
        XCTAssertEqual(replay.header("Idempotent-Replayed"), "true")
        XCTAssertEqual(replay.text, first.text)
        let state = try reader.readResponse()
        XCTAssertEqual(state.text, #"{"version":102,"state":{"total":1100}}"#, "the read behind them sees both")
    }

    func testASmallRequestOnAnIdleSessionRunsOnTheLoop() throws {
        let fixture = try fixture()
        let latch = Latch.install()
        defer { latch.release.signal() }
        let (id, token) = try fixture.createSession(#"{"kind":"latch"}"#)
        // A hold in a small body blocks the one loop; the reducer still runs, on the loop's thread.
        let client = try fixture.client()
        try client.sendRequest("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"latch/hold"}"#)
        XCTAssertEqual(latch.entered.wait(timeout: .now() + 10), .success)
        let session = try XCTUnwrap(fixture.server.registry.lookup(id))
        XCTAssertEqual(session.lane.count, 0, "nothing went to the pool")
        latch.release.signal()
        XCTAssertEqual(try client.readResponse().text, #"{"version":1,"state":{"total":0}}"#)
    }

    func testASessionWithRequestsOffTheLoopDoesNotHibernate() throws {
        let fixture = try fixture()
        let latch = Latch.install()
        var released = false
        defer { if !released { latch.release.signal() } }
        let (_, _, session, client) = try holdBigBatch(fixture, latch)
        // Unloaded now, the batch would apply to a session no longer served.
        XCTAssertFalse(session.mayHibernate(idleSince: .max))
        released = true
        latch.release.signal()
        XCTAssertEqual(try client.readResponse().status, 200)
        let deadline = Date().addingTimeInterval(10)
        while session.lane.isBusy, Date() < deadline { usleep(1_000) }  // the lane empties just after the answer
        XCTAssertTrue(session.mayHibernate(idleSince: .max))
    }

    private func waitForQueued(_ count: Int, in session: Session, file: StaticString = #filePath, line: UInt = #line) throws {
        // Polled with a deadline: the loop queues a request when it has read it.
        let deadline = Date().addingTimeInterval(10)
        while session.lane.count < count, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(session.lane.count, count, "requests queued behind the batch", file: file, line: line)
    }
}

/// The pool's own promises: a lane's jobs one at a time and in order, at most `width` at once.
final class OffLoopPoolTests: XCTestCase {
    func testALaneRunsItsJobsOneAtATimeInTheOrderQueued() {
        let pool = OffLoopPool(width: 4)
        let lane = OffLoopLane()
        let seen = Mutex<[Int]>([])
        let inside = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        for i in 0..<200 {
            pool.run(in: lane) {
                if inside.add(1, ordering: .sequentiallyConsistent).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
                seen.withLock { $0.append(i) }
                inside.subtract(1, ordering: .sequentiallyConsistent)
                if i == 199 { done.signal() }
            }
            // Other lanes' work in between, competing for the workers.
            pool.run {}
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(seen.withLock { $0 }, Array(0..<200))
        XCTAssertFalse(overlapped.load(ordering: .relaxed))
    }

    func testThePoolRunsAtMostWidthJobsAtOnceAndTheRestWait() {
        let pool = OffLoopPool(width: 2)
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        for _ in 0..<4 {
            pool.run {
                started.signal()
                release.wait()
                finished.signal()
            }
        }
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(pool.waiting, 2, "two jobs run, two wait for a worker")
        for _ in 0..<4 { release.signal() }
        for _ in 0..<4 { XCTAssertEqual(finished.wait(timeout: .now() + 10), .success) }
        XCTAssertEqual(pool.waiting, 0)
    }
}
