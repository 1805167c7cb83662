import Foundation
import StoreCore
import StoreKinds
@testable import StorehouseServer
import XCTest

/// A server given its own list of kinds serves those and only those, and rebuilds them from disk.
final class CustomKindsTests: XCTestCase {
    func testKindsListsTheGivenKindsAndTheFirstIsTheDefault() throws {
        let fixture = try ServerFixture(kinds: try KindRegistry([tallyKind, .login]))
        let kinds = try fixture.client().request("GET", "/kinds")
        XCTAssertEqual((kinds.json["kinds"] as? [[String: Any]])?.compactMap { $0["name"] as? String }, ["tally", "login"])
        let created = try fixture.client().request("POST", "/sessions")
        XCTAssertEqual(created.status, 201, created.text)
        XCTAssertEqual(created.json["kind"] as? String, "tally")
        let counter = try fixture.client().request("POST", "/sessions", body: #"{"kind":"counter"}"#)
        XCTAssertEqual(counter.status, 422)
        XCTAssertEqual(counter.json["validKinds"] as? [String], ["tally", "login"])
    }

    func testACustomKindsActionsRefusalsAndStateGoThroughTheServer() throws {
        let fixture = try ServerFixture(kinds: try KindRegistry([.counter, tallyKind]))
        let (id, token) = try fixture.createSession(#"{"kind":"tally"}"#)
        let client = try fixture.client()
        let added = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"tally/add","payload":5}"#)
        XCTAssertEqual(added.text, #"{"version":1,"state":{"total":5}}"#)
        let refused = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"tally/add","payload":-1}"#)
        XCTAssertEqual(refused.status, 409, refused.text)
        let wrong = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
        XCTAssertEqual(wrong.json["validTypes"] as? [String], ["tally/add"])
    }

    func testASessionOfACustomKindIsRecoveredFromDisk() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ServerConfiguration) -> Void = { $0.inMemory = false; $0.dataDirectory = directory }
        let kinds = try KindRegistry([.counter, tallyKind])
        var first: ServerFixture? = try ServerFixture(configure, kinds: kinds)
        let (id, token) = try XCTUnwrap(first).createSession(#"{"kind":"tally"}"#)
        _ = try XCTUnwrap(first).client().request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"tally/add","payload":7}"#)
        first = nil
        let second = try ServerFixture(configure, kinds: kinds)
        let state = try second.client().request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(state.text, #"{"version":1,"state":{"total":7}}"#)
    }

    func testAListOfKindsNeedsOneAndUniqueNames() {
        XCTAssertThrowsError(try KindRegistry([])) { XCTAssertEqual($0 as? KindRegistryError, KindRegistryError(description: "a server needs at least one kind")) }
        XCTAssertThrowsError(try KindRegistry([.counter, tallyKind, Kind(name: "counter", reducer: tallyReducer)])) {
            XCTAssertEqual($0 as? KindRegistryError, KindRegistryError(description: "two kinds are called 'counter'"))
        }
        XCTAssertEqual(KindRegistry.shipped.names, ["counter", "shop", "tasks", "login"])
    }
}
