import Foundation
@testable import StorehouseServer
import Synchronization
import XCTest

/// docs/API.md "Lifecycle": `--hibernate-after-s`, `resident`, and the hibernation metrics. The
/// sweep runs once a second, so with `--hibernate-after-s 1` a session hibernates within about
/// two; tests wait for the metric that says so (polled, with a deadline).
final class HibernationTests: XCTestCase {
    static let admin = OperatorRoutesTests.adminSecret

    private func diskFixture(_ directory: String, fsync: ServerConfiguration.Fsync = .never,
                             _ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> ServerFixture {
        try ServerFixture {
            $0.inMemory = false
            $0.dataDirectory = directory
            $0.fsync = fsync
            $0.hibernateAfterSeconds = 1
            $0.adminToken = AdminToken(Self.admin)
            configure(&$0)
        }
    }

    func testAnIdleSessionHibernatesAndItsNextRequestsLoadItOnceWithTheSameStateLogAndAnswers() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = try diskFixture(directory)
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        try client.incrementCounter(id, token, times: 3)
        let keyed = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Idempotency-Key": "k1"]) { $1 },
                                       body: #"{"type":"counter/incrTapped"}"#)
        XCTAssertEqual(keyed.status, 200, keyed.text)
        let state = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).text
        let log = try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token)).text
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["resident"] as? Bool, true)

        weak var unloaded = fixture.server.registry.all.first
        XCTAssertNotNil(unloaded)
        try waitForMetric(fixture, "storehouse_session_hibernations_total", atLeast: 1)
        XCTAssertNil(unloaded, "nothing holds a hibernated session's memory")
        XCTAssertEqual(try metric(fixture, "storehouse_sessions_resident"), 0)
        XCTAssertEqual(try metric(fixture, "storehouse_sessions"), 1, "a hibernated session is still held")
        let listed = try XCTUnwrap(try client.request("GET", "/sessions", headers: bearer(Self.admin)).json["sessions"] as? [[String: Any]])
        XCTAssertEqual(listed.first?["id"] as? String, id)
        XCTAssertEqual(listed.first?["resident"] as? Bool, false)
        XCTAssertEqual(listed.first?["version"] as? Int, 4)
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 0, "the listing loads nothing")
        let wrong = try client.request("GET", "/sessions/AAAAAAAAAAAAAAAAAAAAAA", headers: bearer(token))
        XCTAssertEqual(wrong.status, 404)

        // Concurrent first requests: one load, every request answered from it.
        let statuses = Mutex<[Int]>([])
        let port = fixture.port
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let status = (try? TestClient(port: port).request("GET", "/sessions/\(id)/state", headers: bearer(token)).status) ?? 0
            statuses.withLock { $0.append(status) }
        }
        XCTAssertEqual(statuses.withLock { $0 }, [200, 200, 200, 200])
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 1)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).text, state)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token)).text, log)
        let metadata = try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json
        XCTAssertEqual(metadata["resident"] as? Bool, true)
        XCTAssertEqual(metadata["version"] as? Int, 4)
        let repeated = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Idempotency-Key": "k1"]) { $1 },
                                          body: #"{"type":"counter/incrTapped"}"#)
        XCTAssertEqual(repeated.status, 200)
        XCTAssertEqual(repeated.json["version"] as? Int, 4, "the kept key answers as before: \(repeated.text)")
        try client.incrementCounter(id, token, times: 1)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["version"] as? Int, 5)

        // A POST as the first request after a second hibernation loads it as well.
        try waitForMetric(fixture, "storehouse_session_hibernations_total", atLeast: 2)
        try client.incrementCounter(id, token, times: 1)
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 2)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).json["version"] as? Int, 6)
    }

    /// Under memory pressure idle sessions leave memory long before `--hibernate-after-s`: the
    /// budget (a few KiB here, which one session's charges pass 80 % of) makes the sweep take any
    /// session unused for a second.
    func testIdleSessionsHibernateEarlyUnderMemoryPressure() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = try diskFixture(directory) {
            $0.hibernateAfterSeconds = 3_600
            $0.maxMemory = 5 << 10
            $0.memoryBudgetCountsResident = false
        }
        let (id, token) = try fixture.createSession()
        try waitForMetric(fixture, "storehouse_session_hibernations_total", atLeast: 1)
        XCTAssertEqual(try metric(fixture, "storehouse_sessions_resident"), 0)
        let client = try fixture.client()
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).json["version"] as? Int, 0)
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 1)
    }

    /// A request is authorized against a hibernated session's summary before anything is read from
    /// disk: without the token it gets 401 and the session stays unloaded, also for a head waiting
    /// for `100 Continue` (RFC 9110 §10.1.1), which is answered without a load even with the token.
    func testAHibernatedSessionChecksTheTokenBeforeItLoads() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = try diskFixture(directory)
        let (id, token) = try fixture.createSession()
        try waitForMetric(fixture, "storehouse_session_hibernations_total", atLeast: 1)

        for headers in [bearer("wrong"), [:], bearer(token + "x")] {
            let refused = try fixture.client().request("GET", "/sessions/\(id)/state", headers: headers)
            XCTAssertEqual(refused.status, 401, refused.text)
            XCTAssertEqual(refused.header("WWW-Authenticate")?.hasPrefix("Bearer"), true)
        }
        let body = #"{"type":"counter/incrTapped"}"#
        func head(_ token: String) -> String {
            "POST /sessions/\(id)/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n"
        }
        let refused = try fixture.client()
        try refused.sendRaw(head("wrong"))
        XCTAssertEqual(try refused.readResponse().status, 401)
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 0, "no token, no load")

        let client = try fixture.client()
        try client.sendRaw(head(token))
        XCTAssertEqual(try client.readResponse().status, 100)
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 0, "a head alone loads nothing")
        try client.sendRaw(body)
        let applied = try client.readResponse()
        XCTAssertEqual(applied.status, 200, applied.text)
        XCTAssertEqual(applied.json["version"] as? Int, 1)
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 1)

        // The admin token loads it as well.
        try waitForMetric(fixture, "storehouse_session_hibernations_total", atLeast: 2)
        XCTAssertEqual(try fixture.client().request("GET", "/sessions/\(id)/state", headers: bearer("wrong")).status, 401)
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 1)
        let read = try fixture.client().request("GET", "/sessions/\(id)/state", headers: bearer(Self.admin))
        XCTAssertEqual(read.status, 200, read.text)
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 2)
    }

    /// `POST /sessions {"from": …}` from a hibernated origin: the origin's token is checked against
    /// its summary first (401 without a load), then the origin is loaded and forked.
    func testAForkFromAHibernatedOriginChecksTheTokenThenLoadsIt() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = try diskFixture(directory)
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        try client.incrementCounter(id, token, times: 2)
        try waitForMetric(fixture, "storehouse_session_hibernations_total", atLeast: 1)

        let from = #"{"from":{"id":"\#(id)"}}"#
        XCTAssertEqual(try fixture.client().request("POST", "/sessions", headers: bearer("wrong"), body: from).status, 401)
        XCTAssertEqual(try fixture.client().request("POST", "/sessions", body: from).status, 401)
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 0, "no token, no load")

        let fork = try fixture.client().request("POST", "/sessions", headers: bearer(token), body: from)
        XCTAssertEqual(fork.status, 201, fork.text)
        XCTAssertEqual((fork.json["state"] as? [String: Any])?["count"] as? Int, 2)
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 1)
        let forkID = try XCTUnwrap(fork.json["id"] as? String)
        let forkToken = try XCTUnwrap(fork.json["token"] as? String)
        let metadata = try client.request("GET", "/sessions/\(forkID)", headers: bearer(forkToken)).json
        XCTAssertEqual((metadata["forkedFrom"] as? [String: Any])?["id"] as? String, id)
        XCTAssertEqual((metadata["forkedFrom"] as? [String: Any])?["version"] as? Int, 2)
    }

    func testARestartRegistersIdleSessionsHibernatedAndLoadsThemOnRequest() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var id = "", token = "", state = "", log = ""
        do {
            let fixture = try diskFixture(directory) { $0.hibernateAfterSeconds = 0 }
            (id, token) = try fixture.createSession()
            let client = try fixture.client()
            try client.incrementCounter(id, token, times: 3)
            state = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).text
            log = try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token)).text
        }
        // Idle for longer than --hibernate-after-s by the time the next server starts.
        usleep(1_100_000)
        let fixture = try diskFixture(directory)
        XCTAssertEqual(try metric(fixture, "storehouse_sessions_resident"), 0, "recovery rebuilt nothing")
        XCTAssertEqual(try metric(fixture, "storehouse_sessions"), 1)
        let listed = try XCTUnwrap(try fixture.client().request("GET", "/sessions", headers: bearer(Self.admin)).json["sessions"] as? [[String: Any]])
        XCTAssertEqual(listed.first?["resident"] as? Bool, false)
        XCTAssertEqual(listed.first?["version"] as? Int, 3)
        let client = try fixture.client()
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).text, state)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token)).text, log)
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 1)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer("wrong-token")).status, 401)
    }

    func testAnEventStreamKeepsItsSessionResident() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = try diskFixture(directory)
        let (watched, watchedToken) = try fixture.createSession()
        let (idle, _) = try fixture.createSession()
        let events = try fixture.client()
        XCTAssertEqual(try events.openEvents("/sessions/\(watched)/events", headers: bearer(watchedToken)).status, 200)
        _ = try events.nextEvent()
        // Both went idle together: the sweep that unloads the idle one passed over the watched one.
        try waitForMetric(fixture, "storehouse_session_hibernations_total", atLeast: 1)
        let listed = try XCTUnwrap(try fixture.client().request("GET", "/sessions", headers: bearer(Self.admin)).json["sessions"] as? [[String: Any]])
        let resident = Dictionary(uniqueKeysWithValues: listed.map { ($0["id"] as? String ?? "", $0["resident"] as? Bool) })
        XCTAssertEqual(resident[watched], true)
        XCTAssertEqual(resident[idle], false)
        XCTAssertEqual(try metric(fixture, "storehouse_session_hibernations_total"), 1)
    }

    /// Many hibernated sessions of two kinds: the listing pages through them by kind from their
    /// records, a burst of first requests (more than the loader has queues) loads every one, and a
    /// hibernated session deleted takes its files with it.
    func testABurstOfFirstRequestsLoadsEveryHibernatedSessionAndTheListingPagesThemByKind() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = try diskFixture(directory)
        var counters: [(id: String, token: String)] = []
        var tasks: [(id: String, token: String)] = []
        for _ in 0..<24 { counters.append(try fixture.createSession()) }
        for _ in 0..<16 { tasks.append(try fixture.createSession(#"{"kind":"tasks"}"#)) }
        let all = counters + tasks
        try waitForMetric(fixture, "storehouse_session_hibernations_total", atLeast: all.count)
        XCTAssertEqual(try metric(fixture, "storehouse_sessions_resident"), 0)

        let client = try fixture.client()
        func list(kind: String) throws -> [[String: Any]] {
            var listed: [[String: Any]] = []
            var cursor: String?
            repeat {
                let page = try client.request("GET", "/sessions?kind=\(kind)&limit=5" + (cursor.map { "&cursor=\($0)" } ?? ""),
                                              headers: bearer(Self.admin)).json
                listed += try XCTUnwrap(page["sessions"] as? [[String: Any]])
                cursor = page["next"] as? String
            } while cursor != nil
            return listed
        }
        let listedTasks = try list(kind: "tasks")
        XCTAssertEqual(listedTasks.compactMap { $0["id"] as? String }, tasks.map(\.id).sorted())
        XCTAssertTrue(listedTasks.allSatisfy { $0["resident"] as? Bool == false && $0["kind"] as? String == "tasks" })
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 0, "the listing loads nothing")

        let statuses = Mutex<[Int]>([])
        let port = fixture.port
        DispatchQueue.concurrentPerform(iterations: all.count) { index in
            let (id, token) = all[index]
            let status = (try? TestClient(port: port).request("GET", "/sessions/\(id)/state", headers: bearer(token)).status) ?? 0
            statuses.withLock { $0.append(status) }
        }
        XCTAssertEqual(statuses.withLock { $0 }, Array(repeating: 200, count: all.count))
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), all.count)
        XCTAssertEqual(try list(kind: "counter").compactMap { $0["id"] as? String }, counters.map(\.id).sorted())

        // Hibernated again, then deleted: loaded for the DELETE, and its files go.
        try waitForMetric(fixture, "storehouse_session_hibernations_total", atLeast: 2 * all.count)
        let (gone, goneToken) = counters[0]
        XCTAssertEqual(try client.request("DELETE", "/sessions/\(gone)", headers: bearer(goneToken)).status, 204)
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: directory).contains { $0.hasPrefix(gone) })
        XCTAssertEqual(try client.request("GET", "/sessions/\(counters[1].id)/state", headers: bearer(counters[1].token)).status, 200)
    }

    func testAHibernatedSessionExpiresWithoutLoadingAndItsFilesGo() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = try diskFixture(directory)
        let (id, token) = try fixture.createSession(#"{"kind":"counter","ttlSeconds":3}"#)
        try waitForMetric(fixture, "storehouse_session_hibernations_total", atLeast: 1)
        XCTAssertTrue(try FileManager.default.contentsOfDirectory(atPath: directory).contains { $0.hasPrefix(id) }, "its journal stays")
        try waitForMetric(fixture, "storehouse_sessions_expired_total", atLeast: 1)
        XCTAssertEqual(try metric(fixture, "storehouse_session_loads_total"), 0)
        XCTAssertEqual(try metric(fixture, "storehouse_sessions"), 0)
        XCTAssertEqual(try fixture.client().request("GET", "/sessions/\(id)", headers: bearer(token)).status, 404)
        let deadline = Date().addingTimeInterval(10)
        while try FileManager.default.contentsOfDirectory(atPath: directory).contains(where: { $0.hasPrefix(id) }), Date() < deadline {
            usleep(20_000)  // the files are deleted off the sweep's thread: polled with a deadline
        }
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: directory).contains { $0.hasPrefix(id) })
    }

    func testHibernationIsOffInMemoryAndWithZero() throws {
        for fixture in [try ServerFixture { $0.hibernateAfterSeconds = 1 },
                        try diskFixture(temporaryDirectory()) { $0.hibernateAfterSeconds = 0 }] {
            XCTAssertEqual(fixture.server.registry.context.hibernateAfterMillis, 0)
        }
        guard case .serve(let defaults) = try ServerConfiguration.parse(arguments: [], environment: [:]) else { return XCTFail() }
        XCTAssertEqual(defaults.hibernateAfterSeconds, 300)
        guard case .serve(let given) = try ServerConfiguration.parse(arguments: [], environment: ["STOREHOUSE_HIBERNATE_AFTER_S": "60"]) else { return XCTFail() }
        XCTAssertEqual(given.hibernateAfterSeconds, 60)
        XCTAssertThrowsError(try ServerConfiguration.parse(arguments: ["--hibernate-after-s", "-1"], environment: [:]))
    }

    /// A SIGKILL as sessions hibernate (under `--fsync never`, where only the flush before
    /// unloading puts their records on disk) and after: every acknowledged action comes back.
    func testASIGKILLDuringAndAfterHibernationLosesNoAcknowledgedAction() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var expected: [String: (token: String, version: Int)] = [:]
        let arguments = ["--data-dir", directory, "--fsync", "never", "--hibernate-after-s", "1"]
        for round in 0..<3 {
            let server = try ServerProcess(arguments: arguments)
            try server.waitUntilReady()
            let client = try TestClient(port: server.port)
            for (id, known) in expected {
                let read = try client.request("GET", "/sessions/\(id)/state", headers: bearer(known.token))
                XCTAssertEqual(read.json["version"] as? Int, known.version, "round \(round): \(id): \(read.text)")
            }
            for _ in 0..<4 {
                let created = try client.request("POST", "/sessions", body: #"{"kind":"counter"}"#)
                let id = try XCTUnwrap(created.json["id"] as? String), token = try XCTUnwrap(created.json["token"] as? String)
                try client.incrementCounter(id, token, times: 5)
                expected[id] = (token, 5)
            }
            for (id, known) in expected {
                try client.incrementCounter(id, known.token, times: 1)
                expected[id]?.version += 1
            }
            // Round 0: killed after the sweep unloaded them; later rounds: at a moment near it.
            if round == 0 {
                try waitForMetric(port: server.port, "storehouse_session_hibernations_total", atLeast: expected.count)
            } else {
                usleep(UInt32.random(in: 800_000...2_200_000))
            }
            server.kill(SIGKILL)
        }
        let server = try ServerProcess(arguments: arguments)
        try server.waitUntilReady()
        let client = try TestClient(port: server.port)
        for (id, known) in expected {
            XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state", headers: bearer(known.token)).json["version"] as? Int, known.version, id)
        }
        server.kill(SIGTERM)
    }

    // MARK: - Metrics

    private func metric(_ fixture: ServerFixture, _ name: String) throws -> Int {
        try metric(port: fixture.port, name)
    }

    private func metric(port: Int, _ name: String) throws -> Int {
        let text = try TestClient(port: port).request("GET", "/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(line.split(separator: " ").last ?? "") ?? -1
        }
        throw TestClientError(description: "no metric \(name)")
    }

    private func waitForMetric(_ fixture: ServerFixture, _ name: String, atLeast value: Int, timeout: TimeInterval = 15) throws {
        try waitForMetric(port: fixture.port, name, atLeast: value, timeout: timeout)
    }

    /// Polls `/metrics` (a scrape touches no session) until `name` reaches `value`.
    private func waitForMetric(port: Int, _ name: String, atLeast value: Int, timeout: TimeInterval = 15) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try metric(port: port, name) < value {
            guard Date() < deadline else { throw TestClientError(description: "\(name) stayed below \(value) for \(timeout) s") }
            usleep(50_000)
        }
    }
}
