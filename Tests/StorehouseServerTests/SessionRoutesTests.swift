import XCTest
@testable import StorehouseServer

/// API.md "Sessions and access".
final class SessionRoutesTests: XCTestCase {
    func testCreateDefaultsToCounterWithLocationAndInitialState() throws {
        let fixture = try ServerFixture()
        let response = try fixture.client().request("POST", "/sessions")
        XCTAssertEqual(response.status, 201)
        let id = try XCTUnwrap(response.json["id"] as? String)
        XCTAssertEqual(response.header("Location"), "/sessions/\(id)")
        XCTAssertEqual(response.json["kind"] as? String, "counter")
        XCTAssertEqual(response.json["version"] as? Int, 0)
        XCTAssertEqual(response.text.contains(#""state":{"count":0,"favoritePrimes":[],"activityFeed":[],"nthPrime":null,"isNthPrimeRequestInFlight":false}"#), true, response.text)
    }

    func testIdsAndTokensCarryAtLeast128RandomBitsURLSafe() throws {
        let fixture = try ServerFixture()
        var seen = Set<String>()
        for _ in 0..<20 {
            let (id, token) = try fixture.createSession()
            XCTAssertGreaterThanOrEqual(id.count, 22)      // 22 base64url characters = 132 bits
            XCTAssertGreaterThanOrEqual(token.count, 22)
            for text in [id, token] {
                XCTAssertTrue(text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }, text)
                XCTAssertTrue(seen.insert(text).inserted)
            }
        }
    }

    func testCreateWithKindAndRestoredState() throws {
        let fixture = try ServerFixture()
        let body = #"{"kind":"tasks","state":{"nextId":3,"favoriteIds":[2],"tasks":{"allIds":[2],"byId":{"2":{"title":"b","done":true,"id":2}}}}}"#
        let response = try fixture.client().request("POST", "/sessions", body: body)
        XCTAssertEqual(response.status, 201, response.text)
        // Keys come back in the kind's own order whatever order the client sent.
        XCTAssertTrue(response.text.hasSuffix(#""state":{"tasks":{"byId":{"2":{"id":2,"title":"b","done":true}},"allIds":[2]},"favoriteIds":[2],"nextId":3}}"#), response.text)
    }

    func testRestoredStateWaitingForAnEffectRunsItAsARestartWould() throws {
        // A request in flight in the restored state is asked again at once; before, the flag
        // stayed set (409 for the button) until the next restart resumed it.
        let fixture = try ServerFixture()
        let state = #"{"count":5,"favoritePrimes":[],"activityFeed":[],"nthPrime":null,"isNthPrimeRequestInFlight":true}"#
        let (id, token) = try fixture.createSession(#"{"kind":"counter","state":\#(state)}"#)
        let events = try TestClient(port: fixture.port)
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token))
        var event = try events.nextEvent()
        while event.id != "1" { event = try events.nextEvent() }
        let answer = try fixture.client().request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(answer.text, #"{"version":1,"state":{"count":5,"favoritePrimes":[],"activityFeed":[],"nthPrime":11,"isNthPrimeRequestInFlight":false}}"#)
        let log = try fixture.client().request("GET", "/sessions/\(id)/actions", headers: bearer(token))
        XCTAssertTrue(log.text.contains(#""source":"effect""#), log.text)
    }

    func testUnknownKindListsValidKinds() throws {
        let fixture = try ServerFixture()
        let response = try fixture.client().request("POST", "/sessions", body: #"{"kind":"nope"}"#)
        XCTAssertEqual(response.status, 422)
        XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
        XCTAssertEqual(response.json["type"] as? String, "/problems/unknown-kind")
        XCTAssertEqual(Set(response.json["validKinds"] as? [String] ?? []), ["counter", "shop", "tasks", "login"])
    }

    func testStateThatDoesNotDecodeIsInvalidState() throws {
        let fixture = try ServerFixture()
        let response = try fixture.client().request("POST", "/sessions", body: #"{"kind":"counter","state":{"count":"many"}}"#)
        XCTAssertEqual(response.status, 422)
        XCTAssertEqual(response.json["type"] as? String, "/problems/invalid-state")
    }

    func testMalformedAndMisshapenBodies() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        XCTAssertEqual(try client.request("POST", "/sessions", body: "{kind").json["type"] as? String, "/problems/malformed-json")
        // Whitespace alone is not a JSON text (RFC 8259 §2); only a body of no bytes means {}.
        for blank in ["\t", " ", "\r\n"] {
            let response = try client.request("POST", "/sessions", body: blank)
            XCTAssertEqual(response.status, 400, "\(Array(blank.utf8))")
            XCTAssertEqual(response.json["type"] as? String, "/problems/malformed-json")
        }
        XCTAssertEqual(try client.request("POST", "/sessions", body: "[1]").json["type"] as? String, "/problems/invalid-body")
        XCTAssertEqual(try client.request("POST", "/sessions", body: #"{"kind":7}"#).json["type"] as? String, "/problems/invalid-body")
    }

    func testUnknownSessionIs404WhateverTheToken() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        for headers in [[:], bearer("x")] {
            let response = try client.request("GET", "/sessions/AAAAAAAAAAAAAAAAAAAAAA/state", headers: headers)
            XCTAssertEqual(response.status, 404)
            XCTAssertEqual(response.json["type"] as? String, "/problems/session-not-found")
        }
        // Ids that could name a path never reach the disk, and still read as "not found".
        XCTAssertEqual(try client.request("GET", "/sessions/..%2F..%2Fetc/state").status, 404)
    }

    func testMissingOrWrongTokenIs401WithChallenge() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        let missing = try client.request("GET", "/sessions/\(id)")
        XCTAssertEqual(missing.status, 401)
        XCTAssertEqual(missing.json["type"] as? String, "/problems/unauthorized")
        XCTAssertTrue(missing.header("WWW-Authenticate")?.hasPrefix("Bearer") ?? false)
        let wrong = try client.request("GET", "/sessions/\(id)", headers: bearer(token + "x"))
        XCTAssertEqual(wrong.status, 401)
        XCTAssertTrue(wrong.header("WWW-Authenticate")?.contains("invalid_token") ?? false)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: ["Authorization": "bearer \(token)"]).status, 200)
        // RFC 6750 §3.1: credentials given twice are an invalid request, whichever comes first.
        for (first, second) in [(token, token + "x"), (token + "x", token), (token, token)] {
            try client.sendRaw("GET /sessions/\(id) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(first)\r\nAuthorization: Bearer \(second)\r\n\r\n")
            let twice = try client.readResponse()
            XCTAssertEqual(twice.status, 400)
            XCTAssertEqual(twice.json["type"] as? String, "/problems/invalid-header")
            XCTAssertTrue(twice.header("WWW-Authenticate")?.contains("invalid_request") ?? false)
        }
    }

    func testAccessTokenQueryOnlyForStateAndEvents() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state?access_token=\(token)").status, 200)
        // Elsewhere it is not a parameter the route reads: refused as such, never taken as a token.
        for target in ["/sessions/\(id)/actions?access_token=\(token)", "/sessions/\(id)?access_token=\(token)"] {
            let answer = try client.request("GET", target)
            XCTAssertEqual(answer.status, 400, answer.text)
            XCTAssertEqual(answer.json["parameter"] as? String, "access_token")
        }
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/actions").status, 401)
        let events = try fixture.client()
        XCTAssertEqual(try events.openEvents("/sessions/\(id)/events?access_token=\(token)").status, 200)
    }

    func testMetadataAndDelete() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        _ = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
        let meta = try client.request("GET", "/sessions/\(id)", headers: bearer(token))
        XCTAssertEqual(meta.status, 200)
        XCTAssertEqual(meta.json["id"] as? String, id)
        XCTAssertEqual(meta.json["kind"] as? String, "counter")
        XCTAssertEqual(meta.json["version"] as? Int, 1)
        XCTAssertEqual(meta.json["subscribers"] as? Int, 0)
        XCTAssertNotNil(meta.json["createdAt"] as? String)
        XCTAssertNotNil(meta.json["updatedAt"] as? String)

        let deleted = try client.request("DELETE", "/sessions/\(id)", headers: bearer(token))
        XCTAssertEqual(deleted.status, 204)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).status, 404)
    }

    func testSessionLimitAnswers503WithRetryAfter() throws {
        let fixture = try ServerFixture { $0.maxSessions = 2 }
        _ = try fixture.createSession()
        _ = try fixture.createSession()
        let response = try fixture.client().request("POST", "/sessions")
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(response.json["type"] as? String, "/problems/too-many-sessions")
        XCTAssertNotNil(response.header("Retry-After"))
    }
}
