import Foundation
@testable import StorehouseServer
import SessionCore
import XCTest

/// A client never sees a version a crash could take back: reads of the head wait for the journal,
/// and the other reads stop at the newest durable version.
final class DurableReadsTests: XCTestCase {
    var log: HeldLog!
    var fixture: ServerFixture!
    var id = "", token = ""
    var session: Session!

    override func setUpWithError() throws {
        log = HeldLog()
        fixture = try ServerFixture(log: log)
        (id, token) = try fixture.createSession()
        session = try XCTUnwrap(fixture.server.registry.lookup(id))
    }

    override func tearDown() {
        log.release()
        fixture = nil
    }

    /// POSTs an increment whose append the log holds; returns the client waiting for its answer.
    func postHeld() throws -> TestClient {
        let poster = try fixture.client()
        try poster.sendRaw("POST /sessions/\(id)/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n"
                           + "Content-Length: 29\r\n\r\n{\"type\":\"counter/incrTapped\"}")
        XCTAssertEqual(log.appended.wait(timeout: .now() + 10), .success, "the append is waiting for the journal")
        return poster
    }

    /// Sends `request` on a new connection and waits until the session has parked it.
    func parked(_ request: String) throws -> TestClient {
        let client = try fixture.client()
        let parked = session.lock.withLock { session.machine.parked.count } + 1
        try client.sendRaw(request)
        let deadline = Date().addingTimeInterval(10)
        while session.lock.withLock({ session.machine.parked.count }) < parked, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(session.lock.withLock { session.machine.parked.count }, parked, "it waits for the journal")
        XCTAssertFalse(client.hasUnreadBytes(), "nothing is answered before the version is durable")
        return client
    }

    func parkedGet(_ target: String, headers: String = "") throws -> TestClient {
        try parked("GET \(target) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n\(headers)\r\n")
    }

    /// A POST whose `If-Match: "0"` no longer holds at the head, parked.
    func parkedStalePost() throws -> TestClient {
        try parked("POST /sessions/\(id)/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nIf-Match: \"0\"\r\n"
                   + "Content-Length: 29\r\n\r\n{\"type\":\"counter/incrTapped\"}")
    }

    /// A raw POST of `body` with `Idempotency-Key: key`.
    func keyedPost(_ body: String, key: String) -> String {
        "POST /sessions/\(id)/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n"
            + "Idempotency-Key: \(key)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// Sends `request` again on a new connection and waits until it waits on `key`.
    func waitingRepeat(_ request: String, key: String) throws -> TestClient {
        let client = try fixture.client()
        try client.sendRaw(request)
        let deadline = Date().addingTimeInterval(10)
        func waiting() -> Int { session.lock.withLock { session.machine.ledger.entries[key]?.waiters.count ?? 0 } }
        while waiting() < 1, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(waiting(), 1, "the repeat waits on the key")
        return client
    }

    /// POSTs an increment under `key` whose append the log holds; returns the request and its client.
    func keyedPostHeld(key: String) throws -> (request: String, client: TestClient) {
        let request = keyedPost(#"{"type":"counter/incrTapped"}"#, key: key)
        let poster = try fixture.client()
        try poster.sendRaw(request)
        XCTAssertEqual(log.appended.wait(timeout: .now() + 10), .success, "the append is waiting for the journal")
        return (request, poster)
    }

    /// A disk that stalls holds the write, but a read of the head is answered 503 once parked past
    /// the deadline rather than hanging with it; a refusal decided on that head waits on.
    func testAReadParkedPastTheDeadlineIs503AndARefusalWaitsOn() throws {
        log.release()
        log = HeldLog()
        fixture = try ServerFixture({ $0.durableReadDeadlineMillis = 300 }, log: log)
        (id, token) = try fixture.createSession()
        session = try XCTUnwrap(fixture.server.registry.lookup(id))
        let poster = try postHeld()
        let reader = try parkedGet("/sessions/\(id)/state")
        let stale = try parkedStalePost()
        let late = try reader.readResponse()
        XCTAssertEqual(late.status, 503, late.text)
        XCTAssertEqual(late.json["type"] as? String, "/problems/journal-unavailable")
        XCTAssertEqual(late.header("Retry-After"), "1")
        XCTAssertEqual(session.lock.withLock { session.machine.parked.count }, 1, "the refusal is still parked")
        XCTAssertFalse(stale.hasUnreadBytes())
        log.release()
        XCTAssertEqual(try poster.readResponse().status, 200)
        XCTAssertEqual(try stale.readResponse().status, 412)
        XCTAssertEqual(try reader.request("GET", "/sessions/\(id)/state", headers: bearer(token)).json["version"] as? Int, 1)
    }

    func testAReadOfTheHeadIsAnsweredOnceTheHeadIsDurable() throws {
        let poster = try postHeld()
        let state = try parkedGet("/sessions/\(id)/state")
        let path = try parkedGet("/sessions/\(id)/state?path=/count")
        let notModified = try parkedGet("/sessions/\(id)/state", headers: "If-None-Match: \"1\"\r\n")
        log.release()
        XCTAssertEqual(try poster.readResponse().status, 200)
        let answer = try state.readResponse()
        XCTAssertEqual(answer.json["version"] as? Int, 1)
        XCTAssertEqual(answer.header("ETag"), "\"1\"")
        XCTAssertEqual(try path.readResponse().text, #"{"version":1,"path":"/count","value":1}"#)
        XCTAssertEqual(try notModified.readResponse().status, 304)
    }

    func testTheOtherReadsStopAtTheNewestDurableVersion() throws {
        let poster = try postHeld()
        let client = try fixture.client()
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["version"] as? Int, 0)
        let log = try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token))
        XCTAssertEqual(log.text, #"{"actions":[],"next":null}"#)
        let ahead = try client.request("GET", "/sessions/\(id)/state?version=1", headers: bearer(token))
        XCTAssertEqual(ahead.status, 404)
        XCTAssertEqual(ahead.json["currentVersion"] as? Int, 0)
        self.log.release()
        XCTAssertEqual(try poster.readResponse().status, 200)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["version"] as? Int, 1)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state?version=1", headers: bearer(token)).json["version"] as? Int, 1)
    }

    /// The journal refuses the append: the waiting read gets the head as it is after the rollback.
    func testAReadWaitingOnARefusedAppendGetsTheRolledBackHead() throws {
        let poster = try postHeld()
        let state = try parkedGet("/sessions/\(id)/state")
        log.fail()
        XCTAssertEqual(try poster.readResponse().status, 503)
        let answer = try state.readResponse()
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.json["version"] as? Int, 0)
        XCTAssertEqual((answer.json["state"] as? [String: Any])?["count"] as? Int, 0)
    }

    func testAReadWaitingWhenTheSessionIsDeletedGets404() throws {
        _ = try postHeld()
        let state = try parkedGet("/sessions/\(id)/state")
        XCTAssertEqual(try fixture.client().request("DELETE", "/sessions/\(id)", headers: bearer(token)).status, 204)
        XCTAssertEqual(try state.readResponse().status, 404)
    }

    /// A refusal decided on a head still on its way to the journal waits for it too: its
    /// `currentVersion` names a durable version.
    func testA412OnAHeadNotYetDurableIsAnsweredOnceItIs() throws {
        let poster = try postHeld()
        let stale = try parkedStalePost()
        log.release()
        XCTAssertEqual(try poster.readResponse().status, 200)
        let refusal = try stale.readResponse()
        XCTAssertEqual(refusal.status, 412)
        XCTAssertEqual(refusal.json["currentVersion"] as? Int, 1)
    }

    /// A reducer's refusal decided on a head not yet durable becomes its Idempotency-Key's first
    /// answer once it is answered: the repeat is not applied on a later state where it would pass.
    func testARefusalAnsweredOnceDurableIsKeptUnderItsIdempotencyKey() throws {
        let save = #"{"type":"primeModal/saveFavoritePrimeTapped"}"#
        let poster = try postHeld()  // count 1: not prime
        let refused = try parked(keyedPost(save, key: "fav"))
        log.release()
        XCTAssertEqual(try poster.readResponse().status, 200)
        let first = try refused.readResponse()
        XCTAssertEqual(first.status, 409, first.text)

        let increment = try postHeld()  // count 2: prime
        log.release()
        XCTAssertEqual(try increment.readResponse().status, 200)
        let again = try fixture.client().request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Idempotency-Key": "fav"]) { $1 }, body: save)
        XCTAssertEqual(again.status, 409, again.text)
        XCTAssertEqual(again.header("Idempotent-Replayed"), "true")
        XCTAssertEqual(session.lock.withLock { session.store.version }, 2)
    }

    /// States too large for the kept states' budget: a state kept by a request still on its way to
    /// the journal pushes out the one the history window starts after. The window is cut again at
    /// once, so the log lists only what `?version=` can read, in flight and after the journal
    /// refuses the request.
    func testAStateKeptInFlightThatPushesTheWindowsBaseOutCutsTheWindow() throws {
        log.release()
        log = HeldLog()
        fixture = try ServerFixture({ $0.history = 20; $0.keptStateBudget = 1 }, log: log)
        (id, token) = try fixture.createSession()
        let client = try fixture.client()
        for _ in 1...3 {
            let poster = try postHeld()
            log.release()
            XCTAssertEqual(try poster.readResponse().status, 200)
        }
        try assertLogAndTimeTravelAgree(client, id, token, head: 3, history: 20, fullWindow: false)
        let poster = try postHeld()
        try assertLogAndTimeTravelAgree(client, id, token, head: 3, history: 20, fullWindow: false)  // in flight
        log.fail()
        XCTAssertEqual(try poster.readResponse().status, 503)
        try assertLogAndTimeTravelAgree(client, id, token, head: 3, history: 20, fullWindow: false)  // after the refusal
    }

    /// A repeat sent while the refusal waits for its head to be durable waits with it, and gets
    /// the same refusal: decided on the newer state, it would have been applied.
    func testARepeatOfAParkedRefusalWaitsForItAndGetsTheSameRefusal() throws {
        let save = #"{"type":"primeModal/saveFavoritePrimeTapped"}"#
        let request = keyedPost(save, key: "fav")
        let first = try postHeld()  // count 1: not prime
        let refused = try parked(request)
        let second = try postHeld()  // count 2: prime
        let repeated = try waitingRepeat(request, key: "fav")
        log.release()
        XCTAssertEqual(try first.readResponse().status, 200)
        XCTAssertEqual(try second.readResponse().status, 200)
        let answer = try refused.readResponse()
        XCTAssertEqual(answer.status, 409, answer.text)
        let again = try repeated.readResponse()
        XCTAssertEqual(again.status, 409, again.text)
        XCTAssertEqual(again.text, answer.text)
        XCTAssertEqual(again.header("Idempotent-Replayed"), "true")
        XCTAssertEqual(session.lock.withLock { session.store.version }, 2)
    }

    /// A rollback that cannot rebuild the head leaves versions that will not become durable: a
    /// repeat waiting on one of their keys gets 503 with the request, not silence.
    func testARepeatWaitingOnAHeadThatCannotBecomeDurableGets503() throws {
        let (request, poster) = try keyedPostHeld(key: "k")
        let repeated = try waitingRepeat(request, key: "k")
        session.lock.withLock { session.keptStates = KeptStates(byteBudget: 1 << 20) }  // nothing to rebuild from
        log.fail()
        XCTAssertEqual(try poster.readResponse().status, 503)
        XCTAssertEqual(try repeated.readResponse().status, 503)
    }

    /// A repeat waiting on a request whose version is not durable yet gets 404 when the session
    /// is deleted, not silence.
    func testARepeatWaitingWhenTheSessionIsDeletedGets404() throws {
        let (request, poster) = try keyedPostHeld(key: "k")
        let repeated = try waitingRepeat(request, key: "k")
        XCTAssertEqual(try fixture.client().request("DELETE", "/sessions/\(id)", headers: bearer(token)).status, 204)
        XCTAssertEqual(try repeated.readResponse().status, 404)
        log.release()
        XCTAssertEqual(try poster.readResponse().status, 404)
    }

    /// The version a 412 was decided on is rolled back: the request is decided again, and its
    /// `If-Match` now holds.
    func testA412DecidedOnARolledBackHeadIsDecidedAgain() throws {
        let poster = try postHeld()
        let stale = try parkedStalePost()
        log.fail()
        XCTAssertEqual(try poster.readResponse().status, 503)
        XCTAssertEqual(log.appended.wait(timeout: .now() + 10), .success, "applied on the rolled-back head")
        log.release()
        let answer = try stale.readResponse()
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.json["version"] as? Int, 1)
    }

    /// A head that nothing in flight can make durable (the rollback could not rebuild it) is not
    /// waited for: the read gets 503 rather than hanging.
    func testAReadOfAHeadThatCannotBecomeDurableGets503() throws {
        let poster = try postHeld()
        let state = try parkedGet("/sessions/\(id)/state")
        session.lock.withLock { session.keptStates = KeptStates(byteBudget: 1 << 20) }  // nothing to rebuild from
        log.fail()
        XCTAssertEqual(try poster.readResponse().status, 503)
        let answer = try state.readResponse()
        XCTAssertEqual(answer.status, 503)
        XCTAssertEqual(answer.json["type"] as? String, "/problems/journal-unavailable")
        XCTAssertEqual(try fixture.client().request("GET", "/sessions/\(id)/state", headers: bearer(token)).status, 503, "and at once for later reads")
        let client = try fixture.client()
        let stale = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["If-Match": "\"0\""]) { $1 },
                                       body: #"{"type":"counter/incrTapped"}"#)
        XCTAssertEqual(stale.status, 503, "no 412 naming a version that cannot become durable: \(stale.text)")
        let write = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
        XCTAssertEqual(write.status, 503, "no write on top of it, which would reach the journal after a gap")
    }

    /// Actions on their way to the journal do not use up the `--history` window: the last
    /// `--history` durable versions stay readable while they are in flight.
    func testActionsInFlightDoNotShortenTheDurableHistory() throws {
        log.release()
        fixture = try ServerFixture({ $0.history = 10 }, log: log)
        (id, token) = try fixture.createSession()
        session = try XCTUnwrap(fixture.server.registry.lookup(id))
        let client = try fixture.client()
        for _ in 1...10 {
            let poster = try postHeld()
            log.release()
            XCTAssertEqual(try poster.readResponse().status, 200)
        }
        let inFlight = try (1...5).map { _ in try postHeld() }
        let page = try client.request("GET", "/sessions/\(id)/actions?since=0", headers: bearer(token))
        XCTAssertEqual(page.status, 200, page.text)
        XCTAssertEqual((page.json["actions"] as? [[String: Any]])?.compactMap { $0["version"] as? Int }, Array(1...10))
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state?version=1", headers: bearer(token)).status, 200)
        log.release()
        for poster in inFlight { XCTAssertEqual(try poster.readResponse().status, 200) }
    }

    /// A `Last-Event-ID` past the newest durable version names nothing a client was shown: the
    /// stream starts over from a snapshot, as for one past the head.
    func testResumingFromAVersionNotYetDurableStartsWithASnapshot() throws {
        let poster = try postHeld()
        let events = try fixture.client()
        XCTAssertEqual(try events.openEvents("/sessions/\(id)/events", headers: bearer(token).merging(["Last-Event-ID": "1"]) { $1 }).status, 200)
        XCTAssertEqual(try events.nextEvent().retry, "2000")
        log.release()
        XCTAssertEqual(try poster.readResponse().status, 200)
        let first = try events.nextEvent()
        XCTAssertEqual(first.event, "snapshot", "not resumed from a version the client cannot have seen")
        XCTAssertEqual(first.id, "1")
    }

    /// Opens the event stream while version 1 is held and waits until its snapshot is held too.
    func heldSubscriber() throws -> TestClient {
        let events = try fixture.client()
        XCTAssertEqual(try events.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
        XCTAssertEqual(try events.nextEvent().retry, "2000")
        let held = session.lock.withLock { session.machine.subscribers.all.first?.heldSnapshot }
        XCTAssertEqual(held, 1, "the snapshot of the head waits for it to be durable")
        XCTAssertFalse(events.hasUnreadBytes(), "no snapshot before version 1 is durable")
        return events
    }

    /// Holds version 1 with a subscriber waiting on its snapshot, settles the append (made
    /// durable, or refused) and checks the snapshot that goes out then.
    func settleHeldSnapshot(durable: Bool, expectedVersion: String) throws -> TestClient {
        let poster = try postHeld()
        let events = try heldSubscriber()
        if durable { log.release() } else { log.fail() }
        XCTAssertEqual(try poster.readResponse().status, durable ? 200 : 503)
        let snapshot = try events.nextEvent()
        XCTAssertEqual(snapshot.event, "snapshot")
        XCTAssertEqual(snapshot.id, expectedVersion)
        return events
    }

    func testASnapshotOfAHeadNotYetDurableGoesOutOnceItIs() throws {
        let events = try settleHeldSnapshot(durable: true, expectedVersion: "1")
        let second = try postHeld()
        log.release()
        XCTAssertEqual(try second.readResponse().status, 200)
        let change = try events.nextEvent()
        XCTAssertEqual(change.event, "change")
        XCTAssertEqual(change.id, "2", "changes go on from the snapshot")
    }

    func testAHeldSnapshotOfARolledBackVersionIsReplacedByTheDurableHead() throws {
        _ = try settleHeldSnapshot(durable: false, expectedVersion: "0")
    }
}
