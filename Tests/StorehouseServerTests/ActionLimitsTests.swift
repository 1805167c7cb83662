import XCTest
@testable import StorehouseServer

/// What one action may carry: no payload where its type takes none.
final class ActionLimitsTests: XCTestCase {
    var fixture: ServerFixture!
    var id = "", token = ""
    var client: TestClient!

    func start(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        fixture = try ServerFixture(configure)
        (id, token) = try fixture.createSession()
        client = try fixture.client()
    }

    func post(_ body: String) throws -> TestResponse {
        try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: body)
    }

    func testPayloadOnAnActionThatTakesNoneIsRefused() throws {
        try start()
        let refused = try post(#"{"type":"counter/incrTapped","payload":"\#(String(repeating: "p", count: 100_000))"}"#)
        XCTAssertEqual(refused.status, 422, refused.text)
        XCTAssertEqual(refused.json["type"] as? String, "/problems/invalid-payload")
        let inBatch = try post(#"[{"type":"counter/incrTapped"},{"type":"counter/decrTapped","payload":{}}]"#)
        XCTAssertEqual(inBatch.status, 422, inBatch.text)
        XCTAssertEqual(inBatch.json["index"] as? Int, 1)
        // null is no payload (FSA), and nothing was applied.
        XCTAssertEqual(try post(#"{"type":"counter/incrTapped","payload":null}"#).json["version"] as? Int, 1)
    }
}

/// `--max-action-bytes`: what one action carries in payload and meta.
final class ActionBytesTests: XCTestCase {
    func testAnActionPastMaxActionBytesIs413NamingTheFlag() throws {
        let fixture = try ServerFixture { $0.maxActionBytes = 1_000 }
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        func post(_ body: String) throws -> TestResponse {
            try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: body)
        }
        let big = String(repeating: "m", count: 1_200)
        let refused = try post(#"{"type":"counter/incrTapped","meta":"\#(big)"}"#)
        XCTAssertEqual(refused.status, 413, refused.text)
        XCTAssertEqual(refused.json["type"] as? String, "/problems/action-too-large")
        XCTAssertEqual(refused.json["maxActionBytes"] as? Int, 1_000)
        XCTAssertTrue((refused.json["detail"] as? String ?? "").contains("--max-action-bytes"))
        let batch = try post(#"[{"type":"counter/incrTapped","meta":"small"},{"type":"counter/incrTapped","meta":{"m":"\#(big)"}}]"#)
        XCTAssertEqual(batch.status, 413)
        XCTAssertEqual(batch.json["index"] as? Int, 1)
        // Two actions each under the limit pass, though the body is over it.
        let half = String(repeating: "m", count: 700)
        XCTAssertEqual(try post(#"[{"type":"counter/incrTapped","meta":"\#(half)"},{"type":"counter/incrTapped","meta":"\#(half)"}]"#).status, 200)
    }
}
