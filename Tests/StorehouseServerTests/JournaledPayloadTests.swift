import Foundation
import StoreCore
import XCTest
@testable import Journal
@testable import StorehouseServer

/// A journal written before payloads were refused on actions that take none still replays:
/// the refusal is for clients at submission, not for what the journal already holds.
final class JournaledPayloadTests: XCTestCase {
    func testAJournaledPayloadOnAnActionThatTakesNoneReplaysWhileAPostIsStillRefused() throws {
        let directory = temporaryDirectory()
        var session = (id: "", token: "")
        do {
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
            session = try fixture.createSession()
            let first = try fixture.client().request("POST", "/sessions/\(session.id)/actions", headers: bearer(session.token),
                                                     body: #"{"type":"counter/incrTapped"}"#)
            XCTAssertEqual(first.status, 200, first.text)
            fixture.server.shutdown()
        }
        // Version 2 as an older server journaled it: a client action with a payload it ignored.
        do {
            let journal = try Journal(directory: directory, fsync: .always)
            XCTAssertEqual(journal.recover().sessions.first { $0.id == session.id }?.records.map(\.version), [1])
            let record = ActionRecord(type: "counter/incrTapped", payload: .string("ignored"), at: 1_790_000_000_000, source: .client)
            let bytes = RecordCoding.journalRecord(record, mark: nil)
            XCTAssertNoThrow(try XCTUnwrap(appendAndWait(journal, session: session.id, records: [(version: 2, bytes: bytes)])).get())
            journal.close()
        }
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
        let client = try fixture.client()
        let state = try client.request("GET", "/sessions/\(session.id)/state", headers: bearer(session.token))
        XCTAssertEqual(state.status, 200, state.text)
        XCTAssertEqual(state.json["version"] as? Int, 2)
        XCTAssertTrue(state.text.contains(#""count":2"#), state.text)
        // A past version is rebuilt by replaying the same records.
        let past = try client.request("GET", "/sessions/\(session.id)/state?version=2", headers: bearer(session.token))
        XCTAssertEqual(past.status, 200, past.text)
        // A client sending the same today is refused.
        let refused = try client.request("POST", "/sessions/\(session.id)/actions", headers: bearer(session.token),
                                         body: #"{"type":"counter/incrTapped","payload":"ignored"}"#)
        XCTAssertEqual(refused.status, 422, refused.text)
        XCTAssertEqual(refused.json["type"] as? String, "/problems/invalid-payload")
    }
}
