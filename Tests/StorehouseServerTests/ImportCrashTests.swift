import Foundation
@testable import StorehouseServer
import Synchronization
import XCTest

/// docs/API.md "Operators": an import is all or nothing, a SIGKILL at any moment included. After
/// every restart each acknowledged import is there whole, and no session is there half-made.
///
/// Rounds: `STOREHOUSE_IMPORT_CRASH_ROUNDS` (default 4).
final class ImportCrashTests: XCTestCase {
    func testASIGKILLDuringImportsLeavesEachWholeOrAbsent() throws {
        let rounds = Int(ProcessInfo.processInfo.environment["STOREHOUSE_IMPORT_CRASH_ROUNDS"] ?? "") ?? 4
        let admin = OperatorRoutesTests.adminSecret
        let actions = 120
        // One export to import again and again under new ids.
        var template = "", originalID = "", expectedState: NSDictionary?
        do {
            let fixture = try ServerFixture { $0.adminToken = AdminToken(admin) }
            let (id, token) = try fixture.createSession(#"{"kind":"shop"}"#)
            let client = try fixture.client()
            for n in 0..<actions {
                XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"shop/add","payload":"p\#(n)"}"#).status, 200)
            }
            template = try client.request("GET", "/sessions/\(id)/export", headers: bearer(token)).text
            expectedState = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).json["state"] as? NSDictionary
            originalID = id
        }
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let acknowledged = Mutex<Set<String>>([])
        var generator = SystemRandomNumberGenerator()
        for round in 1...rounds + 1 {
            let server = try ServerProcess(arguments: ["--data-dir", directory, "--fsync", "always", "--admin-token", admin])
            try server.waitUntilReady()
            try verify(port: server.port, admin: admin, acknowledged: acknowledged.withLock { $0 }, version: actions, state: expectedState, round: round)
            if round > rounds {
                server.kill(SIGTERM)
                break
            }
            let importers = DispatchGroup()
            let (port, document, exportedID) = (server.port, template, originalID)
            for _ in 0..<3 {
                DispatchQueue.global().async(group: importers) {
                    guard let client = try? TestClient(port: port) else { return }
                    while true {
                        let id = Secrets.randomBase64URL(bytes: 16)
                        let body = document.replacingOccurrences(of: exportedID, with: id)
                        guard let answer = try? client.request("POST", "/sessions/import", headers: bearer(admin), body: body) else { return }
                        if answer.status == 201 { acknowledged.withLock { _ = $0.insert(id) } }
                    }
                }
            }
            usleep(UInt32.random(in: 100_000...400_000, using: &generator))
            server.kill(SIGKILL)
            importers.wait()
        }
        XCTAssertGreaterThan(acknowledged.withLock { $0.count }, rounds, "imports were answered before each kill")
    }

    /// Every session the server lists is a whole import, and every acknowledged one is listed.
    private func verify(port: Int, admin: String, acknowledged: Set<String>, version: Int, state: NSDictionary?, round: Int) throws {
        let client = try TestClient(port: port)
        var listed = Set<String>()
        var cursor: String?
        repeat {
            let page = try client.request("GET", "/sessions?limit=1000" + (cursor.map { "&cursor=\($0)" } ?? ""), headers: bearer(admin))
            XCTAssertEqual(page.status, 200, page.text)
            for session in page.json["sessions"] as? [[String: Any]] ?? [] {
                guard let id = session["id"] as? String else { continue }
                listed.insert(id)
                XCTAssertEqual(session["version"] as? Int, version, "round \(round): \(id) is half-made")
            }
            cursor = page.json["next"] as? String
        } while cursor != nil
        let lost = acknowledged.subtracting(listed)
        XCTAssertTrue(lost.isEmpty, "round \(round): acknowledged imports lost: \(lost.sorted().prefix(3))")
        // A sample read in full: the state and the whole log came back.
        for id in listed.sorted().prefix(3) {
            let read = try client.request("GET", "/sessions/\(id)/state", headers: bearer(admin))
            XCTAssertEqual(read.json["state"] as? NSDictionary, state, "round \(round): \(id)")
            let log = try client.request("GET", "/sessions/\(id)/actions?limit=1000", headers: bearer(admin))
            XCTAssertEqual((log.json["actions"] as? [Any])?.count, version, "round \(round): \(id)'s log")
        }
    }
}
