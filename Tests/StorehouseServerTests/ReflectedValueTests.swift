import XCTest
@testable import StorehouseServer

/// A problem document quotes at most a short prefix of what the client sent.
final class ReflectedValueTests: XCTestCase {
    var fixture: ServerFixture!
    var id = "", token = ""
    var client: TestClient!
    let huge = String(repeating: "a", count: 900_000)

    override func setUpWithError() throws {
        fixture = try ServerFixture()
        (id, token) = try fixture.createSession()
        client = try fixture.client()
    }

    func assertShortProblem(_ response: TestResponse, _ status: Int, _ type: String, quoting: Bool = true,
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, status, file: file, line: line)
        XCTAssertEqual(response.json["type"] as? String, type, file: file, line: line)
        XCTAssertLessThan(response.body.count, 2_000, "a short refusal", file: file, line: line)
        if quoting {
            let detail = response.json["detail"] as? String ?? ""
            XCTAssertTrue(detail.contains("aaaa…"), detail, file: file, line: line)
            XCTAssertFalse(detail.contains(String(repeating: "a", count: Problem.quotedCharacters + 1)), detail, file: file, line: line)
        }
    }

    func testHugeActionTypeIsQuotedShort() throws {
        let response = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"\#(huge)"}"#)
        assertShortProblem(response, 422, "/problems/unknown-action")
        let batch = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"[{"type":"\#(huge)"}]"#)
        assertShortProblem(batch, 422, "/problems/unknown-action")
    }

    func testHugeKindIsQuotedShort() throws {
        let response = try client.request("POST", "/sessions", body: #"{"kind":"\#(huge)"}"#)
        assertShortProblem(response, 422, "/problems/unknown-kind")
    }

    func testLongPathAndQueryValuesAreQuotedShort() throws {
        let long = String(repeating: "a", count: 6_000)
        assertShortProblem(try client.request("GET", "/\(long)"), 404, "/problems/not-found")
        assertShortProblem(try client.request("GET", "/problems/\(long)"), 404, "/problems/not-found")
        assertShortProblem(try client.request("GET", "/sessions/\(id)/state?path=/\(long)", headers: bearer(token)),
                           404, "/problems/path-not-found")
        assertShortProblem(try client.request("GET", "/sessions/\(id)/actions?since=\(long)", headers: bearer(token)),
                           400, "/problems/invalid-query")
    }

    func testJSONErrorPathIsBounded() throws {
        // The parse error names where it failed, a path made of the client's own keys.
        let response = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"\#(huge)": [}"#)
        assertShortProblem(response, 400, "/problems/malformed-json", quoting: false)
    }
}
