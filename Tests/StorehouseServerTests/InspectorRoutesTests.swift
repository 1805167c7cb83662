import XCTest
@testable import StorehouseServer

/// API.md "Inspector and browser client": what `/`, `/inspect` and `/client.js` answer over HTTP.
/// The pages' behaviour in a browser is `scripts/browser-test.sh`'s (headless Chromium).
final class InspectorRoutesTests: XCTestCase {
    func testRootAnswersJSONToProgramsAndHTMLToBrowsers() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        for accept in [nil, "*/*", "application/json", "text/html;q=0.5, application/json"] {
            let answer = try client.request("GET", "/", headers: accept.map { ["Accept": $0] } ?? [:])
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.header("Content-Type"), "application/json", "Accept: \(accept ?? "none")")
            XCTAssertEqual(answer.json["name"] as? String, "storehouse")
            XCTAssertEqual(answer.json["version"] as? String, ServerInfo.version)
            let links = try XCTUnwrap(answer.json["links"] as? [String: String])
            XCTAssertEqual(links["inspector"], "/inspect")
            XCTAssertEqual(links["client"], "/client.js")
            XCTAssertEqual(answer.header("Vary"), "Accept")
        }
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
        let page = try client.request("GET", "/", headers: ["Accept": browser])
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.header("Content-Type"), "text/html; charset=utf-8")
        XCTAssertEqual(page.header("Vary"), "Accept")
        XCTAssertNotNil(page.header("Content-Security-Policy"))
        for kind in ["counter", "shop", "tasks", "login"] {
            XCTAssertTrue(page.text.contains("<h3>\(kind)</h3>"), kind)
            XCTAssertTrue(page.text.contains(#"href="/inspect#new=\#(kind)""#), kind)
        }
        XCTAssertTrue(page.text.contains(#"href="/inspect""#))
        XCTAssertTrue(page.text.contains("<code>counter/nthPrimeResponse</code>"), "effects' actions are named as such")
    }

    func testTheHomePageListsTheKindsOfTheKindsAnswer() {
        let body = Array(#"{"kinds":[{"name":"b<i>","actionTypes":["b/x"],"internalActionTypes":[],"initialState":{}},{"name":"a","actionTypes":[]}]}"#.utf8)
        let kinds = HomePage.kinds(fromKindsBody: body)
        XCTAssertEqual(kinds, [.init(name: "b<i>", actionTypes: ["b/x"], internalActionTypes: []),
                               .init(name: "a", actionTypes: [], internalActionTypes: [])])
        let page = HomePage.page(kinds: kinds)
        XCTAssertTrue(page.contains("<h3>b&lt;i&gt;</h3>"), "a kind's name is escaped")
        XCTAssertLessThan(try XCTUnwrap(page.range(of: "<h3>b&lt;i&gt;</h3>")).lowerBound, try XCTUnwrap(page.range(of: "<h3>a</h3>")).lowerBound)
    }

    func testTheInspectorIsOneSelfContainedPageUnderAStrictPolicy() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        let page = try client.request("GET", "/inspect")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.header("Content-Type"), "text/html; charset=utf-8")
        let policy = try XCTUnwrap(page.header("Content-Security-Policy"))
        XCTAssertTrue(policy.hasPrefix("default-src 'none'"), policy)
        for directive in ["script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"] {
            XCTAssertTrue(policy.contains(directive), directive)
        }
        XCTAssertFalse(policy.contains("unsafe"), policy)
        XCTAssertEqual(page.header("X-Content-Type-Options"), "nosniff")
        // Nothing inline for the policy to refuse, and nothing from another origin.
        XCTAssertFalse(page.text.contains("<style"))
        XCTAssertFalse(page.text.contains(" style="))
        XCTAssertFalse(page.text.contains("<script>"))
        XCTAssertFalse(page.text.contains("http://") || page.text.contains("https://") || page.text.contains("src=\"//"))
        // The elements the contract names.
        for element in [#"id="status""#, #"id="version""#, #"id="state""#, #"id="log""#, #"id="dispatch""#,
                        #"select name="type""#, #"textarea name="payload""#, #"type="submit""#] {
            XCTAssertTrue(page.text.contains(element), element)
        }
        for (path, type) in [("/inspect.js", "text/javascript; charset=utf-8"), ("/client.js", "text/javascript; charset=utf-8"),
                             ("/inspect.css", "text/css; charset=utf-8"), ("/favicon.svg", "image/svg+xml")] {
            let asset = try client.request("GET", path)
            XCTAssertEqual(asset.status, 200, path)
            XCTAssertEqual(asset.header("Content-Type"), type, path)
            // The icon's one URL is its XML namespace, a name rather than a load.
            let urls = asset.text.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
            XCTAssertFalse(urls.contains("http://") || urls.contains("https://"), path)
        }
    }

    func testTheClientModuleExportsConnectAndAnyOriginMayImportIt() throws {
        let fixture = try ServerFixture()
        let module = try fixture.client().request("GET", "/client.js", headers: ["Origin": "https://app.example"])
        XCTAssertEqual(module.status, 200)
        XCTAssertEqual(module.header("Access-Control-Allow-Origin"), "*")
        for export in ["export function connect(base, id, token, onChange", "export function applyPatch(", "export function diff(",
                       "export class StorehouseError", "Last-Event-ID"] {
            XCTAssertTrue(module.text.contains(export), export)
        }
        let script = try fixture.client().request("GET", "/inspect.js")
        XCTAssertTrue(script.text.contains(#"from "/client.js""#), "the inspector is built on the client module")
    }

    func testAssetsRevalidateWithTheirEntityTag() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        let first = try client.request("GET", "/client.js")
        let tag = try XCTUnwrap(first.header("ETag"))
        XCTAssertEqual(first.header("Cache-Control"), "no-cache")
        let again = try client.request("GET", "/client.js", headers: ["If-None-Match": "\"x\", W/\(tag)"])
        XCTAssertEqual(again.status, 304)
        XCTAssertTrue(again.body.isEmpty)
        XCTAssertEqual(try client.request("GET", "/client.js", headers: ["If-None-Match": "\"other\""]).status, 200)
        // HTML and JSON at `/` are different bytes, so different tags.
        let json = try client.request("GET", "/")
        let html = try client.request("GET", "/", headers: ["Accept": "text/html"])
        XCTAssertNotEqual(json.header("ETag"), html.header("ETag"))
        let page = try client.request("GET", "/inspect")
        let head = try client.request("HEAD", "/inspect")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), String(page.body.count))
        XCTAssertEqual(head.header("ETag"), page.header("ETag"))
    }

    func testOtherMethodsQueriesAndUnknownPaths() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        let post = try client.request("POST", "/inspect", body: "{}")
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.header("Allow"), "GET, HEAD, OPTIONS")
        XCTAssertEqual(post.json["type"] as? String, "/problems/method-not-allowed")
        let options = try client.request("OPTIONS", "/client.js")
        XCTAssertEqual(options.status, 204)
        XCTAssertEqual(options.header("Allow"), "GET, HEAD, OPTIONS")
        // A token put in the query instead of the fragment is refused, not served into a log.
        let query = try client.request("GET", "/inspect?token=abc")
        XCTAssertEqual(query.status, 400)
        XCTAssertEqual(query.json["type"] as? String, "/problems/unknown-parameter")
        XCTAssertTrue((query.json["detail"] as? String ?? "").contains("'token'"), query.text)
        for path in ["/inspect/", "/inspect.html", "/client", "/index.html"] {
            XCTAssertEqual(try client.request("GET", path).status, 404, path)
        }
    }
}
