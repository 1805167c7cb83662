import Foundation
@testable import StorehouseServer
import XCTest

/// When the journal snapshots a session (`SnapshotPolicy`), and that a restart from those
/// snapshots and the records after them gives back the same state.
final class SnapshotPolicyTests: XCTestCase {
    let policy = SnapshotPolicy(every: 1_000, droppedLimit: 64 << 20)

    func testNotBeforeEveryVersionsUnlessActionsLeftTheWindow() {
        XCTAssertFalse(policy.isDue(base: 999, last: 0, droppedSince: 0, loggedSince: 1 << 30, lastBytes: 0, writing: false))
        XCTAssertTrue(policy.isDue(base: 1_000, last: 0, droppedSince: 0, loggedSince: 0, lastBytes: 0, writing: false))
        XCTAssertTrue(policy.isDue(base: 10, last: 0, droppedSince: 64 << 20, loggedSince: 0, lastBytes: 0, writing: false))
        XCTAssertFalse(policy.isDue(base: 5_000, last: 5_000, droppedSince: 64 << 20, loggedSince: 1 << 30, lastBytes: 0, writing: false),
                       "not again at the same version")
    }

    func testABigStateWaitsForHalfItsBytesInActions() {
        let state = 72 << 20
        XCTAssertFalse(policy.isDue(base: 500_000, last: 1_000, droppedSince: 0, loggedSince: state / 2 - 1, lastBytes: state, writing: false))
        XCTAssertTrue(policy.isDue(base: 500_000, last: 1_000, droppedSince: 0, loggedSince: state / 2, lastBytes: state, writing: false))
        XCTAssertFalse(policy.isDue(base: 500_000, last: 1_000, droppedSince: 0, loggedSince: 2 * state, lastBytes: state, writing: true),
                       "never while the last one is still being written")
    }

    /// A session that grows by `growth` bytes of state and logs `weight` bytes per action: the
    /// snapshots' bytes stay within the bytes logged (plus the last state), at any size.
    func testSnapshotBytesAreAmortizedOverTheBytesLogged() {
        for (growth, weight) in [(72, 200), (0, 140), (500, 100), (5, 5_000)] {
            var stateBytes = 1_000, last = 0, lastBytes = 0, logged = 0, loggedTotal = 0, written = 0, snapshots = 0
            for version in 1...2_000_000 {
                stateBytes += growth
                logged += weight
                loggedTotal += weight
                if policy.isDue(base: version, last: last, droppedSince: 0, loggedSince: logged, lastBytes: lastBytes, writing: false) {
                    (last, lastBytes, logged) = (version, stateBytes, 0)
                    written += stateBytes
                    snapshots += 1
                }
            }
            XCTAssertGreaterThan(snapshots, 0)
            XCTAssertLessThanOrEqual(written, loggedTotal * SnapshotPolicy.logShare + stateBytes,
                                     "growth \(growth), weight \(weight): \(snapshots) snapshots, \(written) bytes")
        }
    }

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
