import Foundation
@testable import StorehouseServer
import XCTest

/// When the journal snapshots a big session (`SnapshotSchedule`, one at a time on the
/// `SnapshotWriter`), and that a restart from those snapshots and the records after them gives
/// back the same state.
final class BigSessionSnapshotTests: XCTestCase {
    /// Tasks of 24 KB titles (a state of about 1.2 MB) toggled 140 bytes at a time: after the
    /// first snapshot the next waits for about 600 KB of toggles, not for `--history`'s 1,000
    /// versions; and a restart reads the same state back.
    func testABigSessionSnapshotsByItsSizeAndRestartsToTheSameState() throws {
        let directory = temporaryDirectory()
        let configure: (inout ServerConfiguration) -> Void = { $0.inMemory = false; $0.dataDirectory = directory; $0.history = 100 }
        var id = "", token = "", before = ""
        do {
            let fixture = try ServerFixture(configure)
            let client = try fixture.client()
            (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
            let title = String(repeating: "t", count: 24_000)
            let adds = (1...50).map { #"{"type":"tasks/add","payload":{"title":"\#($0)\#(title)"}}"# }
            try post(client, id, token, Array(adds[..<25]))  // two bodies: a body holds at most 1 MB
            try post(client, id, token, Array(adds[25...]))
            func toggles(_ count: Int) throws {
                for start in stride(from: 0, to: count, by: 100) {
                    try post(client, id, token, (start..<start + 100).map { #"{"type":"tasks/toggleDone","payload":{"id":\#($0 % 50 + 1)}}"# })
                }
            }
            let journal = try XCTUnwrap(fixture.server.journal)
            func snapshots() -> Int {
                fixture.server.registry.context.snapshotWriter.waitUntilIdle()
                return journal.statistics().snapshots
            }
            try toggles(3_000)
            XCTAssertEqual(snapshots(), 1, "one at 1,000 versions, then none for 1,950 toggles (~270 KB)")
            try toggles(3_000)
            XCTAssertEqual(snapshots(), 2, "the second after ~600 KB of toggles")
            before = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).text
            fixture.server.shutdown()
        }
        let fixture = try ServerFixture(configure)
        let after = try fixture.client().request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(after.status, 200)
        XCTAssertTrue(after.text.hasPrefix(#"{"version":6050,"#), String(after.text.prefix(40)))
        XCTAssertEqual(after.text, before)
    }

    private func post(_ client: TestClient, _ id: String, _ token: String, _ actions: [String]) throws {
        let answer = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Prefer": "return=minimal"]) { a, _ in a },
                                        body: "[" + actions.joined(separator: ",") + "]")
        XCTAssertEqual(answer.status, 200, String(answer.text.prefix(300)))
    }
}
