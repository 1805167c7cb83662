import XCTest
@testable import StorehouseServer

/// API.md "State" and the action log.
final class StateRoutesTests: XCTestCase {
    func testETagAndIfNoneMatch() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        let first = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.header("ETag"), "\"0\"")
        XCTAssertEqual(first.json["version"] as? Int, 0)
        let cached = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token).merging(["If-None-Match": "\"0\""]) { $1 })
        XCTAssertEqual(cached.status, 304)
        XCTAssertTrue(cached.body.isEmpty)
        XCTAssertEqual(cached.header("ETag"), "\"0\"")
        // RFC 9110 §8.6: a 304's Content-Length could only be the 200's length; none is sent.
        XCTAssertNil(cached.header("Content-Length"))
        _ = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
        let stale = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token).merging(["If-None-Match": "\"0\""]) { $1 })
        XCTAssertEqual(stale.status, 200)
        XCTAssertEqual(stale.header("ETag"), "\"1\"")
        // Two field lines are one list (RFC 9110 §5.3): "0" or "1" names the current version.
        try client.sendRaw("GET /sessions/\(id)/state HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n"
                           + "If-None-Match: \"0\"\r\nIf-None-Match: \"1\"\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 304)
        // A past version never changes: its tag is as good as the head's. A path or version that
        // is not there stays 404 whatever the tags (RFC 9110 §13.2.1).
        func get(_ target: String, ifNoneMatch tag: String) throws -> TestResponse {
            try client.request("GET", "/sessions/\(id)/state\(target)", headers: bearer(token).merging(["If-None-Match": tag]) { $1 })
        }
        XCTAssertEqual(try get("?version=0", ifNoneMatch: "\"0\"").status, 304)
        XCTAssertEqual(try get("?version=0", ifNoneMatch: "\"0\"").header("ETag"), "\"0\"")
        XCTAssertEqual(try get("?version=0", ifNoneMatch: "\"1\"").status, 200)
        XCTAssertEqual(try get("?version=0&path=/count", ifNoneMatch: "\"0\"").status, 304)
        XCTAssertEqual(try get("?path=/count", ifNoneMatch: "\"1\"").status, 304)
        XCTAssertEqual(try get("?version=9", ifNoneMatch: "\"9\"").status, 404)
        XCTAssertEqual(try get("?version=9", ifNoneMatch: "*").status, 404)
        XCTAssertEqual(try get("?path=/nope", ifNoneMatch: "\"1\"").status, 404)
    }

    func testJSONPointerPathWithEscapes() throws {
        let fixture = try ServerFixture()
        let state = #"{"kind":"shop","state":{"products":["a/b","c~d"]}}"#
        let (id, token) = try fixture.createSession(state)
        let client = try fixture.client()
        let item = try client.request("GET", "/sessions/\(id)/state?path=/products/1", headers: bearer(token))
        XCTAssertEqual(item.status, 200)
        XCTAssertEqual(item.text, #"{"version":0,"path":"/products/1","value":"c~d"}"#)

        let tasks = try fixture.createSession(#"{"kind":"tasks"}"#)
        _ = try client.request("POST", "/sessions/\(tasks.id)/actions", headers: bearer(tasks.token), body: #"{"type":"tasks/add","payload":{"title":"x"}}"#)
        let task = try client.request("GET", "/sessions/\(tasks.id)/state?path=%2Ftasks%2FbyId%2F1%2Ftitle", headers: bearer(tasks.token))
        XCTAssertEqual(task.json["value"] as? String, "x")
        let missing = try client.request("GET", "/sessions/\(tasks.id)/state?path=/tasks/byId/9", headers: bearer(tasks.token))
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.json["type"] as? String, "/problems/path-not-found")
        XCTAssertEqual(try client.request("GET", "/sessions/\(tasks.id)/state?path=tasks", headers: bearer(tasks.token)).status, 400)
    }

    func testAPathAnswersTheBytesOfTheWholeStateInItsKeyOrder() throws {
        // API.md: the same state always serializes to the same bytes, whole or in part.
        let fixture = try ServerFixture()
        let client = try fixture.client()
        let (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
        for title in ["one", "two"] {
            _ = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"tasks/add","payload":{"title":"\#(title)"}}"#)
        }
        let whole = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).text
        let state = String(whole.drop { $0 != "{" }.dropFirst().drop { $0 != "{" }.dropLast())
        XCTAssertTrue(state.hasPrefix(#"{"tasks":{"byId":{"1":{"id":1,"title":"one","done":false}"#), state)
        for (path, version) in [("", ""), ("", "&version=2"), ("/tasks", ""), ("/tasks/byId/1", ""), ("/tasks/byId/2", "&version=2")] {
            let answer = try client.request("GET", "/sessions/\(id)/state?path=\(path)\(version)", headers: bearer(token))
            XCTAssertEqual(answer.status, 200, answer.text)
            let value = String(answer.text.drop { $0 != "{" }.dropFirst().components(separatedBy: #""value":"#).last?.dropLast() ?? "")
            XCTAssertTrue(state.contains(value), "\(path)\(version): \(value) is not a part of \(state)")
        }
        let one = try client.request("GET", "/sessions/\(id)/state?path=/tasks/byId/1", headers: bearer(token))
        XCTAssertEqual(one.text, #"{"version":2,"path":"/tasks/byId/1","value":{"id":1,"title":"one","done":false}}"#)
    }

    func testPointerEscapesTildeZeroAndOne() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
        let client = try fixture.client()
        _ = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"tasks/add","payload":{"title":"a"}}"#)
        // "~1" is "/" and "~0" is "~" (RFC 6901 §4); no key here has either, so both are 404 but parse.
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state?path=/tasks/by~1Id", headers: bearer(token)).status, 404)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state?path=/tasks/by~0Id", headers: bearer(token)).status, 404)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state?path=", headers: bearer(token)).json["version"] as? Int, 1)
    }

    func testTimeTravelByReplay() throws {
        let fixture = try ServerFixture { $0.history = 30 }
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        try client.incrementCounter(id, token, times: 50)
        let past = try client.request("GET", "/sessions/\(id)/state?version=37", headers: bearer(token))
        XCTAssertEqual(past.status, 200, past.text)
        XCTAssertEqual(past.json["version"] as? Int, 37)
        XCTAssertEqual((past.json["state"] as? [String: Any])?["count"] as? Int, 37)
        let ahead = try client.request("GET", "/sessions/\(id)/state?version=51", headers: bearer(token))
        XCTAssertEqual(ahead.status, 404)
        XCTAssertEqual(ahead.json["type"] as? String, "/problems/version-not-found")
        let old = try client.request("GET", "/sessions/\(id)/state?version=2", headers: bearer(token))
        XCTAssertEqual(old.status, 404)
        XCTAssertEqual(old.json["type"] as? String, "/problems/version-not-found")
        // The oldest version it names is one from which every newer version can be rebuilt.
        let oldest = try XCTUnwrap(old.json["oldestVersion"] as? Int)
        XCTAssertTrue((17...20).contains(oldest), "the window (21...50) back to a kept state (every 3 versions): \(oldest)")
        for version in oldest...50 {
            let answer = try client.request("GET", "/sessions/\(id)/state?version=\(version)", headers: bearer(token))
            XCTAssertEqual((answer.json["state"] as? [String: Any])?["count"] as? Int, version, answer.text)
        }
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state?version=x", headers: bearer(token)).status, 400)
        // Digits only: what Int("+1") or Int("-0") would take is not a version.
        for target in ["state?version=%2B40", "state?version=-0", "state?version=%2040", "actions?since=%2B1", "actions?limit=-0"] {
            XCTAssertEqual(try client.request("GET", "/sessions/\(id)/\(target)", headers: bearer(token)).status, 400, target)
        }
    }

    /// Asserts that every version from the `oldestVersion` a too-old `?version=` names up to
    /// `head` can be read, and that the oldest is within one keep interval of the window's start.
    func assertWindowRebuilds(_ client: TestClient, _ id: String, _ token: String, head: Int, history: Int,
                              file: StaticString = #filePath, line: UInt = #line) throws {
        let old = try client.request("GET", "/sessions/\(id)/state?version=1", headers: bearer(token))
        XCTAssertEqual(old.status, 404, old.text, file: file, line: line)
        let oldest = try XCTUnwrap(old.json["oldestVersion"] as? Int, old.text, file: file, line: line)
        XCTAssertLessThanOrEqual(oldest, head - history + history / 10, "versions inside the window are lost", file: file, line: line)
        for version in oldest...head {
            let answer = try client.request("GET", "/sessions/\(id)/state?version=\(version)", headers: bearer(token))
            XCTAssertEqual((answer.json["state"] as? [String: Any])?["count"] as? Int, version, answer.text, file: file, line: line)
        }
    }

    /// --history 30 keeps a state every 3 versions. The ring used to let go of the versions one
    /// at a time, so its oldest could be two past the newest kept state before it: listed by the
    /// log, but 404 to `?version=`, which replays from a kept state.
    func testEveryVersionTheLogListsCanBeRead() throws {
        let fixture = try ServerFixture { $0.history = 30 }
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        for head in 1...56 {
            XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#).status, 200)
            if head >= 50 { try assertLogAndTimeTravelAgree(client, id, token, head: head, history: 30) }
        }
    }

    /// States too large for the kept states' budget: the old ones go, and none reaches back to
    /// the window's start. The window then ends sooner, but the log still lists only what
    /// `?version=` can read; and the journal still gets its snapshots (it needs a kept state at
    /// the window's start), so its records are compacted.
    func testWithLargeStatesTheLogStillListsOnlyWhatCanBeRead() throws {
        let directory = temporaryDirectory()
        let fixture = try ServerFixture { $0.history = 30; $0.keptStateBudget = 1; $0.inMemory = false; $0.dataDirectory = directory }
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        for head in 1...1_100 {
            XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#).status, 200)
            if head % 50 == 0 || head > 1_090 { try assertLogAndTimeTravelAgree(client, id, token, head: head, history: 30, fullWindow: false) }
        }
        let deadline = Date().addingTimeInterval(10)
        func snapshots() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".snap") }.count }
        while snapshots() == 0, Date() < deadline { usleep(10_000) }
        XCTAssertGreaterThan(snapshots(), 0, "the journal wrote a snapshot")
    }

    /// A refused batch large next to `--history` keeps nothing: the states it would have kept
    /// ahead of the ring pushed the window's base out of a small budget, with the ring unmoved.
    func testARefusedLargeBatchLeavesTheWindowReadable() throws {
        let fixture = try ServerFixture { $0.history = 20; $0.keptStateBudget = 1 }
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        let one = #"{"type":"counter/incrTapped"}"#
        for _ in 1...7 { XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: one).status, 200) }
        try assertLogAndTimeTravelAgree(client, id, token, head: 7, history: 20, fullWindow: false)
        let refused = "[" + Array(repeating: one, count: 19).joined(separator: ",") + #",{"type":"counter/nope"}]"#
        XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: refused).status, 422)
        try assertLogAndTimeTravelAgree(client, id, token, head: 7, history: 20, fullWindow: false)
    }

    /// A publication waiting on the fan-out queue holds the window's cut back; once it has gone
    /// out the window is cut again, without waiting for another request.
    func testTheWindowIsCutOnceAQueuedPublicationHasGoneOut() throws {
        let queue = DispatchQueue(label: "fan-out")
        var held = false
        defer { if held { queue.resume() } }
        let fixture = try ServerFixture({ $0.fanOutInlineLimit = 1; $0.history = 20; $0.keptStateBudget = 1 }, fanOutQueue: queue)
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        let one = #"{"type":"counter/incrTapped"}"#
        for _ in 1...7 { XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: one).status, 200) }
        let events = try fixture.client()
        XCTAssertEqual(try events.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
        _ = try events.nextEvent(); _ = try events.nextEvent()  // retry, snapshot
        queue.suspend(); held = true
        for _ in 8...10 { XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: one).status, 200) }
        queue.resume(); held = false
        while try events.nextEvent().id != "10" {}
        try assertLogAndTimeTravelAgree(client, id, token, head: 10, history: 20, fullWindow: false)
    }

    func testTimeTravelInsideBatchesOnceTheWindowPassedTheirStart() throws {
        // --history 50 keeps a state every 5 versions; a batch of 50 used to keep only its last.
        let fixture = try ServerFixture { $0.history = 50 }
        let client = try fixture.client()
        let one = #"{"type":"counter/incrTapped"}"#
        let batch = "[" + Array(repeating: one, count: 50).joined(separator: ",") + "]"
        // Batches that start at a keep point, and batches that start after one (then the actions
        // since that kept state leave the history as the batch comes in).
        for bodies in [[batch, batch, one], [batch, one, batch, one]] {
            let (id, token) = try fixture.createSession()
            for body in bodies {
                XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: body).status, 200)
            }
            try assertWindowRebuilds(client, id, token, head: bodies.count == 3 ? 101 : 102, history: 50)
        }
    }

    func testTimeTravelAfterARestartWithMoreRecordsThanTheWindow() throws {
        // A journal snapshot comes every --history versions, so recovery replays more records than
        // the window holds; the states on the way are kept as they were before the restart.
        let directory = temporaryDirectory()
        var id = "", token = ""
        do {
            let fixture = try ServerFixture { $0.history = 50; $0.inMemory = false; $0.dataDirectory = directory }
            (id, token) = try fixture.createSession()
            let client = try fixture.client()
            for _ in 0..<120 {
                XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token),
                                                  body: #"{"type":"counter/incrTapped"}"#).status, 200)
            }
            try assertWindowRebuilds(client, id, token, head: 120, history: 50)
            try assertLogAndTimeTravelAgree(client, id, token, head: 120, history: 50)
            fixture.server.shutdown()
        }
        let fixture = try ServerFixture { $0.history = 50; $0.inMemory = false; $0.dataDirectory = directory }
        try assertWindowRebuilds(try fixture.client(), id, token, head: 120, history: 50)
        try assertLogAndTimeTravelAgree(try fixture.client(), id, token, head: 120, history: 50)
    }

    func testALongReplayDoesNotHoldUpTheLoopsOtherConnections() throws {
        // One I/O thread: a replay on it would make every other connection wait for it.
        let fixture = try ServerFixture { $0.ioThreads = 1; $0.maxBodyBytes = 16 << 20; $0.history = 2_000 }
        let tasks = (1...20_000).map { #""\#($0)":{"id":\#($0),"title":"task \#($0)","done":false}"# }.joined(separator: ",")
        let ids = (1...20_000).map(String.init).joined(separator: ",")
        let (id, token) = try fixture.createSession(#"{"kind":"tasks","state":{"tasks":{"byId":{\#(tasks)},"allIds":[\#(ids)]},"favoriteIds":[],"nextId":20001}}"#)
        let client = try fixture.client()
        let toggles = "[" + (1...150).map { #"{"type":"tasks/toggleDone","payload":{"id":\#($0)}}"# }.joined(separator: ",") + "]"
        XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: toggles).status, 200)
        let past = try fixture.client()
        // The whole state: its replay is short (from a kept state, no decoding), its encoding is not.
        try past.sendRaw("GET /sessions/\(id)/state?version=149 HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n\r\n")
        let started = ContinuousClock.now
        let other = try fixture.client().request("GET", "/healthz")
        let otherTook = ContinuousClock.now - started
        XCTAssertEqual(other.status, 200)
        let answer = try past.readResponse()
        let replayTook = ContinuousClock.now - started
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual((answer.json["state"] as? [String: Any])?["nextId"] as? Int, 20_001)
        XCTAssertLessThan(otherTook * 4, replayTook, "/healthz took \(otherTook), the replay \(replayTook): it waited for the replay")
    }

    func testActionLogPagesWithSinceLimitAndNext() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        for _ in 0..<5 {
            _ = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
        }
        let page = try client.request("GET", "/sessions/\(id)/actions?since=1&limit=2", headers: bearer(token))
        XCTAssertEqual(page.status, 200)
        let actions = try XCTUnwrap(page.json["actions"] as? [[String: Any]])
        XCTAssertEqual(actions.map { $0["version"] as? Int }, [2, 3])
        XCTAssertEqual(actions.first?["type"] as? String, "counter/incrTapped")
        XCTAssertEqual(actions.first?["source"] as? String, "client")
        XCTAssertNotNil(actions.first?["at"] as? String)
        XCTAssertNil(actions.first?["payload"])
        XCTAssertEqual(page.json["next"] as? Int, 3)
        let last = try client.request("GET", "/sessions/\(id)/actions?since=3", headers: bearer(token))
        XCTAssertEqual((last.json["actions"] as? [Any])?.count, 2)
        XCTAssertTrue(last.json["next"] is NSNull)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/actions?limit=0", headers: bearer(token)).status, 400)
        // An integer past Int64 is refused with a message that says why.
        let huge = try client.request("GET", "/sessions/\(id)/actions?limit=99999999999999999999", headers: bearer(token))
        XCTAssertEqual(huge.status, 400)
        XCTAssertEqual(huge.json["detail"] as? String, "limit must be an integer from 1 to 9223372036854775807, got '99999999999999999999'")
    }

    /// A `since` older than the kept history names the oldest `since` that is served, so a client
    /// can page on from it and miss none of the actions that are kept.
    func testActionLogTooOldNamesTheOldestSinceServed() throws {
        let fixture = try ServerFixture { $0.history = 20 }
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        try client.incrementCounter(id, token, times: 60)
        let whole = try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token))
        let first = try XCTUnwrap((whole.json["actions"] as? [[String: Any]])?.first?["version"] as? Int, whole.text)
        let gone = try client.request("GET", "/sessions/\(id)/actions?since=1", headers: bearer(token))
        XCTAssertEqual(gone.status, 404, gone.text)
        let oldest = try XCTUnwrap(gone.json["oldestVersion"] as? Int, gone.text)
        XCTAssertEqual(oldest, first - 1)
        let resumed = try client.request("GET", "/sessions/\(id)/actions?since=\(oldest)", headers: bearer(token))
        XCTAssertEqual(resumed.status, 200, resumed.text)
        XCTAssertEqual((resumed.json["actions"] as? [[String: Any]])?.first?["version"] as? Int, first)
    }

    func testEffectActionsAreLoggedWithSourceEffect() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession(#"{"kind":"login"}"#)
        let client = try fixture.client()
        let events = try fixture.client()
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token))
        _ = try events.nextEvent()  // retry
        XCTAssertEqual(try events.nextEvent().event, "snapshot")
        _ = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"login/emailChanged","payload":"a@b.c"}"#)
        XCTAssertEqual(try events.nextEvent().event, "change")
        XCTAssertEqual(try events.nextEvent().json["version"] as? Int, 2)   // the effect's answer arrived
        let log = try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token))
        let actions = try XCTUnwrap(log.json["actions"] as? [[String: Any]])
        XCTAssertEqual(actions.map { $0["source"] as? String }, ["client", "effect"])
        XCTAssertEqual(actions.last?["type"] as? String, "login/emailValidated")
    }
}
