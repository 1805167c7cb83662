import Foundation
import Synchronization
import XCTest
@testable import Journal
@testable import StorehouseServer

/// The history window in bytes: large actions end it before `--history` does, a refused append
/// still rolls back, and the journal snapshots (and compacts) by bytes too.
final class HistoryBudgetTests: XCTestCase {
    /// About 2.1 KB of history each (its meta is kept with it).
    let large = #"{"type":"counter/incrTapped","meta":""# + String(repeating: "x", count: 2_000) + #""}"#
    let budget = 20_000

    func versions(_ client: TestClient, _ id: String, _ token: String) throws -> [Int] {
        let log = try client.request("GET", "/sessions/\(id)/actions?limit=1000", headers: bearer(token))
        XCTAssertEqual(log.status, 200, log.text)
        return (log.json["actions"] as? [[String: Any]])?.compactMap { $0["version"] as? Int } ?? []
    }

    /// Whether `kept` is a contiguous run of versions ending at `head`.
    func isWindow(_ kept: [Int], endingAt head: Int) -> Bool {
        guard let first = kept.first, first <= head else { return false }
        return kept == Array(first...head)
    }

    func post(_ client: TestClient, _ id: String, _ token: String, _ body: String, times: Int = 1) throws {
        for _ in 0..<times {
            let response = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: body)
            XCTAssertEqual(response.status, 200, response.text)
        }
    }

    func testLargeActionsEndTheWindowBeforeTheCountDoes() throws {
        let fixture = try ServerFixture { $0.historyBytes = self.budget }
        let client = try fixture.client()
        let (id, token) = try fixture.createSession()
        try post(client, id, token, large, times: 40)
        let kept = try versions(client, id, token)
        XCTAssertTrue(isWindow(kept, endingAt: 40), "\(kept)")
        XCTAssertLessThanOrEqual(kept.count, 15, "about \(budget) bytes of 2 KB actions")
        XCTAssertGreaterThanOrEqual(kept.count, 5)
        for version in kept {  // every version in the window can be rebuilt
            let past = try client.request("GET", "/sessions/\(id)/state?version=\(version)", headers: bearer(token))
            XCTAssertEqual((past.json["state"] as? [String: Any])?["count"] as? Int, version, past.text)
        }
        let gone = try client.request("GET", "/sessions/\(id)/state?version=1", headers: bearer(token))
        XCTAssertEqual(gone.status, 404)
        XCTAssertEqual(gone.json["type"] as? String, "/problems/version-not-found")
        let recent = try client.request("GET", "/sessions/\(id)/state?version=39", headers: bearer(token))
        XCTAssertEqual(recent.status, 200, recent.text)
        XCTAssertEqual((recent.json["state"] as? [String: Any])?["count"] as? Int, 39)

        // Small actions are bounded by the count alone.
        let (small, smallToken) = try fixture.createSession()
        try post(client, small, smallToken, #"{"type":"counter/incrTapped"}"#, times: 40)
        XCTAssertEqual(try versions(client, small, smallToken), Array(1...40))
    }

    func testAResumeFromBeforeTheByteWindowStartsWithASnapshot() throws {
        let fixture = try ServerFixture { $0.historyBytes = self.budget }
        let client = try fixture.client()
        let (id, token) = try fixture.createSession()
        try post(client, id, token, large, times: 40)
        let first = try XCTUnwrap(try versions(client, id, token).first)
        for (lastSeen, event, eventID) in [(first - 1, "change", first), (first - 2, "snapshot", 40)] {
            let events = try fixture.client()
            _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token).merging(["Last-Event-ID": "\(lastSeen)"]) { $1 })
            _ = try events.nextEvent()  // retry
            let opening = try events.nextEvent()
            XCTAssertEqual(opening.event, event, "Last-Event-ID \(lastSeen)")
            XCTAssertEqual(opening.id, "\(eventID)")
        }
    }

    func testARefusedAppendRollsBackWhenTheWindowIsFull() throws {
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = temporaryDirectory(); $0.historyBytes = self.budget }
        let client = try fixture.client()
        let (id, token) = try fixture.createSession()
        try post(client, id, token, large, times: 30)
        XCTAssertGreaterThan(try versions(client, id, token).first ?? 0, 1, "the window was ended by bytes")
        let journal = try XCTUnwrap(fixture.server.journal)
        journal.injectFault(.diskFull())
        let refused = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: large)
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).json["version"] as? Int, 30)
        journal.injectFault(nil)
        try post(client, id, token, large)
        let state = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(state.json["version"] as? Int, 31)
        XCTAssertEqual((state.json["state"] as? [String: Any])?["count"] as? Int, 31)
        let kept = try versions(client, id, token)
        XCTAssertTrue(isWindow(kept, endingAt: 31), "\(kept)")
    }

    func testARefusedBatchAsLongAsTheHistoryRollsBack() throws {
        // --history 50 keeps a state every 5 versions; at 51 the newest is at 50. A refused batch
        // of 50 pushes 51 out of the ring, so the rollback needs a state kept at 51 beforehand.
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = temporaryDirectory(); $0.history = 50 }
        let client = try fixture.client()
        let (id, token) = try fixture.createSession()
        let one = #"{"type":"counter/incrTapped"}"#
        let batch = "[" + Array(repeating: one, count: 50).joined(separator: ",") + "]"
        try post(client, id, token, batch)
        try post(client, id, token, one)
        let journal = try XCTUnwrap(fixture.server.journal)
        journal.injectFault(.diskFull(count: 1))
        let refused = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: batch)
        XCTAssertEqual(refused.status, 503, refused.text)
        let state = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(state.json["version"] as? Int, 51, "nothing of the refused batch stays")
        XCTAssertEqual((state.json["state"] as? [String: Any])?["count"] as? Int, 51)
        try post(client, id, token, one)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).json["version"] as? Int, 52)
    }

    func testAWindowFullOfAppendsInFlightStillRollsBackToTheDurableVersion() throws {
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = temporaryDirectory(); $0.historyBytes = self.budget }
        let client = try fixture.client()
        let (id, token) = try fixture.createSession()
        try post(client, id, token, large, times: 10)
        // Hold the next sync open: the actions below are applied (the head runs ahead) but none is
        // durable, and together they hold three times the history's byte budget.
        let journal = try XCTUnwrap(fixture.server.journal)
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let holding = Atomic<Bool>(true)
        journal.disk.setSyncGate {
            guard holding.load(ordering: .acquiring) else { return }
            entered.signal()
            _ = release.wait(timeout: .now() + 10)
        }
        defer { journal.disk.setSyncGate(nil) }
        let request = "POST /sessions/\(id)/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(large.utf8.count)\r\n\r\n\(large)"
        let inFlight = try (0..<30).map { _ in try fixture.client() }
        try inFlight[0].sendRaw(request)
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success)
        for c in inFlight.dropFirst() { try c.sendRaw(request) }
        // The head, which no client is shown until it is durable.
        let session = try XCTUnwrap(fixture.server.registry.lookup(id))
        let deadline = Date().addingTimeInterval(10)
        while session.lock.withLock({ session.store.version }) < 40, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(session.lock.withLock { session.store.version }, 40, "all 30 applied while the sync is held")
        // The held sync fails: every one of the 30 is refused and the session goes back to 10.
        journal.injectFault(.syncFails())
        holding.store(false, ordering: .releasing)
        release.signal()
        for c in inFlight { XCTAssertEqual(try c.readResponse(method: "POST").status, 503) }
        journal.injectFault(nil)
        let state = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(state.json["version"] as? Int, 10)
        XCTAssertEqual((state.json["state"] as? [String: Any])?["count"] as? Int, 10)
        try post(client, id, token, large)
        let kept = try versions(client, id, token)
        XCTAssertTrue(isWindow(kept, endingAt: 11), "\(kept)")
    }

    /// Actions in flight past the byte budget cut the durable ones before them down to a kept
    /// state at once: the history holds about the larger of the two, not their sum.
    func testActionsInFlightPastTheBudgetCutTheDurableOnesAtOnce() throws {
        let log = HeldLog()
        defer { log.release() }
        let fixture = try ServerFixture({ $0.historyBytes = self.budget }, log: log)
        let (id, token) = try fixture.createSession()
        let session = try XCTUnwrap(fixture.server.registry.lookup(id))
        let request = "POST /sessions/\(id)/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(large.utf8.count)\r\n\r\n\(large)"
        func postHeld() throws -> TestClient {
            let poster = try fixture.client()
            try poster.sendRaw(request)
            XCTAssertEqual(log.appended.wait(timeout: .now() + 10), .success)
            return poster
        }
        for _ in 1...9 {  // 19 KB: within the budget, nothing leaves
            let poster = try postHeld()
            log.release()
            XCTAssertEqual(try poster.readResponse(method: "POST").status, 200)
        }
        XCTAssertEqual(session.lock.withLock { session.history.firstVersion }, 1)
        let inFlight = try (1...12).map { _ in try postHeld() }
        let (durableBytes, inFlightBytes) = session.lock.withLock { () -> (Int, Int) in
            let durable = session.history.entries(0...session.durableVersion).reduce(0) { $0 + $1.weight }
            return (durable, session.history.bytes - durable)
        }
        XCTAssertGreaterThan(inFlightBytes, budget, "the actions in flight alone pass the budget")
        XCTAssertLessThanOrEqual(durableBytes, budget / 2 + 2_200, "cut down to a kept state (one every half budget)")
        log.release()
        for poster in inFlight { XCTAssertEqual(try poster.readResponse(method: "POST").status, 200) }
    }

    /// A small `--history` does not make the journal snapshot at every action: each snapshot is a
    /// file written and synced, and one per action cost --fsync always thirty times its throughput.
    func testASmallHistoryDoesNotSnapshotEveryAction() throws {
        let log = HeldLog()
        let fixture = try ServerFixture({ $0.history = 1 }, log: log)
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        for _ in 1...50 {
            try client.sendRaw("POST /sessions/\(id)/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n"
                               + "Content-Length: 29\r\n\r\n{\"type\":\"counter/incrTapped\"}")
            XCTAssertEqual(log.appended.wait(timeout: .now() + 10), .success)
            log.release()
            XCTAssertEqual(try client.readResponse().status, 200)
        }
        XCTAssertEqual(log.snapshots.load(ordering: .relaxed), 0, "no snapshot before 1,000 versions")
    }

    func testTheJournalSnapshotsByBytesAndARestartKeepsTheWindow() throws {
        let directory = temporaryDirectory()
        var id = "", token = ""
        var before: [Int] = []
        do {
            // --history 10,000: by count alone no snapshot would be due for 10,000 versions.
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory; $0.historyBytes = self.budget }
            let client = try fixture.client()
            (id, token) = try fixture.createSession()
            try post(client, id, token, large, times: 120)
            before = try versions(client, id, token)
            try XCTUnwrap(fixture.server.journal).flush()  // the snapshots are written on the journal's thread
            let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(id) }
            XCTAssertTrue(files.contains("\(id).snap"), "\(files)")
            XCTAssertFalse(files.contains("\(id).00000001.log"), "the first segment was compacted: \(files)")
            fixture.server.shutdown()
        }
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory; $0.historyBytes = self.budget }
        let client = try fixture.client()
        let state = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(state.json["version"] as? Int, 120)
        XCTAssertEqual((state.json["state"] as? [String: Any])?["count"] as? Int, 120)
        let after = try versions(client, id, token)
        XCTAssertTrue(isWindow(after, endingAt: 120), "\(after)")
        for version in after {
            let past = try client.request("GET", "/sessions/\(id)/state?version=\(version)", headers: bearer(token))
            XCTAssertEqual((past.json["state"] as? [String: Any])?["count"] as? Int, version, past.text)
        }
        XCTAssertLessThanOrEqual(after.first ?? 0, before.first ?? 0, "the restart kept at least the window it had")
    }
}
