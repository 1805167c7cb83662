import Foundation
@testable import StorehouseServer
import XCTest

/// docs/API.md "Operators": `POST /sessions {"from": {"id", "version"}}`.
final class ForkTests: XCTestCase {
    let adminSecret = OperatorRoutesTests.adminSecret

    private func addTasks(_ client: TestClient, _ id: String, _ token: String, _ titles: [String]) throws {
        for title in titles {
            let answer = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"tasks/add","payload":{"title":"\#(title)"}}"#)
            XCTAssertEqual(answer.status, 200, answer.text)
        }
    }

    func testAForkStartsAtTheOriginsStateAtTheVersionAndSaysWhereItCameFrom() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
        let client = try fixture.client()
        try addTasks(client, id, token, ["a", "b", "c"])
        let atTwo = try client.request("GET", "/sessions/\(id)/state?version=2", headers: bearer(token))
        let fork = try client.request("POST", "/sessions", headers: bearer(token), body: #"{"from":{"id":"\#(id)","version":2}}"#)
        XCTAssertEqual(fork.status, 201, fork.text)
        let forkID = try XCTUnwrap(fork.json["id"] as? String), forkToken = try XCTUnwrap(fork.json["token"] as? String)
        XCTAssertNotEqual(forkID, id)
        XCTAssertNotEqual(forkToken, token)
        XCTAssertEqual(fork.json["version"] as? Int, 0)
        XCTAssertEqual(fork.json["kind"] as? String, "tasks")
        XCTAssertEqual(fork.header("Location"), "/sessions/\(forkID)")
        let forkState = try client.request("GET", "/sessions/\(forkID)/state", headers: bearer(forkToken))
        XCTAssertEqual(forkState.json["state"] as? NSDictionary, atTwo.json["state"] as? NSDictionary)
        let metadata = try client.request("GET", "/sessions/\(forkID)", headers: bearer(forkToken))
        XCTAssertEqual(metadata.json["forkedFrom"] as? NSDictionary, ["id": id, "version": 2] as NSDictionary)
        XCTAssertNil(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["forkedFrom"])
        // The two go their own ways.
        try addTasks(client, forkID, forkToken, ["only in the fork"])
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["version"] as? Int, 3)
    }

    func testWithoutAVersionAForkTakesTheCurrentOneAndTheAdminTokenMayFork() throws {
        let fixture = try ServerFixture { $0.adminToken = AdminToken(self.adminSecret) }
        let (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
        let client = try fixture.client()
        try addTasks(client, id, token, ["a", "b"])
        let fork = try client.request("POST", "/sessions", headers: bearer(adminSecret), body: #"{"from":{"id":"\#(id)"}}"#)
        XCTAssertEqual(fork.status, 201, fork.text)
        let current = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(fork.json["state"] as? NSDictionary, current.json["state"] as? NSDictionary)
        let forkID = try XCTUnwrap(fork.json["id"] as? String)
        let metadata = try client.request("GET", "/sessions/\(forkID)", headers: bearer(adminSecret))
        XCTAssertEqual((metadata.json["forkedFrom"] as? [String: Any])?["version"] as? Int, 2)
    }

    func testAForkIsRefusedWithoutTheOriginsTokenOutsideItsHistoryOrWithAState() throws {
        let fixture = try ServerFixture { $0.history = 5 }
        let (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
        let (_, otherToken) = try fixture.createSession()
        let client = try fixture.client()
        try addTasks(client, id, token, (0..<20).map { "t\($0)" })
        func post(_ body: String, _ headers: [String: String]) throws -> TestResponse {
            try client.request("POST", "/sessions", headers: headers, body: body)
        }
        let from = #"{"from":{"id":"\#(id)","version":19}}"#
        XCTAssertEqual(try post(from, [:]).status, 401)
        XCTAssertEqual(try post(from, bearer(otherToken)).status, 401)
        XCTAssertEqual(try post(#"{"from":{"id":"AAAAAAAAAAAAAAAAAAAAAA"}}"#, bearer(token)).status, 404)
        for version in [21, 1] {
            let answer = try post(#"{"from":{"id":"\#(id)","version":\#(version)}}"#, bearer(token))
            XCTAssertEqual(answer.status, 404, "\(version): \(answer.text)")
            XCTAssertEqual(answer.json["type"] as? String, "/problems/version-not-found")
        }
        for body in [#"{"from":{"id":"\#(id)"},"state":{}}"#, #"{"from":{"id":"\#(id)"},"kind":"counter"}"#,
                     #"{"from":{"id":"\#(id)","version":-1}}"#, #"{"from":"\#(id)"}"#] {
            XCTAssertEqual(try post(body, bearer(token)).status, 422, body)
        }
        XCTAssertEqual(try post(from, bearer(token)).status, 201)
    }

    func testAForkAndItsOriginSurviveARestart() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var forkID = "", forkToken = "", originID = "", state: NSDictionary?
        do {
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
            let (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
            originID = id
            let client = try fixture.client()
            try addTasks(client, id, token, ["a", "b", "c"])
            let fork = try client.request("POST", "/sessions", headers: bearer(token), body: #"{"from":{"id":"\#(id)","version":1}}"#)
            XCTAssertEqual(fork.status, 201, fork.text)
            forkID = try XCTUnwrap(fork.json["id"] as? String)
            forkToken = try XCTUnwrap(fork.json["token"] as? String)
            state = fork.json["state"] as? NSDictionary
        }
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
        let client = try fixture.client()
        let metadata = try client.request("GET", "/sessions/\(forkID)", headers: bearer(forkToken))
        XCTAssertEqual(metadata.json["forkedFrom"] as? NSDictionary, ["id": originID, "version": 1] as NSDictionary)
        XCTAssertEqual(try client.request("GET", "/sessions/\(forkID)/state", headers: bearer(forkToken)).json["state"] as? NSDictionary, state)
    }
}
