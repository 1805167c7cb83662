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
