import XCTest
@testable import StorehouseServer
import HTTPEngine

/// API.md "Endpoints": health, readiness, metrics, kinds, problem types, unknown routes.
final class OperationsRoutesTests: XCTestCase {
    func testHealthAndReadiness() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        let health = try client.request("GET", "/healthz")
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(health.text, #"{"status":"ok"}"#)
        XCTAssertEqual(try client.request("GET", "/readyz").status, 200)
    }

    /// While the server drains, a session request is refused with 503, `Retry-After` and
    /// `Connection: close`, and the connection ends there: a retry goes to a new connection.
    func testADrainingRefusalClosesTheConnection() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).status, 200)
        fixture.server.readiness.set(.draining)
        let refused = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.header("Retry-After"), "1")
        XCTAssertEqual(refused.header("Connection"), "close")
        XCTAssertTrue(client.waitForClose(), "the server closed the connection after its answer")
        XCTAssertEqual(try fixture.client().request("GET", "/readyz").header("Connection"), "close")
    }

    func testKindsListsEveryKindWithActionTypesAndInitialState() throws {
        let fixture = try ServerFixture()
        let response = try fixture.client().request("GET", "/kinds")
        XCTAssertEqual(response.status, 200)
        let kinds = try XCTUnwrap(response.json["kinds"] as? [[String: Any]])
        XCTAssertEqual(kinds.map { $0["name"] as? String }, ["counter", "shop", "tasks", "login"])
        let tasks = try XCTUnwrap(kinds.first { $0["name"] as? String == "tasks" })
        XCTAssertTrue((tasks["actionTypes"] as? [String] ?? []).contains("tasks/toggleDone"))
        XCTAssertTrue(response.text.contains(#""initialState":{"tasks":{"byId":{},"allIds":[]},"favoriteIds":[],"nextId":1}"#), response.text)
        let login = try XCTUnwrap(kinds.first { $0["name"] as? String == "login" })
        XCTAssertTrue((login["internalActionTypes"] as? [String] ?? []).contains("login/loginSucceeded"))
    }

    func testMetricsCountRequestsActionsSessionsAndSubscribers() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        _ = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
        let events = try fixture.client()
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token))
        _ = try events.nextEvent()
        let metrics = try client.request("GET", "/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.header("Content-Type")?.hasPrefix("text/plain") ?? false)
        for line in ["storehouse_sessions 1", "storehouse_subscribers 1",
                     #"storehouse_actions_total{kind="counter",source="client"} 1"#,
                     #"storehouse_http_requests_total{route="/sessions/{id}/actions",method="POST",status="200"} 1"#,
                     #"storehouse_http_request_duration_seconds_count{route="/sessions"} 1"#] {
            XCTAssertTrue(metrics.text.contains(line), "missing \(line) in\n\(metrics.text)")
        }
    }

    func testRefusalsOfTheHTTPLayerAreCounted() throws {
        let fixture = try ServerFixture { $0.maxBodyBytes = 64 }
        let tooLarge = try fixture.client()
        try tooLarge.sendRaw("POST /sessions?access_token=secret HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        XCTAssertEqual(try tooLarge.readResponse(method: "POST").status, 413)
        let malformed = try fixture.client()
        try malformed.sendRaw("GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n")
        XCTAssertEqual(try malformed.readResponse().status, 400)
        // Absolute form: the path is read as for any request, with no authority (or password) in it.
        let absolute = try fixture.client()
        try absolute.sendRaw("POST http://user:secret@x/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        XCTAssertEqual(try absolute.readResponse(method: "POST").status, 413)
        XCTAssertEqual(RefusedRequest(status: 413, method: "POST", target: "http://user:secret@x/sessions?access_token=t", headers: [:]).path, "/sessions")
        let metrics = try fixture.client().request("GET", "/metrics").text
        for line in [#"storehouse_http_requests_total{route="/sessions",method="POST",status="413"} 2"#,
                     #"storehouse_http_requests_total{route="/healthz",method="GET",status="400"} 1"#] {
            XCTAssertTrue(metrics.contains(line), "missing \(line) in\n\(metrics)")
        }
    }

    func testProblemTypesAreExplained() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        let known = try client.request("GET", "/problems/version-mismatch")
        XCTAssertEqual(known.status, 200)
        XCTAssertTrue(known.text.contains("If-Match"))
        XCTAssertEqual(try client.request("GET", "/problems/nope").status, 404)
    }

    func testUnknownRouteIs404AndWrongMethodIs405WithAllow() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        let missing = try client.request("GET", "/nope")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.json["type"] as? String, "/problems/not-found")
        let wrong = try client.request("PUT", "/sessions")
        XCTAssertEqual(wrong.status, 405)
        XCTAssertEqual(wrong.header("Allow"), "GET, HEAD, POST, OPTIONS")
        XCTAssertEqual(wrong.json["type"] as? String, "/problems/method-not-allowed")
    }

    /// RFC 9110 §9.3.7: OPTIONS * is about the server as a whole.
    func testOptionsAsteriskListsTheServersMethods() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        let unknown = try client.request("FOO", "/healthz")
        XCTAssertEqual(unknown.status, 405, "a method the server does not know is 405 as well")
        XCTAssertEqual(unknown.header("Allow"), "GET, HEAD, OPTIONS")
        let server = try client.request("OPTIONS", "*")
        XCTAssertEqual(server.status, 204)
        XCTAssertEqual(server.header("Allow"), "GET, HEAD, POST, DELETE, OPTIONS")
    }

    func testHeadAnswersHeadersOnly() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        let head = try client.request("HEAD", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("ETag"), "\"0\"")
        XCTAssertTrue(head.body.isEmpty)
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200, "the connection is still in step after HEAD")
        // The event stream's HEAD has the stream's head: no Content-Length of 0 for an endless body.
        let events = try client.request("HEAD", "/sessions/\(id)/events", headers: bearer(token))
        XCTAssertEqual(events.status, 200)
        XCTAssertEqual(events.header("Content-Type"), "text/event-stream")
        XCTAssertEqual(events.header("Transfer-Encoding"), "chunked")
        XCTAssertNil(events.header("Content-Length"))
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200, "the connection is still in step after HEAD of a stream")
    }

    func testTokenNeverAppearsInTheAccessLog() throws {
        let line = AccessLogFormatting.line(method: "GET", path: "/sessions/abc/events", status: 200, seconds: 0.0012, now: 0)
        XCTAssertEqual(line, "1970-01-01T00:00:00.000Z GET /sessions/abc/events 200 1.200ms\n")
    }
}

/// Every problem slug the code can send is explained at `/problems/{slug}` and listed in openapi.yaml.
final class ProblemCatalogTests: XCTestCase {
    func testEverySlugInTheSourcesIsExplainedAndInTheContract() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        XCTAssertFalse(files.isEmpty)
        let pattern = try NSRegularExpression(pattern: #"Problem\(\d{3}, "([a-z-]+)""#)
        var slugs = Set<String>()
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { slugs.insert(String(text[range])) }
            }
        }
        XCTAssertGreaterThan(slugs.count, 20)
        let contract = try String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        for slug in slugs.sorted() {
            XCTAssertNotNil(ProblemCatalog.entries[slug], "\(slug) has no explanation")
            XCTAssertTrue(contract.contains("        - \(slug)\n"), "\(slug) is not in openapi.yaml's ProblemSlug")
        }
    }

    /// The problem examples in openapi.yaml carry the titles the server sends.
    func testTheContractsExamplesUseTheCatalogTitles() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let contract = try String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"type: /problems/([a-z-]+)\n\s+title: ([^\n]+)"#)
        let matches = pattern.matches(in: contract, range: NSRange(contract.startIndex..., in: contract))
        XCTAssertGreaterThan(matches.count, 10)
        for match in matches {
            guard let slug = Range(match.range(at: 1), in: contract), let title = Range(match.range(at: 2), in: contract) else { continue }
            XCTAssertEqual(String(contract[title]), ProblemCatalog.entries[String(contract[slug])]?.title, String(contract[slug]))
        }
    }

    /// RFC 9457 §3.1.3: a problem type's title does not change from occurrence to occurrence, so
    /// the engine's own refusals carry the title their `/problems/{slug}` page gives.
    func testTheEnginesRefusalsUseTheCatalogTitles() {
        for error in [HTTPParseError.badRequest(""), .requestTimeout(""), .bodyTooLarge(""), .uriTooLong(""),
                      .headersTooLarge(""), .versionNotSupported(""), .notImplemented(""), .tooManyConnections("")] {
            XCTAssertEqual(error.title, ProblemCatalog.entries[error.slug]?.title, error.slug)
        }
    }
}
