import Foundation
import XCTest
@testable import StorehouseServer

/// Browsers on another origin: preflight, CORS headers on answers and on the event stream.
final class CORSTests: XCTestCase {
    private let origin = ["Origin": "https://app.example"]

    func testPreflightNamesMethodsAndHeadersAndNeedsNoToken() throws {
        let fixture = try ServerFixture()
        let (id, _) = try fixture.createSession()
        let answer = try fixture.client().request("OPTIONS", "/sessions/\(id)/actions", headers: origin.merging([
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
        ]) { $1 })
        XCTAssertEqual(answer.status, 204)
        // Once: two lines are "*, *" to a browser, which then refuses the preflight (Fetch §3.2.5).
        XCTAssertEqual(answer.headers.filter { $0.0.lowercased() == "access-control-allow-origin" }.map(\.1), ["*"])
        XCTAssertEqual(answer.header("Access-Control-Allow-Methods"), "GET, HEAD, POST, OPTIONS")
        let allowed = answer.header("Access-Control-Allow-Headers") ?? ""
        for name in ["Authorization", "Content-Type", "Idempotency-Key", "If-Match", "Prefer", "Last-Event-ID"] {
            XCTAssertTrue(allowed.contains(name), "\(name) in \(allowed)")
        }
        XCTAssertEqual(answer.header("Access-Control-Max-Age"), "600")
        XCTAssertEqual(answer.header("Allow"), "GET, HEAD, POST, OPTIONS")
    }

    func testPlainOptionsListsTheMethodsWithoutCORSHeaders() throws {
        let fixture = try ServerFixture()
        let answer = try fixture.client().request("OPTIONS", "/sessions")
        XCTAssertEqual(answer.status, 204)
        XCTAssertEqual(answer.header("Allow"), "GET, HEAD, POST, OPTIONS")
        XCTAssertNil(answer.header("Access-Control-Allow-Origin"))
        XCTAssertEqual(try fixture.client().request("OPTIONS", "/nope").status, 404)
        XCTAssertEqual(try fixture.client().request("OPTIONS", "/sessions/not-an-id/actions").status, 404)
        let (id, token) = try fixture.createSession()
        XCTAssertEqual(try fixture.client().request("OPTIONS", "/sessions/\(id)/events").status, 204)
        XCTAssertEqual(try fixture.client().request("DELETE", "/sessions/\(id)", headers: bearer(token)).status, 204)
        XCTAssertEqual(try fixture.client().request("OPTIONS", "/sessions/\(id)/events").status, 404, "a deleted session is gone for OPTIONS too")
        XCTAssertEqual(try fixture.client().request("OPTIONS", "/problems/no-such-slug").status, 404)
        XCTAssertEqual(try fixture.client().request("OPTIONS", "/problems/not-found").status, 204)
    }

    func testAnswersToABrowserCarryTheHeadersAndOthersDoNot() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        let fromPage = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(origin) { $1 },
                                          body: #"{"type":"counter/incrTapped"}"#)
        XCTAssertEqual(fromPage.status, 200)
        XCTAssertEqual(fromPage.header("Access-Control-Allow-Origin"), "*")
        XCTAssertTrue(fromPage.header("Access-Control-Expose-Headers")?.contains("ETag") ?? false)
        // Refusals too: a page must be able to read the problem document.
        let refused = try client.request("GET", "/sessions/\(id)/state", headers: origin)
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(refused.header("Access-Control-Allow-Origin"), "*")
        let fromCurl = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertNil(fromCurl.header("Access-Control-Allow-Origin"))
    }

    func testRefusalsOfTheHTTPLayerCarryTheHeadersToo() throws {
        // Refused before any route saw them: a page must still be able to read why.
        let fixture = try ServerFixture { $0.maxBodyBytes = 64 }
        let tooLarge = try fixture.client()
        try tooLarge.sendRaw("POST /sessions HTTP/1.1\r\nHost: x\r\nOrigin: https://app.example\r\nContent-Length: 100000\r\n\r\n")
        let answer = try tooLarge.readResponse(method: "POST")
        XCTAssertEqual(answer.status, 413)
        XCTAssertEqual(answer.header("Access-Control-Allow-Origin"), "*")
        let malformed = try fixture.client()
        try malformed.sendRaw("GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\nOrigin: https://app.example\r\n\r\n")
        let bad = try malformed.readResponse()
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(bad.header("Access-Control-Allow-Origin"), "*")
        let fromCurl = try fixture.client()
        try fromCurl.sendRaw("GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n")
        XCTAssertNil(try fromCurl.readResponse().header("Access-Control-Allow-Origin"))
        // Refused at the request line, before any header was read: the headers go on every such answer.
        for (line, status) in [("GET /\(String(repeating: "a", count: 9_000)) HTTP/1.1", 414), ("GET / HTTP/2.0", 505), ("GET  / HTTP/1.1", 400)] {
            let early = try fixture.client()
            try early.sendRaw("\(line)\r\nHost: x\r\nOrigin: https://app.example\r\n\r\n")
            let answer = try early.readResponse()
            XCTAssertEqual(answer.status, status)
            XCTAssertEqual(answer.header("Access-Control-Allow-Origin"), "*", line.prefix(20).description)
        }
    }

    func testTheEventStreamCarriesTheHeaders() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let events = try fixture.client()
        let head = try events.openEvents("/sessions/\(id)/events?access_token=\(token)", headers: origin)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Access-Control-Allow-Origin"), "*")
    }
}

/// What caches and early refusals need: `Vary: Origin`, and CORS headers on a 431.
final class CORSVaryTests: XCTestCase {
    func testAnswersWhoseHeadersDependOnOriginSayVaryOrigin() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        for headers in [bearer(token), bearer(token).merging(["Origin": "https://app.example"]) { $1 }] {
            let answer = try client.request("GET", "/sessions/\(id)/state", headers: headers)
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.headers.filter { $0.0.lowercased() == "vary" }.map(\.1), ["Origin"], "\(headers)")
        }
        let events = try fixture.client()
        let head = try events.openEvents("/sessions/\(id)/events?access_token=\(token)")
        XCTAssertEqual(head.header("Vary"), "Origin")
    }

    func testA431BeforeOriginWasReadCarriesTheHeaders() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        // Too many fields: refused on the 101st, before the Origin that follows them.
        let fields = (0..<120).map { "X-\($0): v\r\n" }.joined()
        try client.sendRaw("GET /healthz HTTP/1.1\r\nHost: x\r\n\(fields)Origin: https://app.example\r\n\r\n")
        let answer = try client.readResponse()
        XCTAssertEqual(answer.status, 431)
        XCTAssertEqual(answer.header("Access-Control-Allow-Origin"), "*")
    }
}
