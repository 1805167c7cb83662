import XCTest
@testable import StorehouseServer

/// `--max-memory`: windows shrink first, then writes are refused with 503 while reads go on.
final class MemoryBudgetTests: XCTestCase {
    func testSettleChargesDifferencesAndShrinkStartsBeforeTheLimit() {
        let budget = MemoryBudget(limit: 1_000, countsResident: false)
        var a = 0, b = 0
        budget.settle(&a, holding: 500)
        budget.settle(&b, holding: 290)
        XCTAssertEqual(budget.accounted, 790)
        XCTAssertFalse(budget.shouldShrink)
        budget.settle(&a, holding: 600)
        XCTAssertTrue(budget.shouldShrink)
        XCTAssertTrue(budget.admitsWrites)
        budget.settle(&b, holding: 400)
        XCTAssertFalse(budget.admitsWrites)
        budget.settle(&a, holding: 0)
        XCTAssertEqual(budget.accounted, 400)
        XCTAssertTrue(budget.admitsWrites)
    }

    /// The resident size comes from /proc/self/statm's second field (pages), and a budget that
    /// counts it holds a sample from its start, before any sampler tick.
    func testResidentSizeIsReadFromStatmAndSampledFromTheStart() throws {
        let text = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let pages = try XCTUnwrap(Int(text.split(separator: " ")[1]))
        let read = try XCTUnwrap(MemoryBudget.readResident())
        let expected = pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        // The process may grow or shrink a little between the two reads.
        XCTAssertLessThan(abs(read - expected), 16 << 20)
        let budget = MemoryBudget(limit: 1_000)
        XCTAssertGreaterThan(budget.resident(), 1 << 20)
        XCTAssertFalse(budget.admitsWrites, "a process holds more than 1,000 bytes resident")
        XCTAssertEqual(MemoryBudget(limit: 1_000, countsResident: false).resident(), 0)
    }

    func testDefaultLimitIsHalfTheCgroupLimitWhenOneIsSet() throws {
        let file = temporaryDirectory() + "/memory.max"
        try "1073741824\n".write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(MemoryBudget.defaultLimit(cgroupFile: file), 512 << 20)
        try "max\n".write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertGreaterThan(MemoryBudget.defaultLimit(cgroupFile: file), 512 << 20)
    }

    func testWindowsShrinkFirstThenWritesAre503AndReadsAnswer() throws {
        let limit = 16 << 20
        let fixture = try ServerFixture {
            $0.maxMemory = limit
            $0.memoryBudgetCountsResident = false
            $0.maxActionBytes = 1 << 20
        }
        let budget = fixture.server.registry.context.memoryBudget
        let client = try fixture.client()
        // Actions whose history can leave: ten times the budget is written, and all of it accepted.
        let counters = try (0..<2).map { _ in try fixture.createSession() }
        let meta = String(repeating: "m", count: 100_000)
        for _ in 0..<200 {
            for (id, token) in counters {
                let answer = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token),
                                                body: #"{"type":"counter/incrTapped","meta":"\#(meta)"}"#)
                XCTAssertEqual(answer.status, 200, answer.text)
            }
        }
        XCTAssertLessThan(budget.accounted, limit + limit / 10)
        // A state that cannot leave (a task list that grows): past the budget, writes are refused.
        let (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
        var refusal: TestResponse?
        for _ in 0..<300 {
            // The once-a-second settlement between every two writes: the counters, which no
            // longer write, cut their windows to the share as the budget fills, before a refusal.
            for session in fixture.server.registry.all { session.settleBudget() }
            let answer = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token),
                                            body: #"{"type":"tasks/add","payload":{"title":"\#(meta)"}}"#)
            if answer.status == 503 { refusal = answer; break }
            XCTAssertEqual(answer.status, 200, answer.text)
        }
        let refused = try XCTUnwrap(refusal, "no write was refused")
        XCTAssertEqual(refused.json["type"] as? String, "/problems/memory-budget")
        XCTAssertEqual(refused.header("Retry-After"), "1")
        XCTAssertLessThan(budget.accounted, limit + limit / 10)
        // The once-a-second settlement lets nothing more go, so the same write stays refused
        // whenever a heartbeat comes: each write was charged what its session keeps once its
        // window is cut, and the state cannot leave.
        for session in fixture.server.registry.all { session.settleBudget() }
        // Reads answer; the same write is refused again.
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).status, 200)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token)).status, 200)
        XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token),
                                          body: #"{"type":"tasks/add","payload":{"title":"\#(meta)"}}"#).status, 503)
        let metrics = try client.request("GET", "/metrics").text
        XCTAssertTrue(metrics.contains("storehouse_memory_accounted_bytes \(budget.accounted)"), metrics)
        XCTAssertTrue(metrics.contains("storehouse_memory_budget_bytes \(limit)"))
        // Deleting the session gives its bytes back, and writes are admitted again.
        XCTAssertEqual(try client.request("DELETE", "/sessions/\(id)", headers: bearer(token)).status, 204)
        XCTAssertLessThan(budget.accounted, limit)
        XCTAssertEqual(try client.request("POST", "/sessions/\(counters[0].id)/actions", headers: bearer(counters[0].token),
                                          body: #"{"type":"counter/incrTapped"}"#).status, 200)
    }

    /// In memory a write's versions are durable as applied, and the window is cut to them at
    /// once: the write is charged what the session keeps after that cut, not before it.
    func testAWriteInMemoryIsChargedWhatItsSessionKeepsAfterTheCut() throws {
        let fixture = try ServerFixture {
            $0.memoryBudgetCountsResident = false
            $0.history = 8
        }
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        let meta = String(repeating: "m", count: 10_000)
        for _ in 0..<40 {
            let answer = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token),
                                            body: #"{"type":"counter/incrTapped","meta":"\#(meta)"}"#)
            XCTAssertEqual(answer.status, 200, answer.text)
        }
        let session = try XCTUnwrap(fixture.server.registry.all.first)
        session.lock.withLock {
            XCTAssertLessThan(session.window.history.bytes, 40 * 10_000, "the window was cut")
            XCTAssertEqual(session.budgetCharged, session.heldBytesLocked())
        }
    }

    /// An event stream that stops reading holds what it was not sent yet; the heartbeat's
    /// settlement charges it to the budget.
    func testUnsentEventStreamBytesAreCharged() throws {
        let fixture = try ServerFixture { $0.memoryBudgetCountsResident = false }
        let (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
        let stalled = try TestClient(port: fixture.port, receiveBuffer: 4_096)
        XCTAssertEqual(try stalled.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
        let client = try fixture.client()
        let title = String(repeating: "t", count: 100_000)
        for _ in 0..<40 {
            XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token),
                                              body: #"{"type":"tasks/add","payload":{"title":"\#(title)"}}"#).status, 200)
        }
        let session = try XCTUnwrap(fixture.server.registry.lookup(id))
        let charged = expectation(for: NSPredicate { _, _ in session.lock.withLock { session.budgetSubscriberBytes } > 100_000 },
                                  evaluatedWith: nil)
        wait(for: [charged], timeout: 10)
        let (held, subscribers) = session.lock.withLock { (session.budgetCharged, session.budgetSubscriberBytes) }
        XCTAssertGreaterThanOrEqual(held, subscribers)
        XCTAssertGreaterThanOrEqual(fixture.server.registry.context.memoryBudget.accounted, held)
    }

    /// The live state counts, not only what its kept states do not share with it: a session of
    /// 100 tasks of 10 KB, with --history 10 (a history of about 10 small actions) and only
    /// minimal answers, is charged at least the megabyte its journal snapshot holds.
    func testTheLiveStateIsCharged() throws {
        let fixture = try ServerFixture {
            $0.memoryBudgetCountsResident = false; $0.history = 10; $0.inMemory = false; $0.dataDirectory = temporaryDirectory(); $0.fsync = .never
        }
        let (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
        let client = try fixture.client()
        let minimal = bearer(token).merging(["Prefer": "return=minimal"]) { a, _ in a }
        let title = String(repeating: "t", count: 10_000)
        for _ in 0..<100 {
            XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: minimal,
                                              body: #"{"type":"tasks/add","payload":{"title":"\#(title)"}}"#).status, 200)
        }
        // Past 1,000 versions the journal snapshots the state (`SnapshotSchedule`).
        let toggles = "[" + Array(repeating: #"{"type":"tasks/toggleDone","payload":{"id":1}}"#, count: 10).joined(separator: ",") + "]"
        for _ in 0..<100 {
            XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: minimal, body: toggles).status, 200)
        }
        fixture.server.registry.context.snapshotWriter.waitUntilIdle()
        XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: minimal, body: toggles).status, 200)
        let session = try XCTUnwrap(fixture.server.registry.lookup(id))
        let (held, history) = session.lock.withLock { (session.budgetCharged, session.history.bytes) }
        XCTAssertLessThan(history, 100_000)
        XCTAssertGreaterThan(held, 100 * 10_000 + history)
    }
}
