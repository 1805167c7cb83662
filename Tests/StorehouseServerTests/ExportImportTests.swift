import Foundation
import Journal
import StoreCore
@testable import StorehouseServer
import XCTest

/// docs/API.md "Operators": `GET /sessions/{id}/export` and `POST /sessions/import`.
final class ExportImportTests: XCTestCase {
    let admin = bearer(OperatorRoutesTests.adminSecret)

    private func server(_ directory: String? = nil, history: Int = 10_000) throws -> ServerFixture {
        try ServerFixture { c in
            c.adminToken = AdminToken(OperatorRoutesTests.adminSecret)
            c.history = history
            if let directory { c.inMemory = false; c.dataDirectory = directory }
        }
    }

    /// A tasks session with `count` actions, the last sent with an Idempotency-Key.
    private func populated(_ fixture: ServerFixture, count: Int) throws -> (id: String, token: String) {
        let (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
        let client = try fixture.client()
        for index in 0..<count {
            var headers = bearer(token)
            if index == count - 1 { headers["Idempotency-Key"] = "last" }
            let answer = try client.request("POST", "/sessions/\(id)/actions", headers: headers, body: #"{"type":"tasks/add","payload":{"title":"t\#(index)"},"meta":{"n":\#(index)}}"#)
            XCTAssertEqual(answer.status, 200, answer.text)
        }
        return (id, token)
    }

    /// The export of a three-action session of an in-memory server that is gone since.
    private func exportOfAThreeActionSession() throws -> (id: String, export: String) {
        let fixture = try server()
        let (id, _) = try populated(fixture, count: 3)
        return (id, try fixture.client().request("GET", "/sessions/\(id)/export", headers: admin).text)
    }

    /// What the export must carry over: state bytes, version, the whole action log.
    private func observed(_ client: TestClient, _ id: String, _ headers: [String: String]) throws -> (state: [UInt8], version: Int?, log: [UInt8]) {
        let state = try client.request("GET", "/sessions/\(id)/state", headers: headers)
        XCTAssertEqual(state.status, 200, state.text)
        let log = try client.request("GET", "/sessions/\(id)/actions?limit=1000", headers: headers)
        return (state.body, state.json["version"] as? Int, log.body)
    }

    func testAnExportImportedAfterADeleteRebuildsTheSessionExactly() throws {
        let fixture = try server(history: 5)
        let (id, token) = try populated(fixture, count: 12)
        let client = try fixture.client()
        let before = try observed(client, id, bearer(token))
        let export = try client.request("GET", "/sessions/\(id)/export", headers: bearer(token))
        XCTAssertEqual(export.status, 200, export.text)
        XCTAssertEqual(export.json["format"] as? String, "storehouse-session/1")
        XCTAssertEqual(export.json["id"] as? String, id)
        let base = try XCTUnwrap(export.json["baseVersion"] as? Int)
        XCTAssertGreaterThan(base, 0, "a history of 5 starts after version 0")
        XCTAssertEqual((export.json["actions"] as? [Any])?.count, 12 - base)
        XCTAssertEqual((export.json["idempotency"] as? [[String: Any]])?.first?["key"] as? String, "last")
        XCTAssertFalse(export.text.contains(token), "the token itself is never exported")

        XCTAssertEqual(try client.request("DELETE", "/sessions/\(id)", headers: bearer(token)).status, 204)
        let imported = try client.request("POST", "/sessions/import", headers: admin, body: export.text)
        XCTAssertEqual(imported.status, 201, imported.text)
        XCTAssertEqual(imported.json["id"] as? String, id)
        XCTAssertEqual(imported.json["version"] as? Int, 12)
        XCTAssertNil(imported.json["token"], "the session's own token keeps working; none is shown")
        XCTAssertEqual(imported.header("Location"), "/sessions/\(id)")

        let after = try observed(client, id, bearer(token))
        XCTAssertEqual(after.state, before.state, "same state bytes and version")
        XCTAssertEqual(after.log, before.log, "same action log")
        var repeatHeaders = bearer(token)
        repeatHeaders["Idempotency-Key"] = "last"
        let repeated = try client.request("POST", "/sessions/\(id)/actions", headers: repeatHeaders, body: #"{"type":"tasks/add","payload":{"title":"t11"},"meta":{"n":11}}"#)
        XCTAssertEqual(repeated.status, 200, repeated.text)
        XCTAssertEqual(repeated.json["version"] as? Int, 12, "a kept key's repeat applies nothing")
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/export", headers: bearer(token)).body, export.body, "and it exports the same")
    }

    func testImportIsAdminOnlyAndRefusesATakenIdOrADocumentThatDoesNotRebuild() throws {
        let fixture = try server()
        let (id, token) = try populated(fixture, count: 3)
        let client = try fixture.client()
        let export = try client.request("GET", "/sessions/\(id)/export", headers: admin)
        XCTAssertEqual(export.status, 200, "the admin token exports too")
        XCTAssertEqual(try client.request("POST", "/sessions/import", headers: bearer(token), body: export.text).status, 401)
        let taken = try client.request("POST", "/sessions/import", headers: admin, body: export.text)
        XCTAssertEqual(taken.status, 409, taken.text)
        XCTAssertEqual(taken.json["type"] as? String, "/problems/session-exists")
        XCTAssertEqual(try client.request("DELETE", "/sessions/\(id)", headers: admin).status, 204)

        let document = try XCTUnwrap(export.jsonAny as? [String: Any])
        func altered(_ change: (inout [String: Any]) -> Void) throws -> String {
            var copy = document
            change(&copy)
            return String(decoding: try JSONSerialization.data(withJSONObject: copy), as: UTF8.self)
        }
        var actions = try XCTUnwrap(document["actions"] as? [[String: Any]])
        actions[1]["type"] = "tasks/nope"
        var renumbered = actions
        renumbered[2]["version"] = 7
        for (body, member) in [(try altered { $0["format"] = "storehouse-session/9" }, "format"),
                               (try altered { $0["tokenHash"] = "abc" }, "tokenHash"),
                               (try altered { $0["state"] = ["tasks": 1] }, "state"),
                               (try altered { $0["actions"] = actions }, "actions"),
                               (try altered { $0["actions"] = renumbered }, "actions[2].version"),
                               (try altered { $0["kind"] = "counter" }, "state")] {
            let answer = try client.request("POST", "/sessions/import", headers: admin, body: body)
            XCTAssertEqual(answer.status, 422, "\(member): \(answer.text)")
            XCTAssertEqual(answer.json["type"] as? String, "/problems/invalid-export")
            XCTAssertTrue((answer.json["detail"] as? String ?? "").hasPrefix(member), "\(member): \(answer.text)")
            XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: admin).status, 404, "nothing is created: \(member)")
        }
        XCTAssertEqual(try client.request("POST", "/sessions/import", headers: admin, body: "{").status, 400)
        XCTAssertEqual(try client.request("POST", "/sessions/import", headers: admin, body: export.text).status, 201)
    }

    func testAnImportOnDiskSurvivesARestartAndGoesOnFromItsVersion() throws {
        let source = temporaryDirectory(), target = temporaryDirectory()
        defer { for d in [source, target] { try? FileManager.default.removeItem(atPath: d) } }
        var id = "", token = "", export = "", before: (state: [UInt8], version: Int?, log: [UInt8])?
        do {
            let fixture = try server(source)
            (id, token) = try populated(fixture, count: 5)
            let client = try fixture.client()
            export = try client.request("GET", "/sessions/\(id)/export", headers: bearer(token)).text
            before = try observed(client, id, bearer(token))
        }
        do {
            let fixture = try server(target)
            let client = try fixture.client()
            XCTAssertEqual(try client.request("POST", "/sessions/import", headers: admin, body: export).status, 201)
        }
        do {
            let fixture = try server(target)
            let client = try fixture.client()
            let after = try observed(client, id, bearer(token))
            XCTAssertEqual(after.state, before?.state)
            XCTAssertEqual(after.log, before?.log)
            try client.incrementTasks(id, token)
        }
        let fixture = try server(target)
        let client = try fixture.client()
        let state = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(state.json["version"] as? Int, 6, "the action after the import survives a restart too")
        let log = try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token))
        XCTAssertEqual((log.json["actions"] as? [Any])?.count, 6)
    }

    func testAnImportCutShortBeforeItsSnapshotIsRemovedAtStart() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (id, export) = try exportOfAThreeActionSession()
        // What a crash between the import's record and its snapshot leaves: the record alone.
        let parsed = try SessionExport(json: JSONReader.parse(Array(export.utf8)), kinds: .shipped)
        let journal = try Journal(directory: directory, fsync: .always)
        let meta = SnapshotCoding.meta(id: id, kind: "tasks", createdAt: parsed.createdAt, tokenHash: parsed.tokenHash,
                                       state: Array(#"{"tasks":{"byId":{},"allIds":[]},"favoriteIds":[],"nextId":1}"#.utf8),
                                       imported: .init(baseVersion: 0, version: 3, actions: Array("[]".utf8), idempotency: Array("[]".utf8)))
        try journal.createSession(id: id, meta: meta)
        journal.close()
        XCTAssertTrue(try FileManager.default.contentsOfDirectory(atPath: directory).contains { $0.hasPrefix(id) })

        let fixture = try server(directory)
        let client = try fixture.client()
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: admin).status, 404)
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: directory).contains { $0.hasPrefix(id) }, "its files are gone")
        XCTAssertEqual(try client.request("POST", "/sessions/import", headers: admin, body: export).status, 201, "and the import can be made again")
    }

    func testAnImportWhoseSnapshotCannotBeWrittenAnswers503AndLeavesNothing() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (id, export) = try exportOfAThreeActionSession()
        func files() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(id) } }
        do {
            let fixture = try server(directory)
            let client = try fixture.client()
            let journal = try XCTUnwrap(fixture.server.journal)
            // The record is written; the snapshot that completes the import is not.
            journal.injectFault(JournalFault(operation: .write, errno: ENOSPC, file: "\(id).snap.tmp"))
            let refused = try client.request("POST", "/sessions/import", headers: admin, body: export)
            XCTAssertEqual(refused.status, 503, refused.text)
            XCTAssertEqual(refused.json["type"] as? String, "/problems/journal-unavailable")
            XCTAssertEqual(refused.header("Retry-After"), "1")
            XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: admin).status, 404, "no half-made session is served")
            XCTAssertEqual(try files(), [], "nor are its files kept")
            journal.injectFault(nil)
        }
        let fixture = try server(directory)
        let client = try fixture.client()
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: admin).status, 404, "nor does a restart find one")
        XCTAssertEqual(try client.request("POST", "/sessions/import", headers: admin, body: export).status, 201, "the retry succeeds")
    }
}

extension TestClient {
    func incrementTasks(_ id: String, _ token: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let answer = try request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"tasks/add","payload":{"title":"more"}}"#)
        XCTAssertEqual(answer.status, 200, answer.text, file: file, line: line)
    }
}
