import Foundation
import Synchronization
import HTTPEngine
import StoreCore
import XCTest
@testable import StorehouseServer

/// API.md "Events".
final class EventRoutesTests: XCTestCase {
    func post(_ client: TestClient, _ id: String, _ token: String, _ body: String = #"{"type":"counter/incrTapped"}"#) throws {
        let response = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: body)
        XCTAssertEqual(response.status, 200, response.text)
    }

    func testStreamOpensWithRetryAndSnapshotThenChangesInOrder() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let events = try fixture.client()
        let head = try events.openEvents("/sessions/\(id)/events", headers: bearer(token))
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Type"), "text/event-stream")
        XCTAssertEqual(head.header("Cache-Control"), "no-cache")
        XCTAssertEqual(head.header("X-Accel-Buffering"), "no")
        XCTAssertEqual(try events.nextEvent().retry, "2000")
        let snapshot = try events.nextEvent()
        XCTAssertEqual(snapshot.event, "snapshot")
        XCTAssertEqual(snapshot.id, "0")
        XCTAssertEqual(snapshot.json["version"] as? Int, 0)

        let client = try fixture.client()
        for _ in 0..<3 { try post(client, id, token) }
        for expected in 1...3 {
            let change = try events.nextEvent()
            XCTAssertEqual(change.event, "change")
            XCTAssertEqual(change.id, String(expected))
            XCTAssertEqual(change.json["version"] as? Int, expected)
            XCTAssertEqual((change.json["action"] as? [String: Any])?["type"] as? String, "counter/incrTapped")
            XCTAssertEqual((change.json["patch"] as? [[String: Any]])?.first?["value"] as? Int, expected)
        }
    }

    /// Under `--fsync always` with `--history 1`, concurrent clients have more actions waiting for the
    /// journal than the history holds. The history keeps them past its count until they are sent, so
    /// a subscriber sees every version once, in order, as a change.
    func testActionsBeyondTheHistoryWhileWaitingForTheJournalReachSubscribersAsChanges() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory; $0.history = 1 }
        let (id, token) = try fixture.createSession()
        let events = try fixture.client()
        XCTAssertEqual(try events.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
        XCTAssertEqual(try events.nextEvent().retry, "2000")
        let clients = 8, posts = 25, port = fixture.port
        let applied = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: clients) { _ in
            guard let client = try? TestClient(port: port) else { return }
            for _ in 0..<posts {
                let response = try? client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
                if response?.status == 200 { applied.add(1, ordering: .relaxed) }
            }
        }
        XCTAssertEqual(applied.load(ordering: .relaxed), clients * posts)
        var last = -1, snapshots = 0
        while last < clients * posts {
            let event = try events.nextEvent()
            guard let version = event.id.flatMap(Int.init) else { continue }
            if event.event == "snapshot" {
                XCTAssertGreaterThan(version, last, "a snapshot never goes back")
                snapshots += 1
            } else {
                XCTAssertEqual(event.event, "change")
                XCTAssertEqual(version, last + 1, "no version skipped or repeated")
            }
            last = version
        }
        XCTAssertEqual(last, clients * posts)
        XCTAssertEqual(snapshots, 1, "the first snapshot only, then every version as a change")
    }

    /// A session with many subscribers answers the client before its change is queued for them
    /// (on the fan-out queue, held here), and the subscribers get it once the queue runs.
    func testALargeFanOutRunsAfterTheAnswerOffTheDurableThread() throws {
        let queue = DispatchQueue(label: "fan-out")
        queue.suspend()
        var held = true
        defer { if held { queue.resume() } }
        let fixture = try ServerFixture({ $0.fanOutInlineLimit = 2 }, fanOutQueue: queue)
        let (id, token) = try fixture.createSession()
        let subscribers = try (0..<2).map { _ in try fixture.client() }
        for subscriber in subscribers {
            XCTAssertEqual(try subscriber.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
            XCTAssertEqual(try subscriber.nextEvent().retry, "2000")
            XCTAssertEqual(try subscriber.nextEvent().event, "snapshot")
        }
        try post(fixture.client(), id, token)
        try post(fixture.client(), id, token)
        // Answered, and nothing published yet: the fan-out waits on the held queue.
        subscribers[0].setReadTimeout(seconds: 1)
        XCTAssertThrowsError(try subscribers[0].nextEvent(), "a change arrived before the fan-out queue ran")
        subscribers[0].setReadTimeout(seconds: 10)
        queue.resume()
        held = false
        for subscriber in subscribers {
            for expected in 1...2 {
                let change = try subscriber.nextEvent()
                XCTAssertEqual(change.event, "change")
                XCTAssertEqual(change.id, String(expected))
            }
        }
    }

    /// At shutdown, a change still on its way to the journal (its client answered during the
    /// drain) reaches subscribers before `end`: the streams end once the session has settled.
    func testShutdownEndsStreamsAfterTheChangesStillOnTheirWayToTheJournal() throws {
        let log = HeldLog()
        let fixture = try ServerFixture(log: log)
        let (id, token) = try fixture.createSession()
        let events = try fixture.client()
        XCTAssertEqual(try events.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
        XCTAssertEqual(try events.nextEvent().retry, "2000")
        XCTAssertEqual(try events.nextEvent().event, "snapshot")
        let poster = try fixture.client()
        try poster.sendRaw("POST /sessions/\(id)/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n"
                           + "Content-Length: 29\r\n\r\n{\"type\":\"counter/incrTapped\"}")
        XCTAssertEqual(log.appended.wait(timeout: .now() + 10), .success, "the append is waiting for the journal")
        let stopped = expectation(description: "shutdown returned")
        let server = fixture.server
        DispatchQueue.global().async { server.shutdown(); stopped.fulfill() }
        // The shutdown has begun (the streams were asked to end), and the change is not durable yet.
        events.setReadTimeout(seconds: 1)
        XCTAssertThrowsError(try events.nextEvent(), "end came while version 1 was on its way to the journal")
        events.setReadTimeout(seconds: 10)
        log.release()
        XCTAssertEqual(try poster.readResponse().status, 200)
        let change = try events.nextEvent()
        XCTAssertEqual(change.event, "change")
        XCTAssertEqual(change.id, "1")
        XCTAssertEqual(try events.nextEvent().event, "end")
        wait(for: [stopped], timeout: 15)
    }

    /// A client's action that reaches the session once draining began (it passed the router just
    /// before) is refused there: the session's streams may already have ended, and a change applied
    /// now would never reach their subscribers. What effects feed back is still applied.
    func testAClientActionReachingTheSessionWhileDrainingIsRefusedNotAppliedAfterTheStreamsEnded() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let session = try XCTUnwrap(fixture.server.registry.lookup(id))
        let events = try fixture.client()
        XCTAssertEqual(try events.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
        XCTAssertEqual(try events.nextEvent().retry, "2000")
        XCTAssertEqual(try events.nextEvent().event, "snapshot")
        let stopped = expectation(description: "shutdown returned")
        let server = fixture.server
        DispatchQueue.global().async { server.shutdown(); stopped.fulfill() }
        XCTAssertEqual(try events.nextEvent().event, "end")

        func submit(_ source: ActionSource) -> HTTPResponse? {
            let answered = Mutex<HTTPResponse?>(nil)
            let record = ActionRecord(type: "counter/incrTapped", payload: nil, meta: nil, at: SessionContext.wallClock(), source: source)
            session.submit(ActionSubmission(records: [record], ifMatch: nil, idempotency: nil, minimal: true), replyTo: .handler { response in
                answered.withLock { $0 = response }
            })
            return answered.withLock { $0 }
        }
        let refused = try XCTUnwrap(submit(.client))
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.headers["Connection"], "close")
        XCTAssertTrue(String(decoding: refused.body, as: UTF8.self).contains("not-ready"))
        XCTAssertEqual(session.lock.withLock { session.store.version }, 0)
        XCTAssertEqual(submit(.effect)?.status, 200)
        XCTAssertEqual(session.lock.withLock { session.store.version }, 1)
        wait(for: [stopped], timeout: 15)
    }

    /// Versions past `--history` behind one publication reach subscribers with their one-off
    /// outputs: no snapshot stands in for them (it could not carry outputs, which are in no state).
    func testOutputsOfVersionsPastTheHistoryBehindOnePublicationReachSubscribers() throws {
        let queue = DispatchQueue(label: "fan-out")
        var held = false
        defer { if held { queue.resume() } }
        let fixture = try ServerFixture({ $0.fanOutInlineLimit = 1; $0.history = 1 }, fanOutQueue: queue)
        let (id, token) = try fixture.createSession(#"{"kind":"login"}"#)
        let client = try fixture.client()
        try post(client, id, token, #"{"type":"login/emailChanged","payload":"a@b.c"}"#)
        try post(client, id, token, #"{"type":"login/passwordChanged","payload":"longpassword1"}"#)
        let events = try fixture.client()
        XCTAssertEqual(try events.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
        XCTAssertEqual(try events.nextEvent().retry, "2000")
        let snapshot = try events.nextEvent()
        XCTAssertEqual(snapshot.event, "snapshot")
        // A tap needs a validated email: the validation effect may still be on its way.
        if ((snapshot.json["state"] as? [String: Any])?["email"] as? [String: Any])?["valid"] as? Bool != true {
            while ((try events.nextEvent().json["action"] as? [String: Any])?["type"] as? String) != "login/emailValidated" {}
        }
        // Three taps behind one publication: more versions than --history 1 holds.
        queue.suspend(); held = true
        for _ in 0..<3 { try post(client, id, token, #"{"type":"login/loginTapped"}"#) }
        queue.resume(); held = false
        var outputs: [Int] = [], lastChange = -1
        while outputs.count < 3 {
            let event = try events.nextEvent()
            XCTAssertNotEqual(event.event, "snapshot", "no snapshot stands in for the taps")
            if event.event == "change" { lastChange = Int(event.id ?? "") ?? -1 }
            if event.event == "output", let version = event.json["version"] as? Int {
                XCTAssertEqual(version, lastChange, "an output follows its change")
                outputs.append(version)
            }
        }
        XCTAssertEqual(Set(outputs).count, 3, "one per tap: \(outputs)")
    }

    /// A change answered before shutdown began reaches subscribers before `end`, even while its
    /// publication waits on the fan-out queue.
    func testAnAnsweredChangeGoesOutBeforeTheShutdownsEnd() throws {
        let queue = DispatchQueue(label: "fan-out")
        let fixture = try ServerFixture({ $0.fanOutInlineLimit = 1 }, fanOutQueue: queue)
        let (id, token) = try fixture.createSession()
        let events = try fixture.client()
        XCTAssertEqual(try events.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
        XCTAssertEqual(try events.nextEvent().retry, "2000")
        XCTAssertEqual(try events.nextEvent().event, "snapshot")
        queue.suspend()
        try post(fixture.client(), id, token)
        let stopped = expectation(description: "shutdown returned")
        let server = fixture.server
        DispatchQueue.global().async { server.shutdown(); stopped.fulfill() }
        let next = try events.nextEvent()
        queue.resume()
        wait(for: [stopped], timeout: 15)
        XCTAssertEqual(next.event, "change", "\(next.event ?? "nil") \(next.data) came before the answered change 1")
        XCTAssertEqual(next.id, "1")
        XCTAssertEqual(try events.nextEvent().event, "end")
    }

    /// A subscriber that stopped reading, on a large state, while publications carry more versions
    /// than `--history`: its queue stays within the bound plus one snapshot, not one per publication.
    func testAStalledSubscriberStaysBoundedWhilePublicationsPassTheHistory() throws {
        let queue = DispatchQueue(label: "fan-out")
        var held = false
        defer { if held { queue.resume() } }
        let fixture = try ServerFixture({
            $0.fanOutInlineLimit = 1; $0.history = 1; $0.subscriberBufferBytes = 64 << 10
        }, fanOutQueue: queue)
        // A ~200 KB state, so every snapshot is far larger than the subscriber bound.
        let products = (0..<200).map { #""\#($0)\#(String(repeating: "p", count: 1_000))""# }.joined(separator: ",")
        let (id, token) = try fixture.createSession(#"{"kind":"shop","state":{"products":[\#(products)]}}"#)
        let session = try XCTUnwrap(fixture.server.registry.lookup(id))
        let stalled = try TestClient(port: fixture.port, receiveBuffer: 4_096)
        XCTAssertEqual(try stalled.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
        let client = try fixture.client()
        for n in 0..<30 {
            // Two actions behind one publication: more than --history 1 holds.
            queue.suspend(); held = true
            try post(client, id, token, #"{"type":"shop/add","payload":"a\#(n)"}"#)
            try post(client, id, token, #"{"type":"shop/add","payload":"b\#(n)"}"#)
            queue.resume(); held = false
            queue.sync {}  // the publication has run
        }
        let pending = session.lock.withLock { session.subscribers.values.first?.stream.pendingBytes ?? 0 }
        XCTAssertLessThan(pending, (64 << 10) + 2 * 210_000, "a stalled subscriber queued \(pending >> 10) KiB")
    }

    /// Versions that are durable but not yet sent (their fan-out waiting on its queue) stay in the
    /// history when large actions push it past its byte budget: subscribers get them as changes.
    func testTheByteBudgetKeepsWhatAWaitingFanOutHasYetToSend() throws {
        let queue = DispatchQueue(label: "fan-out")
        queue.suspend()
        var held = true
        defer { if held { queue.resume() } }
        // A kept state at every version (history 10), and room for about two of these actions.
        let fixture = try ServerFixture({ $0.fanOutInlineLimit = 1; $0.history = 10; $0.historyBytes = 5_000 }, fanOutQueue: queue)
        let (id, token) = try fixture.createSession(#"{"kind":"shop"}"#)
        let events = try fixture.client()
        XCTAssertEqual(try events.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
        XCTAssertEqual(try events.nextEvent().retry, "2000")
        XCTAssertEqual(try events.nextEvent().event, "snapshot")
        let client = try fixture.client()
        for n in 1...5 { try post(client, id, token, #"{"type":"shop/add","payload":"\#(String(repeating: "x", count: 2_000))\#(n)"}"#) }
        queue.resume()
        held = false
        for expected in 1...5 {
            let change = try events.nextEvent()
            XCTAssertEqual(change.event, "change")
            XCTAssertEqual(change.id, String(expected))
        }
    }

    func testOutputsFollowTheirChangeWithoutID() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession(#"{"kind":"login"}"#)
        let client = try fixture.client()
        try post(client, id, token, #"[{"type":"login/emailChanged","payload":"a@b.c"},{"type":"login/passwordChanged","payload":"longenough1"}]"#)
        let events = try fixture.client()
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token))
        _ = try events.nextEvent()
        var snapshot = try events.nextEvent()
        // The email validation effect may still be in flight when the stream opens.
        while (snapshot.json["state"] as? [String: Any]).flatMap({ ($0["email"] as? [String: Any])?["valid"] as? Bool }) != true {
            snapshot = try events.nextEvent()
            if snapshot.event == "change", ((snapshot.json["action"] as? [String: Any])?["type"] as? String) == "login/emailValidated" { break }
        }
        try post(client, id, token, #"{"type":"login/loginTapped"}"#)
        let change = try events.nextEvent()
        XCTAssertEqual(change.event, "change")
        let output = try events.nextEvent()
        XCTAssertEqual(output.event, "output")
        XCTAssertNil(output.id)
        XCTAssertEqual(output.json["version"] as? Int, change.json["version"] as? Int)
        XCTAssertEqual((output.json["output"] as? [String: Any])?["type"] as? String, "login/confirmationRequested")
    }

    func testDeleteEndsStreamsWithReasonDeleted() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let events = try fixture.client()
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token))
        _ = try events.nextEvent(); _ = try events.nextEvent()
        XCTAssertEqual(try fixture.client().request("DELETE", "/sessions/\(id)", headers: bearer(token)).status, 204)
        let end = try events.nextEvent()
        XCTAssertEqual(end.event, "end")
        XCTAssertEqual(end.json["reason"] as? String, "deleted")
    }

    func testResumeWithLastEventIDReplaysWithoutSnapshot() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        for _ in 0..<5 { try post(client, id, token) }
        let events = try fixture.client()
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token).merging(["Last-Event-ID": "3"]) { $1 })
        XCTAssertEqual(try events.nextEvent().retry, "2000")
        let first = try events.nextEvent()
        XCTAssertEqual(first.event, "change")
        XCTAssertEqual(first.id, "4")
        XCTAssertEqual(try events.nextEvent().id, "5")
        try post(client, id, token)
        XCTAssertEqual(try events.nextEvent().id, "6")

        let bySince = try fixture.client()
        _ = try bySince.openEvents("/sessions/\(id)/events?since=5&access_token=\(token)")
        _ = try bySince.nextEvent()
        XCTAssertEqual(try bySince.nextEvent().id, "6")
    }

    func testResumeOutsideHistoryStartsWithSnapshot() throws {
        let fixture = try ServerFixture { $0.history = 3 }
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        for _ in 0..<10 { try post(client, id, token) }
        // "+9" is no event id the server sent (digits only): not read as 9, which would resume.
        for lastSeen in ["1", "99", "+9"] {
            let events = try fixture.client()
            _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token).merging(["Last-Event-ID": lastSeen]) { $1 })
            _ = try events.nextEvent()
            let first = try events.nextEvent()
            XCTAssertEqual(first.event, "snapshot", "Last-Event-ID \(lastSeen)")
            XCTAssertEqual(first.id, "10")
        }
    }

    func testTwoSubscribersSeeIdenticalSequencesAndPatchesRebuildTheState() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
        let a = try fixture.client(), b = try fixture.client()
        _ = try a.openEvents("/sessions/\(id)/events", headers: bearer(token))
        _ = try b.openEvents("/sessions/\(id)/events", headers: bearer(token))
        _ = try a.nextEvent(); _ = try b.nextEvent()
        let snapshotA = try a.nextEvent(), snapshotB = try b.nextEvent()
        XCTAssertEqual(snapshotA.data, snapshotB.data)
        var state = try JSONReader.parse(Array(((snapshotA.json["state"]).flatMap { try? JSONSerialization.data(withJSONObject: $0) } ?? Data()) ))

        let client = try fixture.client()
        let bodies = [#"{"type":"tasks/add","payload":{"title":"one"}}"#, #"{"type":"tasks/add","payload":{"title":"two"}}"#,
                      #"{"type":"tasks/toggleDone","payload":{"id":1}}"#, #"{"type":"tasks/favorite","payload":{"id":2}}"#,
                      #"{"type":"tasks/rename","payload":{"id":2,"title":"zwei"}}"#, #"{"type":"tasks/remove","payload":{"id":1}}"#]
        for body in bodies { try post(client, id, token, body) }
        for _ in bodies {
            let eventA = try a.nextEvent(), eventB = try b.nextEvent()
            XCTAssertEqual(eventA.data, eventB.data)
            XCTAssertEqual(eventA.id, eventB.id)
            let data = try JSONReader.parse(Array(eventA.data.utf8))
            guard case .object(let object) = data, let patch = object["patch"] else { return XCTFail("no patch in \(eventA.data)") }
            state = try JSONPatch.apply(patch, to: state)
        }
        let current = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token))
        let served = try JSONReader.parse(Array(current.body))
        guard case .object(let o) = served else { return XCTFail() }
        XCTAssertEqual(o["state"], state)
    }

    func testHeartbeatAfterSilence() throws {
        let fixture = try ServerFixture { $0.heartbeatSeconds = 1 }
        let (id, token) = try fixture.createSession()
        let events = try fixture.client()
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token))
        _ = try events.nextEvent(); _ = try events.nextEvent()
        let comment = try events.nextEvent()
        XCTAssertEqual(comment.comments, ["keep-alive"])
        XCTAssertNil(comment.event)
    }

    func testSlowSubscriberIsResetToASnapshotAndNeverSeesAVersionTwice() throws {
        let fixture = try ServerFixture { $0.subscriberBufferBytes = 1_024 }
        let (id, token) = try fixture.createSession(#"{"kind":"shop"}"#)
        let slow = try TestClient(port: fixture.port, receiveBuffer: 4_096)
        _ = try slow.openEvents("/sessions/\(id)/events", headers: bearer(token))
        let client = try fixture.client()
        let name = String(repeating: "n", count: 4_000)
        var posted = 0
        // Post until the server reports a reset; bounded so a missing feature fails instead of hanging.
        while posted < 3_000 {
            try post(client, id, token, #"{"type":"shop/add","payload":"\#(name)\#(posted)"}"#)
            posted += 1
            if posted % 50 == 0, try client.request("GET", "/metrics").text.contains("storehouse_subscriber_resets_total 0") == false { break }
        }
        XCTAssertLessThan(posted, 3_000, "the slow subscriber was never reset")
        _ = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"shop/remove","payload":"x"}"#)
        posted += 1
        var last = -1
        var snapshots = 0
        while last < posted {
            let event = try slow.nextEvent()
            guard let version = event.id.flatMap(Int.init) else { continue }
            XCTAssertGreaterThan(version, last, "versions go forward only")
            if event.event == "snapshot" { snapshots += 1 } else { XCTAssertEqual(version, last + 1, "a change follows its predecessor") }
            last = version
        }
        XCTAssertGreaterThanOrEqual(snapshots, 2, "the initial snapshot and at least one reset")
    }

    func testStalledSubscriberIsResetOnceAndGetsTheHeadWhenItReadsAgain() throws {
        // A subscriber that stops reading is reset; until it reads again, later changes skip it
        // (no snapshot per action: on a large state that cost a whole encoding each). When it
        // reads, what was on its way arrives, then a snapshot of the head as it is by then.
        // The bound holds a few changes, so only a stall resets it.
        let fixture = try ServerFixture { $0.subscriberBufferBytes = 16 << 10; $0.maxBodyBytes = 1 << 20 }
        let (id, token) = try fixture.createSession(#"{"kind":"shop"}"#)
        let slow = try TestClient(port: fixture.port, receiveBuffer: 4_096)
        _ = try slow.openEvents("/sessions/\(id)/events", headers: bearer(token))
        let client = try fixture.client()
        let name = String(repeating: "n", count: 64 << 10)
        func resets() throws -> Int {
            let text = try client.request("GET", "/metrics").text
            let line = text.split(separator: "\n").first { $0.hasPrefix("storehouse_subscriber_resets_total ") }
            return line.flatMap { Int($0.split(separator: " ")[1]) } ?? -1
        }
        func add(_ n: Int) throws {
            let response = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Prefer": "return=minimal"]) { $1 },
                                              body: #"{"type":"shop/add","payload":"\#(name)\#(n)"}"#)
            XCTAssertEqual(response.status, 200)
        }
        // Until the kernel's socket buffers are full, a reset may drain at once and be followed by
        // another. Once 8 MB of changes (more than those buffers hold) went by without a reset,
        // the subscriber can only have been skipped: it is waiting for its snapshot.
        var posted = 0
        var quiet = 0
        var count = 0
        while posted < 600 && quiet < 128 {
            try add(posted)
            posted += 1
            if posted % 8 == 0 {
                let now = try resets()
                quiet = now > 0 && now == count ? quiet + 8 : 0
                count = now
            }
        }
        XCTAssertEqual(quiet, 128, "after \(posted) actions the stalled subscriber was reset \(count) times and still is at every change")
        // It reads again: what was on its way (earlier snapshots and changes included), then the head.
        var last = -1
        while last < posted {
            let event = try slow.nextEvent()
            guard let version = event.id.flatMap(Int.init) else { continue }
            XCTAssertGreaterThan(version, last, "versions go forward only")
            if version == posted { XCTAssertEqual(event.event, "snapshot", "the head comes as a snapshot") }
            last = version
        }
        try post(client, id, token, #"{"type":"shop/remove","payload":"x"}"#)
        let next = try slow.nextEvent()
        XCTAssertEqual(next.event, "change")
        XCTAssertEqual(next.id, String(posted + 1))
    }

    func testStateLargerThanTheBoundDoesNotResetASubscriberThatKeepsUp() throws {
        // The bound is for changes falling behind: a snapshot still on its way does not count,
        // or a state larger than the bound would turn every change into another snapshot.
        // The state (~8 MB) is more than the kernel's socket buffers take, so most of it stays queued.
        let fixture = try ServerFixture { $0.maxBodyBytes = 16 << 20; $0.subscriberBufferBytes = 64 << 10 }
        let products = (0..<8_000).map { #""\#($0)\#(String(repeating: "p", count: 1_000))""# }.joined(separator: ",")
        let (id, token) = try fixture.createSession(#"{"kind":"shop","state":{"products":[\#(products)]}}"#)
        let subscriber = try TestClient(port: fixture.port, receiveBuffer: 4_096)
        _ = try subscriber.openEvents("/sessions/\(id)/events", headers: bearer(token))
        let client = try fixture.client()
        // Posted while the snapshot is still unsent (the subscriber has not read yet).
        for n in 1...5 { try post(client, id, token, #"{"type":"shop/add","payload":"more\#(n)"}"#) }
        var seen: [String] = []
        while seen.last?.hasSuffix(" 5") != true {
            let event = try subscriber.nextEvent()
            guard let version = event.id else { continue }
            seen.append("\(event.event ?? "message") \(version)")
        }
        XCTAssertEqual(seen, ["snapshot 0", "change 1", "change 2", "change 3", "change 4", "change 5"])
        XCTAssertTrue(try client.request("GET", "/metrics").text.contains("storehouse_subscriber_resets_total 0"))
    }

    func testAChangeLargerThanTheBoundReachesASubscriberThatKeepsUp() throws {
        // The bound is on falling behind: one change larger than it, to a subscriber with nothing
        // pending, goes as a change (it was a reset to a snapshot, at every such action).
        let fixture = try ServerFixture { $0.subscriberBufferBytes = 1_024 }
        let (id, token) = try fixture.createSession(#"{"kind":"shop"}"#)
        let subscriber = try fixture.client()
        _ = try subscriber.openEvents("/sessions/\(id)/events", headers: bearer(token))
        var event = try subscriber.nextEvent()
        while event.event != "snapshot" { event = try subscriber.nextEvent() }
        let client = try fixture.client()
        for n in 1...3 {
            try post(client, id, token, #"{"type":"shop/add","payload":"\#(String(repeating: "x", count: 4_000))\#(n)"}"#)
            event = try subscriber.nextEvent()
            XCTAssertEqual(event.event, "change")
            XCTAssertEqual(event.id, String(n))
        }
        XCTAssertTrue(try client.request("GET", "/metrics").text.contains("storehouse_subscriber_resets_total 0"))
    }

    func testSubscribersThatDoNotReadShareOneSnapshotOfALargeState() throws {
        // 40 subscribers of a ~8 MB state that never read: the snapshot frame is one shared
        // buffer, so they cost the state about once, not once each (what the kernel's socket
        // buffer does not take stays queued in the process).
        let fixture = try ServerFixture { $0.maxBodyBytes = 16 << 20; $0.subscriberBufferBytes = 64 << 10 }
        let products = (0..<8_000).map { #""\#($0)\#(String(repeating: "p", count: 1_000))""# }.joined(separator: ",")
        let (id, token) = try fixture.createSession(#"{"kind":"shop","state":{"products":[\#(products)]}}"#)
        let client = try fixture.client()
        try post(client, id, token, #"{"type":"shop/add","payload":"warm"}"#)  // the head's answer is built
        let before = residentBytes()
        var idle: [TestClient] = []
        for _ in 0..<40 {
            let subscriber = try TestClient(port: fixture.port, receiveBuffer: 4_096)
            _ = try subscriber.openEvents("/sessions/\(id)/events", headers: bearer(token))
            idle.append(subscriber)
        }
        for n in 0..<3 { try post(client, id, token, #"{"type":"shop/add","payload":"more\#(n)"}"#) }  // every one is reset
        let grown = residentBytes() - before
        XCTAssertLessThan(grown, 64 << 20, "RSS grew by \(grown >> 20) MiB for 40 subscribers of an 8 MB state")
        XCTAssertEqual(idle.count, 40)
    }

    /// This process's resident set, from /proc (Linux).
    func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kib << 10
    }

    func testShutdownEndsStreamsWithReasonShutdown() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let events = try fixture.client()
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token))
        _ = try events.nextEvent(); _ = try events.nextEvent()
        let done = expectation(description: "shutdown returned")
        let server = fixture.server
        DispatchQueue.global().async { server.shutdown(); done.fulfill() }
        let end = try events.nextEvent()
        XCTAssertEqual(end.event, "end")
        XCTAssertEqual(end.json["reason"] as? String, "shutdown")
        XCTAssertTrue(events.waitForClose())
        wait(for: [done], timeout: 15)
    }
}
