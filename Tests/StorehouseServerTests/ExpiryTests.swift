import Foundation
import StoreCore
@testable import StorehouseServer
import Synchronization
import XCTest

/// docs/API.md "Lifecycle": `ttlSeconds`, `--session-ttl-s`, `expiresAt`, `event: end` with reason `expired`.
final class ExpiryTests: XCTestCase {
    func testAnIdleSessionExpiresEndingItsStreamsAndIsGoneAfterwards() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession(#"{"kind":"counter","ttlSeconds":1}"#)
        let (keptID, keptToken) = try fixture.createSession(#"{"kind":"counter"}"#)
        let client = try fixture.client()
        let metadata = try client.request("GET", "/sessions/\(id)", headers: bearer(token))
        let expiresAt = try XCTUnwrap(metadata.json["expiresAt"] as? String)
        XCTAssertNotNil(Timestamp.millis(iso8601: expiresAt), expiresAt)
        XCTAssertTrue(try client.request("GET", "/sessions/\(keptID)", headers: bearer(keptToken)).json["expiresAt"] is NSNull)

        // The stream is the event to wait for: it ends with reason expired once the sweep runs.
        let events = try fixture.client()
        events.setReadTimeout(seconds: 15)
        XCTAssertEqual(try events.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
        var event = try events.nextEvent()
        while event.event != "end" { event = try events.nextEvent() }
        XCTAssertEqual(event.data, #"{"reason":"expired"}"#)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).status, 404)
        XCTAssertEqual(try client.request("GET", "/sessions/\(keptID)", headers: bearer(keptToken)).status, 200, "a session without a ttl stays")
        let metrics = try client.request("GET", "/metrics").text
        XCTAssertTrue(metrics.contains("storehouse_sessions_expired_total 1"), metrics)
    }

    func testTheDefaultTTLAppliesToSessionsCreatedWithoutOneAndARequestPutsTheExpiryOff() throws {
        let fixture = try ServerFixture { $0.sessionTTLSeconds = 3_600 }
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        let first = try XCTUnwrap(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["expiresAt"] as? String)
        let created = try XCTUnwrap(Timestamp.millis(iso8601: first))
        XCTAssertGreaterThan(created - Int64(Date().timeIntervalSince1970 * 1_000), 3_590_000)
        try client.incrementCounter(id, token, times: 1)
        let later = try XCTUnwrap(Timestamp.millis(iso8601: try XCTUnwrap(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["expiresAt"] as? String)))
        XCTAssertGreaterThanOrEqual(later, created)
        let never = try fixture.createSession(#"{"ttlSeconds":0}"#)
        XCTAssertTrue(try client.request("GET", "/sessions/\(never.id)", headers: bearer(never.token)).json["expiresAt"] is NSNull, "0 never expires")
        for bad in [#"{"ttlSeconds":-1}"#, #"{"ttlSeconds":"60"}"#, #"{"ttlSeconds":1.5}"#] {
            XCTAssertEqual(try client.request("POST", "/sessions", body: bad).status, 422, bad)
        }
    }

    func testTheTTLSurvivesARestartAndTheExport() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var id = "", token = ""
        do {
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
            (id, token) = try fixture.createSession(#"{"kind":"counter","ttlSeconds":600}"#)
        }
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
        let client = try fixture.client()
        XCTAssertTrue(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["expiresAt"] is String)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/export", headers: bearer(token)).json["ttlSeconds"] as? Int, 600)
    }

    func testTheClockGoesOnAfterARestartFromTheLastRequestNotTheLastAction() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let start: Int64 = 1_800_000_000_000
        let clock = Mutex(start)
        func server(hibernateAfterSeconds: Int = 0) throws -> ServerFixture {
            try ServerFixture({ c in
                c.inMemory = false
                c.dataDirectory = directory
                c.adminToken = AdminToken(OperatorRoutesTests.adminSecret)
                c.hibernateAfterSeconds = hibernateAfterSeconds
            }, now: { clock.withLock { $0 } })
        }
        /// The listing's `expiresAt` of `id` (the listing is no request of the session's: it moves no clock).
        func listedExpiry(_ fixture: ServerFixture, _ id: String) throws -> (expiresAt: String?, resident: Bool?) {
            let page = try fixture.client().request("GET", "/sessions", headers: bearer(OperatorRoutesTests.adminSecret))
            XCTAssertEqual(page.status, 200, page.text)
            let listed = (page.json["sessions"] as? [[String: Any]])?.first { $0["id"] as? String == id }
            return (listed?["expiresAt"] as? String, listed?["resident"] as? Bool)
        }
        var id = ""
        do {
            let fixture = try server()
            let token: String
            (id, token) = try fixture.createSession(#"{"kind":"counter","ttlSeconds":100}"#)
            clock.withLock { $0 += 50_000 }
            // A read, no action: only the expiry clocks' file keeps its time.
            XCTAssertEqual(try fixture.client().request("GET", "/sessions/\(id)/state", headers: bearer(token)).status, 200)
        }
        let expected = Timestamp.iso8601(millis: start + 150_000)
        clock.withLock { $0 += 10_000 }
        do {
            let fixture = try server()
            XCTAssertEqual(try listedExpiry(fixture, id).expiresAt, expected, "100 s after the read, not after the creation")
        }
        // Idle for longer than --hibernate-after-s: registered from its summary at start.
        let fixture = try server(hibernateAfterSeconds: 1)
        XCTAssertEqual(try listedExpiry(fixture, id).resident, false)
        XCTAssertEqual(try listedExpiry(fixture, id).expiresAt, expected, "a hibernated session's clock too")
        // And it expires then: the sweep, once a second, deletes it.
        clock.withLock { $0 = start + 150_000 }
        func filesLeft() throws -> Bool { try FileManager.default.contentsOfDirectory(atPath: directory).contains { $0.hasPrefix(id) } }
        let deadline = Date().addingTimeInterval(15)
        while try listedExpiry(fixture, id).expiresAt != nil || filesLeft(), Date() < deadline { usleep(50_000) }
        XCTAssertNil(try listedExpiry(fixture, id).expiresAt, "expired at the restored clock")
        XCTAssertFalse(try filesLeft(), "its files are gone (removed after it leaves the listing)")
    }

    func testTheSweepRecordsAClockOnceItsSessionIsIdleForATenthOfItsTTL() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let start: Int64 = 1_800_000_000_000
        let clock = Mutex(start)
        let fixture = try ServerFixture({ c in
            c.inMemory = false
            c.dataDirectory = directory
            c.hibernateAfterSeconds = 0
        }, now: { clock.withLock { $0 } })
        let (id, token) = try fixture.createSession(#"{"kind":"counter","ttlSeconds":100}"#)
        clock.withLock { $0 += 50_000 }
        XCTAssertEqual(try fixture.client().request("GET", "/sessions/\(id)/state", headers: bearer(token)).status, 200)
        let path = directory + "/" + ExpiryClocks.fileName
        // What a crash (no graceful shutdown) would find: written by the sweep, not by the request.
        XCTAssertNil(ExpiryClocks.load(path)[id], "nothing is written per request")
        clock.withLock { $0 += 10_000 }  // idle for a tenth of the TTL
        let deadline = Date().addingTimeInterval(15)
        while ExpiryClocks.load(path)[id] == nil, Date() < deadline { usleep(50_000) }
        XCTAssertEqual(ExpiryClocks.load(path)[id], start + 50_000, "the read's exact time")
    }

    func testTheClocksFileKeepsTheNewestTimeOfEachIdAndSkipsATornLine() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/" + ExpiryClocks.fileName
        try Data("a 5\nb 7\na 3\nc 12x\nd 9".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(ExpiryClocks.load(path), ["a": 5, "b": 7, "d": 9])
        let clocks = ExpiryClocks(directory: directory)
        clocks.append([("b", 8)])
        XCTAssertEqual(ExpiryClocks.load(path)["b"], 8)
        clocks.rewrite([("e", 1)])
        XCTAssertEqual(ExpiryClocks.load(path), ["e": 1])
    }
}

/// docs/API.md "Lifecycle": beyond `--max-connections`, health, readiness and metrics are answered.
final class ProbesBeyondTheConnectionLimitTests: XCTestCase {
    func testHealthReadinessAndMetricsAreAnsweredWhileStreamsHoldEveryConnection() throws {
        let fixture = try ServerFixture { $0.maxConnections = 2; $0.ioThreads = 1 }
        // The creating connection becomes the first stream, so no closing connection is still counted.
        let first = try fixture.client()
        let created = try first.request("POST", "/sessions", body: "{}")
        let id = try XCTUnwrap(created.json["id"] as? String), token = try XCTUnwrap(created.json["token"] as? String)
        var streams: [TestClient] = []
        for stream in [first, try fixture.client()] {
            XCTAssertEqual(try stream.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
            _ = try stream.nextEvent()  // the snapshot: the stream holds its connection
            streams.append(stream)
        }
        for path in ["/healthz", "/readyz", "/metrics"] {
            let answer = try fixture.client().request("GET", path)
            XCTAssertEqual(answer.status, 200, "\(path): \(answer.text)")
            XCTAssertEqual(answer.header("Connection")?.lowercased(), "close", "one answer, then the connection goes")
        }
        let refused = try fixture.client().request("GET", "/kinds")
        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertEqual(refused.json["type"] as? String, "/problems/too-many-connections")
        XCTAssertEqual(refused.header("Retry-After"), "1")
        XCTAssertEqual(streams.count, 2)
    }
}
