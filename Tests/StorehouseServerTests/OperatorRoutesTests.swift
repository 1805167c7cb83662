import Foundation
@testable import StorehouseServer
import XCTest

/// docs/API.md "Operators": the admin token, the creation policy, the listing, unknown query
/// parameters, idempotency by JSON value, and the payload schemas of `/kinds`.
final class OperatorRoutesTests: XCTestCase {
    static let adminSecret = "operator-secret-0123456789-abcdefghij"

    private func adminServer(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> ServerFixture {
        try ServerFixture { c in
            c.adminToken = AdminToken(Self.adminSecret)
            configure(&c)
        }
    }

    func testAdminRoutesAnswer403SayingHowToEnableThemWhenNoTokenIsSet() throws {
        let fixture = try ServerFixture()
        let answer = try fixture.client().request("GET", "/sessions", headers: bearer(Self.adminSecret))
        XCTAssertEqual(answer.status, 403, answer.text)
        XCTAssertEqual(answer.json["type"] as? String, "/problems/admin-disabled")
        XCTAssertTrue((answer.json["detail"] as? String ?? "").contains("--admin-token"), answer.text)
    }

    func testListingNeedsTheAdminBearerNotASessionsToken() throws {
        let fixture = try adminServer()
        let (_, token) = try fixture.createSession()
        let client = try fixture.client()
        for headers in [[:], bearer(token), bearer(Self.adminSecret + "x"), bearer(String(Self.adminSecret.dropLast()))] {
            let answer = try client.request("GET", "/sessions", headers: headers)
            XCTAssertEqual(answer.status, 401, "\(headers): \(answer.text)")
            XCTAssertNotNil(answer.header("WWW-Authenticate"))
        }
        XCTAssertEqual(try client.request("GET", "/sessions", headers: bearer(Self.adminSecret)).status, 200)
    }

    func testListingPagesEverySessionOnceInIdOrderAndFiltersByKind() throws {
        let fixture = try adminServer()
        var made: [(id: String, kind: String)] = []
        for kind in ["counter", "tasks", "counter", "shop", "tasks", "counter", "counter"] {
            made.append((try fixture.createSession(#"{"kind":"\#(kind)"}"#).id, kind))
        }
        let client = try fixture.client()
        func listAll(_ query: String) throws -> [[String: Any]] {
            var listed: [[String: Any]] = []
            var cursor: String?
            repeat {
                let target = "/sessions?limit=3\(query)" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try client.request("GET", target, headers: bearer(Self.adminSecret))
                XCTAssertEqual(page.status, 200, page.text)
                let sessions = page.json["sessions"] as? [[String: Any]] ?? []
                XCTAssertLessThanOrEqual(sessions.count, 3)
                listed += sessions
                cursor = page.json["next"] as? String
                if cursor == nil { XCTAssertTrue(page.json["next"] is NSNull, "next is null on the last page: \(page.text)") }
            } while cursor != nil
            return listed
        }
        let all = try listAll("")
        XCTAssertEqual(all.compactMap { $0["id"] as? String }, made.map(\.id).sorted())
        let first = try XCTUnwrap(all.first)
        for member in ["id", "kind", "version", "createdAt", "updatedAt", "expiresAt", "subscribers", "resident"] {
            XCTAssertNotNil(first[member], "\(member) in \(first)")
        }
        XCTAssertEqual(first["resident"] as? Bool, true)
        let tasks = try listAll("&kind=tasks")
        XCTAssertEqual(tasks.compactMap { $0["id"] as? String }, made.filter { $0.kind == "tasks" }.map(\.id).sorted())

        let unknown = try client.request("GET", "/sessions?kind=nope", headers: bearer(Self.adminSecret))
        XCTAssertEqual(unknown.status, 422, unknown.text)
        for bad in ["limit=0", "limit=x", "cursor=%2F..%2F"] {
            XCTAssertEqual(try client.request("GET", "/sessions?\(bad)", headers: bearer(Self.adminSecret)).status, 400, bad)
        }
        let defaultPage = try client.request("GET", "/sessions", headers: bearer(Self.adminSecret))
        XCTAssertEqual((defaultPage.json["sessions"] as? [Any])?.count, made.count, "the default limit is 100")
    }

    func testAPageAfterADeletionAndACreationNeitherRepeatsNorSkipsASurvivor() throws {
        let fixture = try adminServer()
        var ids = try (0..<6).map { _ in try fixture.createSession().id }.sorted()
        let client = try fixture.client()
        let first = try client.request("GET", "/sessions?limit=2", headers: bearer(Self.adminSecret))
        let firstIDs = (first.json["sessions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        XCTAssertEqual(firstIDs, Array(ids.prefix(2)))
        let cursor = try XCTUnwrap(first.json["next"] as? String)
        // The cursor's own session and the next one go; a new one comes.
        for gone in [ids[1], ids[2]] {
            XCTAssertEqual(try client.request("DELETE", "/sessions/\(gone)", headers: bearer(Self.adminSecret)).status, 204)
        }
        ids.removeSubrange(1...2)
        ids = (ids + [try fixture.createSession().id]).sorted()
        let rest = try client.request("GET", "/sessions?limit=100&cursor=\(cursor)", headers: bearer(Self.adminSecret))
        let restIDs = (rest.json["sessions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        XCTAssertEqual(restIDs, ids.filter { $0 > cursor })
    }

    func testTheAdminTokenOpensEverySessionRoute() throws {
        let fixture = try adminServer()
        let (id, _) = try fixture.createSession()
        let client = try fixture.client()
        let admin = bearer(Self.adminSecret)
        XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: admin, body: #"{"type":"counter/incrTapped"}"#).status, 200)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: admin).json["version"] as? Int, 1)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state?access_token=\(Self.adminSecret)").status, 200)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/actions", headers: admin).status, 200)
        XCTAssertEqual(try client.request("DELETE", "/sessions/\(id)", headers: admin).status, 204)
    }

    func testWithoutAConfiguredAdminTokenNoOtherTokenOpensASession() throws {
        let fixture = try ServerFixture()
        let (id, _) = try fixture.createSession()
        let answer = try fixture.client().request("GET", "/sessions/\(id)", headers: bearer(Self.adminSecret))
        XCTAssertEqual(answer.status, 401, answer.text)
    }

    func testCreationPolicyAdminNeedsTheAdminBearer() throws {
        let fixture = try adminServer { $0.createSessions = .admin }
        let client = try fixture.client()
        let anonymous = try client.request("POST", "/sessions", body: #"{"kind":"counter"}"#)
        XCTAssertEqual(anonymous.status, 401, anonymous.text)
        XCTAssertNotNil(anonymous.header("WWW-Authenticate"))
        XCTAssertEqual(try client.request("POST", "/sessions", headers: bearer("not-it"), body: "{}").status, 401)
        let created = try client.request("POST", "/sessions", headers: bearer(Self.adminSecret), body: #"{"kind":"shop"}"#)
        XCTAssertEqual(created.status, 201, created.text)
        // The session's own token works for it as ever.
        let token = try XCTUnwrap(created.json["token"] as? String), id = try XCTUnwrap(created.json["id"] as? String)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).status, 200)
    }

    func testUnknownQueryParametersAre400NamingThem() throws {
        let fixture = try adminServer()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        for (target, parameter) in [("/healthz?verbose=1", "verbose"), ("/kinds?x", "x"), ("/sessions/\(id)/state?verison=0", "verison"),
                                    ("/sessions/\(id)/actions?since=0&limt=5", "limt"), ("/sessions/\(id)?access_token=\(token)", "access_token"),
                                    ("/sessions?limit=1&page=2", "page")] {
            let answer = try client.request("GET", target, headers: bearer(target.hasPrefix("/sessions?") ? Self.adminSecret : token))
            XCTAssertEqual(answer.status, 400, "\(target): \(answer.text)")
            XCTAssertEqual(answer.json["type"] as? String, "/problems/unknown-parameter", target)
            XCTAssertEqual(answer.json["parameter"] as? String, parameter, target)
            XCTAssertTrue((answer.json["detail"] as? String ?? "").contains(parameter), answer.text)
        }
        for target in ["/sessions/\(id)/state?version=0&version=0", "/sessions?cursor=a&cursor=b"] {
            let answer = try client.request("GET", target, headers: bearer(target.hasPrefix("/sessions?") ? Self.adminSecret : token))
            XCTAssertEqual(answer.status, 400, "\(target): \(answer.text)")
            XCTAssertEqual(answer.json["type"] as? String, "/problems/invalid-query", "a parameter given twice: \(target)")
        }
        for cursor in ["null", "40ni8yQvBWv0b.F8vK25akyN"] {
            XCTAssertEqual(try client.request("GET", "/sessions?cursor=\(cursor)", headers: bearer(Self.adminSecret)).status, 200, "any id-shaped cursor is a position")
        }
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state?version=0&path=/count", headers: bearer(token)).status, 200)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/actions?since=0&limit=5", headers: bearer(token)).status, 200)
    }

    func testAnIdempotencyKeyComparesTheBodysJSONValueNotItsBytes() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
        let client = try fixture.client()
        var headers = bearer(token)
        headers["Idempotency-Key"] = "k1"
        let first = try client.request("POST", "/sessions/\(id)/actions", headers: headers, body: #"{"type":"tasks/add","payload":{"title":"a"}}"#)
        XCTAssertEqual(first.status, 200, first.text)
        let respaced = try client.request("POST", "/sessions/\(id)/actions", headers: headers,
                                          body: "{ \"payload\" : { \"title\" : \"a\" } ,\n \"type\" : \"tasks/add\" }")
        XCTAssertEqual(respaced.status, 200, respaced.text)
        XCTAssertEqual(respaced.json["version"] as? Int, 1, "a repeat applies nothing")
        let other = try client.request("POST", "/sessions/\(id)/actions", headers: headers, body: #"{"type":"tasks/add","payload":{"title":"b"}}"#)
        XCTAssertEqual(other.status, 422, other.text)
        XCTAssertEqual(other.json["type"] as? String, "/problems/idempotency-key-reused")
    }

    func testKindsGiveEachActionsPayloadSchemaAndTheOutputs() throws {
        let fixture = try ServerFixture()
        let answer = try fixture.client().request("GET", "/kinds")
        let kinds = try XCTUnwrap(answer.json["kinds"] as? [[String: Any]])
        func kind(_ name: String) throws -> [String: Any] { try XCTUnwrap(kinds.first { $0["name"] as? String == name }) }
        func action(_ kindName: String, _ type: String) throws -> [String: Any] {
            let actions = try XCTUnwrap(try kind(kindName)["actions"] as? [[String: Any]])
            return try XCTUnwrap(actions.first { $0["type"] as? String == type }, type)
        }
        XCTAssertNil(try action("counter", "counter/incrTapped")["payloadSchema"], "absent when the action takes no payload")
        let add = try XCTUnwrap(try action("tasks", "tasks/add")["payloadSchema"] as? [String: Any])
        XCTAssertEqual(add["type"] as? String, "object")
        XCTAssertEqual(add["required"] as? [String], ["title"])
        XCTAssertEqual(((add["properties"] as? [String: Any])?["title"] as? [String: Any])?["type"] as? String, "string")
        XCTAssertEqual((try action("shop", "shop/add")["payloadSchema"] as? [String: Any])?["type"] as? String, "string")
        let outputs = try XCTUnwrap(try kind("login")["outputs"] as? [[String: Any]])
        XCTAssertEqual(outputs.compactMap { $0["type"] as? String },
                       ["login/confirmationRequested", "login/loginFinished", "login/showErrorToast"])
        XCTAssertEqual((try kind("counter")["outputs"] as? [Any])?.count, 0)
        for entry in kinds {
            let types = (entry["actions"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
            XCTAssertEqual(types, entry["actionTypes"] as? [String], "every client action is described")
        }
    }
}
