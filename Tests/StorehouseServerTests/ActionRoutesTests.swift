import XCTest
@testable import StorehouseServer

/// API.md "Actions".
final class ActionRoutesTests: XCTestCase {
    var fixture: ServerFixture!
    var id = "", token = ""
    var client: TestClient!

    override func setUpWithError() throws {
        fixture = try ServerFixture()
        (id, token) = try fixture.createSession()
        client = try fixture.client()
    }

    func post(_ body: String, headers: [String: String] = [:]) throws -> TestResponse {
        try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(headers) { $1 }, body: body)
    }

    func version() throws -> Int {
        try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["version"] as? Int ?? -1
    }

    func testOneActionAnswersVersionStateAndETag() throws {
        let response = try post(#"{"type":"counter/incrTapped"}"#)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("ETag"), "\"1\"")
        XCTAssertEqual(response.text, #"{"version":1,"state":{"count":1,"favoritePrimes":[],"activityFeed":[],"nthPrime":null,"isNthPrimeRequestInFlight":false}}"#)
    }

    /// RFC 9110 §10.1.1: what the head decides is answered instead of `100 Continue`, so a client
    /// (curl does this for large bodies) never uploads a body that was going to be refused.
    func testExpectContinueIsAnsweredFromTheHeadWhenTheBodyCannotHelp() throws {
        let body = #"{"type":"counter/incrTapped"}"#
        func head(_ target: String, token: String) -> String {
            "POST \(target) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n"
        }
        for (target, token, status, type) in [("/sessions/\(id)/actions", "wrong", 401, "/problems/unauthorized"),
                                              ("/sessions/AAAAAAAAAAAAAAAAAAAAAA/actions", token, 404, "/problems/session-not-found"),
                                              ("/nowhere", token, 404, "/problems/not-found"),
                                              ("/sessions/\(id)/state", token, 405, "/problems/method-not-allowed")] {
            let refused = try fixture.client()
            try refused.sendRaw(head(target, token: token))
            let answer = try refused.readResponse()
            XCTAssertEqual(answer.status, status, target)
            XCTAssertEqual(answer.json["type"] as? String, type, target)
            XCTAssertEqual(answer.header("Connection"), "close", target)
            XCTAssertTrue(refused.waitForClose(), target)
        }
        // With the session's token the client is asked for the body, and the action is applied once.
        try client.sendRaw(head("/sessions/\(id)/actions", token: token))
        XCTAssertEqual(try client.readResponse().status, 100)
        try client.sendRaw(body)
        let answer = try client.readResponse()
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.json["version"] as? Int, 1)
        XCTAssertEqual(try version(), 1)
    }

    func testBodyIsJSONWhateverTheContentType() throws {
        XCTAssertEqual(try post(#"{"type":"counter/incrTapped"}"#, headers: ["Content-Type": "application/x-www-form-urlencoded"]).status, 200)
    }

    func testBatchAppliesInOrderOneVersionEach() throws {
        let response = try post(#"[{"type":"counter/incrTapped"},{"type":"counter/incrTapped"},{"type":"counter/decrTapped"}]"#)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.json["version"] as? Int, 3)
        XCTAssertEqual((response.json["state"] as? [String: Any])?["count"] as? Int, 1)
    }

    func testRefusedBatchChangesNothing() throws {
        _ = try post(#"{"type":"counter/incrTapped"}"#)
        let response = try post(#"[{"type":"counter/incrTapped"},{"type":"counter/nope"}]"#)
        XCTAssertEqual(response.status, 422)
        XCTAssertEqual(response.json["type"] as? String, "/problems/unknown-action")
        XCTAssertEqual(response.json["index"] as? Int, 1)
        XCTAssertEqual(try version(), 1)
        let log = try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token))
        XCTAssertEqual((log.json["actions"] as? [Any])?.count, 1)
    }

    func testEmptyBatchAndNonObjectAction() throws {
        XCTAssertEqual(try post("[]").json["type"] as? String, "/problems/empty-batch")
        XCTAssertEqual(try post("42").json["type"] as? String, "/problems/invalid-action")
        XCTAssertEqual(try post(#"{"payload":1}"#).json["type"] as? String, "/problems/invalid-action")
    }

    func testMalformedJSONIs400() throws {
        let response = try post(#"{"type":"#)
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.json["type"] as? String, "/problems/malformed-json")
        XCTAssertEqual(try version(), 0)
    }

    func testUnknownActionListsValidTypes() throws {
        let response = try post(#"{"type":"counter/explode"}"#)
        XCTAssertEqual(response.status, 422)
        XCTAssertTrue((response.json["validTypes"] as? [String] ?? []).contains("counter/incrTapped"))
    }

    func testInvalidPayloadNamesTheField() throws {
        let response = try post(#"{"type":"favoritePrimes/deleteFavoritePrimes","payload":{"indexes":"zero"}}"#)
        XCTAssertEqual(response.status, 422)
        XCTAssertEqual(response.json["type"] as? String, "/problems/invalid-payload")
        XCTAssertTrue((response.json["detail"] as? String ?? "").contains("indexes"), response.text)
    }

    func testReducerRefusalIs409AndChangesNothing() throws {
        let response = try post(#"{"type":"primeModal/saveFavoritePrimeTapped"}"#)   // count 0 is not prime
        XCTAssertEqual(response.status, 409)
        XCTAssertEqual(response.json["type"] as? String, "/problems/action-rejected")
        XCTAssertEqual(try version(), 0)
    }

    func testEffectOnlyActionsAreRefusedFromClients() throws {
        let response = try post(#"{"type":"counter/nthPrimeResponse","payload":{"prime":7}}"#)
        XCTAssertEqual(response.status, 403)
        XCTAssertEqual(response.json["type"] as? String, "/problems/internal-action")
    }

    func testIfMatch() throws {
        let mismatch = try post(#"{"type":"counter/incrTapped"}"#, headers: ["If-Match": "\"5\""])
        XCTAssertEqual(mismatch.status, 412)
        XCTAssertEqual(mismatch.json["type"] as? String, "/problems/version-mismatch")
        XCTAssertEqual(mismatch.json["currentVersion"] as? Int, 0)
        XCTAssertEqual(try post(#"{"type":"counter/incrTapped"}"#, headers: ["If-Match": "\"0\""]).status, 200)
        XCTAssertEqual(try post(#"{"type":"counter/incrTapped"}"#, headers: ["If-Match": "W/\"1\""]).status, 412, "If-Match compares strongly")
        // Two field lines of a list-based field are one list (RFC 9110 §5.3): "9" or "1" matches.
        let body = #"{"type":"counter/incrTapped"}"#
        try client.sendRaw("POST /sessions/\(id)/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n"
                           + "If-Match: \"9\"\r\nIf-Match: \"1\"\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let combined = try client.readResponse(method: "POST")
        XCTAssertEqual(combined.status, 200, combined.text)
        XCTAssertEqual(combined.header("ETag"), "\"2\"")
    }

    func testIdempotencyKeyReplaysTheFirstAnswer() throws {
        let first = try post(#"{"type":"counter/incrTapped"}"#, headers: ["Idempotency-Key": "k1"])
        let again = try post(#"{"type":"counter/incrTapped"}"#, headers: ["Idempotency-Key": "k1"])
        XCTAssertEqual(again.status, 200)
        XCTAssertEqual(again.text, first.text)
        XCTAssertEqual(again.header("Idempotent-Replayed"), "true")
        XCTAssertEqual(try version(), 1)
        let reused = try post(#"{"type":"counter/decrTapped"}"#, headers: ["Idempotency-Key": "k1"])
        XCTAssertEqual(reused.status, 422)
        XCTAssertEqual(reused.json["type"] as? String, "/problems/idempotency-key-reused")
        XCTAssertEqual(try version(), 1)
    }

    /// Two Idempotency-Key lines are the key "A, B" (RFC 9110 §5.3), not a replay of "A": refused,
    /// like a doubled Authorization, rather than cut to the first. The length counts bytes.
    func testIdempotencyKeyGivenTwiceOrTooLongIsRefused() throws {
        XCTAssertEqual(try post(#"{"type":"counter/incrTapped"}"#, headers: ["Idempotency-Key": "A"]).status, 200)
        let body = #"{"type":"counter/incrTapped"}"#
        try client.sendRaw("POST /sessions/\(id)/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n"
                           + "Idempotency-Key: A\r\nIdempotency-Key: B\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let doubled = try client.readResponse(method: "POST")
        XCTAssertEqual(doubled.status, 400, doubled.text)
        XCTAssertEqual(doubled.json["type"] as? String, "/problems/invalid-header")
        XCTAssertNil(doubled.header("Idempotent-Replayed"))
        let long = try post(body, headers: ["Idempotency-Key": String(repeating: "k", count: 256)])
        XCTAssertEqual(long.status, 400, long.text)
        XCTAssertEqual(long.json["detail"] as? String, "Idempotency-Key must be 1 to 255 bytes")
        XCTAssertEqual(try version(), 1, "nothing applied")
    }

    /// API.md: a repeat "returns the first answer again without applying anything", and a refusal
    /// is an answer: a client retrying a 409 it never received must not have the action applied
    /// later, on a state where it would pass.
    func testIdempotencyKeyReplaysARefusalAfterTheStateChanged() throws {
        let save = #"{"type":"primeModal/saveFavoritePrimeTapped"}"#
        let refused = try post(save, headers: ["Idempotency-Key": "fav"])
        XCTAssertEqual(refused.status, 409, refused.text)
        for _ in 1...2 { XCTAssertEqual(try post(#"{"type":"counter/incrTapped"}"#).status, 200) }  // 2 is prime
        let again = try post(save, headers: ["Idempotency-Key": "fav"])
        XCTAssertEqual(again.status, 409, again.text)
        XCTAssertEqual(again.text, refused.text)
        XCTAssertEqual(again.header("Idempotent-Replayed"), "true")
        XCTAssertEqual(try version(), 2)
        XCTAssertEqual(try post(#"{"type":"counter/decrTapped"}"#, headers: ["Idempotency-Key": "fav"]).status, 422,
                       "the key stays bound to its first body")
        XCTAssertEqual(try post(save, headers: ["Idempotency-Key": "fav2"]).status, 200, "another key is decided on today's state")
    }

    /// A refusal quotes only a prefix of a long action type (`Problem.quote`), so it stays well
    /// under the 4 KiB a kept refusal may take, and is kept and replayed like any other.
    func testARefusalOfALongTypeIsShortAndKept() throws {
        let body = #"{"type":""# + String(repeating: "x", count: 5_000) + #""}"#
        let first = try post(body, headers: ["Idempotency-Key": "long"])
        XCTAssertEqual(first.status, 422)
        XCTAssertLessThan(first.body.count, 1_000)
        let session = try XCTUnwrap(fixture.server.registry.lookup(id))
        XCTAssertNotNil(session.lock.withLock { session.machine.ledger.entries["long"] })
        let again = try post(body, headers: ["Idempotency-Key": "long"])
        XCTAssertEqual(again.status, 422)
        XCTAssertEqual(again.header("Idempotent-Replayed"), "true")
    }

    /// A failed precondition decides nothing about the action: the same key may go again with an
    /// `If-Match` that holds.
    func testIdempotencyKeyDoesNotKeepAPreconditionFailure() throws {
        let body = #"{"type":"counter/incrTapped"}"#
        XCTAssertEqual(try post(body, headers: ["Idempotency-Key": "k", "If-Match": "\"5\""]).status, 412)
        let retried = try post(body, headers: ["Idempotency-Key": "k", "If-Match": "\"0\""])
        XCTAssertEqual(retried.status, 200, retried.text)
        XCTAssertNil(retried.header("Idempotent-Replayed"))
        XCTAssertEqual(try version(), 1)
    }

    func testAReplayWhoseAnswerWasLetGoForTheBudgetIsStillTheFirstAnswer() throws {
        // Each full answer here is ~150 bytes: a 400-byte budget keeps the last two or three.
        let small = try ServerFixture { $0.idempotencyAnswerBudget = 400 }
        let (id, token) = try small.createSession()
        let client = try small.client()
        func post(key: String) throws -> TestResponse {
            try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Idempotency-Key": key]) { $1 },
                               body: #"{"type":"counter/incrTapped"}"#)
        }
        let firsts = try (1...8).map { try post(key: "k\($0)") }
        XCTAssertEqual(firsts.map { $0.json["version"] as? Int }, (1...8).map { $0 })
        let session = try XCTUnwrap(small.server.registry.lookup(id))
        let kept = session.lock.withLock { (1...8).map { session.machine.ledger.entries["k\($0)"]?.response != nil } }
        XCTAssertEqual(kept.prefix(4), [false, false, false, false], "the oldest answers were let go")
        XCTAssertEqual(kept.last, true)
        for (index, first) in firsts.enumerated() {
            let again = try post(key: "k\(index + 1)")
            XCTAssertEqual(again.status, 200)
            XCTAssertEqual(again.header("Idempotent-Replayed"), "true")
            XCTAssertEqual(again.text, first.text, "k\(index + 1)")
        }
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["version"] as? Int, 8)
    }

    func testAReplayOlderThanTheHistoryAnswersOnlyItsVersion() throws {
        // With no answer kept and its actions gone from history, the answer cannot be rendered
        // again: it is `{"version":N}`, never a patch with actions missing.
        let small = try ServerFixture { $0.history = 10; $0.idempotencyAnswerBudget = 1 }
        let (id, token) = try small.createSession()
        let client = try small.client()
        func post(key: String?, minimal: Bool) throws -> TestResponse {
            var headers = bearer(token)
            if let key { headers["Idempotency-Key"] = key }
            if minimal { headers["Prefer"] = "return=minimal" }
            return try client.request("POST", "/sessions/\(id)/actions", headers: headers, body: #"[{"type":"counter/incrTapped"},{"type":"counter/incrTapped"}]"#)
        }
        let first = try post(key: "old", minimal: true)
        XCTAssertEqual(first.json["version"] as? Int, 2)
        XCTAssertEqual(try post(key: "new", minimal: true).status, 200)  // lets "old"'s answer go
        let inHistory = try post(key: "old", minimal: true)
        XCTAssertEqual(inHistory.text, first.text, "rendered again from history")
        for _ in 1...6 { XCTAssertEqual(try post(key: nil, minimal: true).status, 200) }
        let gone = try post(key: "old", minimal: true)
        XCTAssertEqual(gone.status, 200)
        XCTAssertEqual(gone.header("Idempotent-Replayed"), "true")
        XCTAssertEqual(gone.text, #"{"version":2}"#)
    }

    func testPreferReturnMinimalAnswersThePatch() throws {
        let response = try post(#"[{"type":"counter/incrTapped"},{"type":"counter/incrTapped"}]"#, headers: ["Prefer": "return=minimal"])
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Preference-Applied"), "return=minimal")
        XCTAssertEqual(response.json["version"] as? Int, 2)
        let patch = try XCTUnwrap(response.json["patch"] as? [[String: Any]])
        XCTAssertEqual(patch.last?["op"] as? String, "replace")
        XCTAssertEqual(patch.last?["path"] as? String, "/count")
        XCTAssertEqual(patch.last?["value"] as? Int, 2)
        XCTAssertNil(response.json["state"])
        // RFC 7240 §2: the value may be quoted, with spaces around "=", among other preferences.
        for field in [#"return="minimal""#, "respond-async, return = minimal; x=1", "RETURN=minimal"] {
            let answer = try post(#"{"type":"counter/incrTapped"}"#, headers: ["Prefer": field])
            XCTAssertNotNil(answer.json["patch"], "\(field): \(answer.text)")
        }
        XCTAssertNotNil(try post(#"{"type":"counter/incrTapped"}"#, headers: ["Prefer": "return=representation"]).json["state"])
    }

    func testBodyOverTheLimitIs413() throws {
        let small = try ServerFixture { $0.maxBodyBytes = 64 }
        let (id, token) = try small.createSession()
        let big = #"{"type":"counter/incrTapped","meta":""# + String(repeating: "x", count: 200) + #""}"#
        let response = try small.client().request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: big)
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.json["type"] as? String, "/problems/body-too-large")
    }

    func testMetaIsKeptInTheLog() throws {
        _ = try post(#"{"type":"shop/none","meta":{"b":1,"a":2}}"#)
        _ = try post(#"{"type":"counter/incrTapped","meta":{"b":1,"a":2}}"#)
        let log = try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token))
        XCTAssertTrue(log.text.contains(#""meta":{"a":2,"b":1}"#), log.text)
    }
}
