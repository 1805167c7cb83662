import XCTest

/// Asserts that the action log lists a run of versions ending at `head`, at least the last
/// `history` of them with `fullWindow`, and that every version it lists (and the one before,
/// its base) can be read with `?version=`: the log and time travel show one window. Without
/// `fullWindow` (large states) the window may be short, even empty.
func assertLogAndTimeTravelAgree(_ client: TestClient, _ id: String, _ token: String, head: Int, history: Int,
                                 fullWindow: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws {
    let log = try client.request("GET", "/sessions/\(id)/actions?limit=1000", headers: bearer(token))
    let versions = (log.json["actions"] as? [[String: Any]] ?? []).compactMap { $0["version"] as? Int }
    let oldest = versions.first ?? head + 1
    XCTAssertEqual(versions, oldest <= head ? Array(oldest...head) : [], log.text, file: file, line: line)
    if fullWindow { XCTAssertLessThanOrEqual(oldest, head - history + 1, "the log holds --history versions", file: file, line: line) }
    for version in min(oldest - 1, head)...head {
        let answer = try client.request("GET", "/sessions/\(id)/state?version=\(version)", headers: bearer(token))
        XCTAssertEqual((answer.json["state"] as? [String: Any])?["count"] as? Int, version, answer.text, file: file, line: line)
    }
}
