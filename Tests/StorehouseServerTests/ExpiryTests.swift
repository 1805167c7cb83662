import Foundation
import StoreCore
@testable import StorehouseServer
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
