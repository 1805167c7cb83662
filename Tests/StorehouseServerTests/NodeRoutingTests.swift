import Foundation
import XCTest
@testable import StorehouseServer

/// API.md "Cluster": `--node-id`, ids that name their node, 421 for another node's session.
final class NodeRoutingTests: XCTestCase {
    private static let random22 = "3q2-7wBqT0uX2mYw9bZ1Qg"

    func testNewIdsNameTheNodeAndWorkOnEveryRoute() throws {
        let fixture = try ServerFixture { $0.nodeID = "web-1" }
        let (id, token) = try fixture.createSession()
        XCTAssertTrue(id.hasPrefix("web-1."), id)
        let random = id.dropFirst("web-1.".count)
        XCTAssertEqual(random.count, 22, id)
        XCTAssertTrue(random.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }, id)

        let client = try fixture.client()
        let events = try TestClient(port: fixture.port)
        XCTAssertEqual(try events.openEvents("/sessions/\(id)/events", headers: bearer(token)).status, 200)
        var first = try events.nextEvent()
        while first.event == nil { first = try events.nextEvent() }   // `retry:` comes first
        XCTAssertEqual(first.event, "snapshot")
        try client.incrementCounter(id, token, times: 2)
        XCTAssertEqual(try events.nextEvent().id, "1")
        XCTAssertEqual(try events.nextEvent().id, "2")
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state?path=/count", headers: bearer(token)).text,
                       #"{"version":2,"path":"/count","value":2}"#)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["id"] as? String, id)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token)).status, 200)
        XCTAssertEqual(try client.request("OPTIONS", "/sessions/\(id)").status, 204)
        XCTAssertEqual(try client.request("DELETE", "/sessions/\(id)", headers: bearer(token)).status, 204)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).status, 404)
    }

    func testAnotherNodesSessionIs421NamingThatNodeOnEverySessionRoute() throws {
        let fixture = try ServerFixture { $0.nodeID = "web-1" }
        let (_, token) = try fixture.createSession()
        let client = try fixture.client()
        let other = "web-2.\(Self.random22)"
        for (method, path) in [("GET", ""), ("DELETE", ""), ("GET", "/state"), ("GET", "/actions"), ("POST", "/actions"),
                               ("GET", "/events"), ("HEAD", "/state"), ("OPTIONS", ""), ("OPTIONS", "/events")] {
            let response = try client.request(method, "/sessions/\(other)\(path)", headers: bearer(token),
                                              body: method == "POST" ? #"{"type":"counter/incrTapped"}"# : nil)
            XCTAssertEqual(response.status, 421, "\(method) \(path): \(response.text)")
            XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
            guard method != "HEAD" else { continue }
            XCTAssertEqual(response.json["type"] as? String, "/problems/misdirected-request")
            XCTAssertEqual(response.json["node"] as? String, "web-2", response.text)
        }
        // A method no node serves there is 405 wherever it is sent.
        XCTAssertEqual(try client.request("PUT", "/sessions/\(other)/state", headers: bearer(token)).status, 405)
        // The catalogue explains the slug.
        XCTAssertEqual(try client.request("GET", "/problems/misdirected-request").status, 200)
    }

    func testAServerWithoutNodeIdSendsDottedIdsTo421Too() throws {
        let fixture = try ServerFixture()
        let response = try fixture.client().request("GET", "/sessions/web-2.\(Self.random22)/state", headers: bearer("x"))
        XCTAssertEqual(response.status, 421, response.text)
        XCTAssertEqual(response.json["node"] as? String, "web-2")
        let (id, _) = try fixture.createSession()
        XCTAssertFalse(id.contains("."), id)
    }

    /// The id pattern and the misdirection check read the string's bytes; a substring (a slice of
    /// a path) reads the same as a whole string.
    func testIdPatternAndMisdirectionOnStringsAndSubstrings() {
        let valid = [Self.random22, "web-1.\(Self.random22)", "a", "0.x", String(repeating: "a", count: 64)]
        let invalid = ["", ".", "..", ".a", "a.", "a..b", "a.b.c", "a/b", "Web-1.x", "-x.y", "a b", String(repeating: "a", count: 65),
                       String(repeating: "a", count: 33) + ".x"]
        for id in valid {
            XCTAssertTrue(Secrets.isWellFormedID(id), id)
            XCTAssertTrue(Secrets.isWellFormedID(("/" + id + "/")[...].dropFirst().dropLast()), id)
        }
        for id in invalid { XCTAssertFalse(Secrets.isWellFormedID(id), id) }
        // The alphabet, byte by byte: base64url (RFC 4648 §5) and nothing else, non-ASCII included.
        for c in UInt8(0)...UInt8(127) where c != UInt8(ascii: ".") {
            let base64URL = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
            XCTAssertEqual(Secrets.isWellFormedID(String(decoding: [0x61, c], as: UTF8.self)), base64URL, "byte \(c)")
        }
        XCTAssertFalse(Secrets.isWellFormedID("aé"))
        let routing = NodeRouting(node: "web-1")
        XCTAssertEqual(routing.misdirection(for: "web-2.\(Self.random22)")?.status, 421)
        XCTAssertNil(routing.misdirection(for: "web-1.\(Self.random22)"))
        XCTAssertNil(routing.misdirection(for: Self.random22))
        XCTAssertNil(routing.misdirection(for: "web-2.\(Self.random22)x"))
        XCTAssertEqual(NodeRouting(node: nil).misdirection(for: "w.\(Self.random22)")?.status, 421)
    }

    func testAnIdWhoseNodePartCannotBeANodeIsNotFound() throws {
        let fixture = try ServerFixture { $0.nodeID = "web-1" }
        let client = try fixture.client()
        for id in ["Web-2.\(Self.random22)", "-x.\(Self.random22)", "web-2.", ".\(Self.random22)", "a.b.\(Self.random22)",
                   "web-2.abc", "web-2.\(Self.random22)x"] {
            let response = try client.request("GET", "/sessions/\(id)/state", headers: bearer("x"))
            XCTAssertEqual(response.status, 404, "\(id): \(response.text)")
            XCTAssertEqual(response.json["type"] as? String, "/problems/session-not-found", id)
        }
        // This node's own prefix with an id it does not hold is an ordinary 404.
        XCTAssertEqual(try client.request("GET", "/sessions/web-1.\(Self.random22)", headers: bearer("x")).status, 404)
    }

    /// Sessions created before the node had an id keep their ids and keep working beside new ones;
    /// both survive a restart (the journal's file names hold the dot).
    func testSessionsFromBeforeTheNodeIdAndAfterItSurviveRestarts() throws {
        let directory = temporaryDirectory()
        var old = (id: "", token: ""), new = (id: "", token: "")
        do {
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
            old = try fixture.createSession()
            try fixture.client().incrementCounter(old.id, old.token, times: 1)
            fixture.server.shutdown()
        }
        do {
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory; $0.nodeID = "web-1" }
            new = try fixture.createSession()
            XCTAssertTrue(new.id.hasPrefix("web-1."), new.id)
            let client = try fixture.client()
            try client.incrementCounter(old.id, old.token, times: 1)
            try client.incrementCounter(new.id, new.token, times: 3)
            fixture.server.shutdown()
        }
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory; $0.nodeID = "web-1" }
        let client = try fixture.client()
        XCTAssertEqual(try client.request("GET", "/sessions/\(old.id)/state?path=/count", headers: bearer(old.token)).text,
                       #"{"version":2,"path":"/count","value":2}"#)
        XCTAssertEqual(try client.request("GET", "/sessions/\(new.id)/state?path=/count", headers: bearer(new.token)).text,
                       #"{"version":3,"path":"/count","value":3}"#)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        XCTAssertTrue(files.contains { $0.hasPrefix(new.id + ".") }, "\(files)")
    }

    func testNodeIdFlagAndVariable() throws {
        guard case .serve(let flag) = try ServerConfiguration.parse(arguments: ["--node-id", "storehouse-0"], environment: ["STOREHOUSE_NODE_ID": "x"]) else { return XCTFail() }
        XCTAssertEqual(flag.nodeID, "storehouse-0")
        guard case .serve(let variable) = try ServerConfiguration.parse(arguments: [], environment: ["STOREHOUSE_NODE_ID": "n1"]) else { return XCTFail() }
        XCTAssertEqual(variable.nodeID, "n1")
        guard case .serve(let none) = try ServerConfiguration.parse(arguments: [], environment: [:]) else { return XCTFail() }
        XCTAssertNil(none.nodeID)
        XCTAssertTrue(ServerConfiguration.helpText.contains("--node-id"))
        XCTAssertTrue(ServerConfiguration.helpText.contains("STOREHOUSE_NODE_ID"))
        for bad in ["", "Web", "-a", "a_b", "a.b", String(repeating: "a", count: 33), "ü"] {
            XCTAssertThrowsError(try ServerConfiguration.parse(arguments: ["--node-id", bad], environment: [:]), bad) { error in
                XCTAssertTrue("\(error)".hasPrefix("--node-id: "), "\(error)")
                XCTAssertFalse("\(error)".contains("\n"))
            }
        }
        XCTAssertThrowsError(try ServerConfiguration.parse(arguments: [], environment: ["STOREHOUSE_NODE_ID": "A"])) { error in
            XCTAssertTrue("\(error)".hasPrefix("STOREHOUSE_NODE_ID (--node-id):"), "\(error)")
        }
        XCTAssertNoThrow(try ServerConfiguration.parse(arguments: ["--node-id", String(repeating: "a", count: 32)], environment: [:]))
    }
}
