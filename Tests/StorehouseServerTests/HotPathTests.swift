import Foundation
import HTTPEngine
import StoreCore
@testable import StorehouseServer
import XCTest

/// The request path's shortcuts (byte routing, the remembered token, the shared state answer,
/// sharded metrics) must answer exactly what the plain versions answered.
final class HotPathTests: XCTestCase {
    func testRoutesFromPathBytesMatchTheSegmentRules() {
        let cases: [(String, Metrics.Route)] = [
            ("/healthz", .healthz), ("/readyz", .readyz), ("/metrics", .metrics), ("/kinds", .kinds), ("/sessions", .sessions),
            ("/sessions/abc", .session), ("/problems/x", .problems), ("/sessions/abc/state", .state),
            ("/sessions/abc/actions", .actions), ("/sessions/abc/events", .events),
            ("/", .other), ("", .other), ("*", .other), ("/healthz/", .other), ("//healthz", .other), ("/sessions/", .other),
            ("/problems/", .other), ("/sessions//state", .other), ("/sessions/abc/state/", .other), ("/sessions/abc/other", .other),
            ("/sessions/a/b/c", .other), ("/Healthz", .other), ("/healthzz", .other), ("/health", .other),
            ("x/healthz", .healthz),  // whatever precedes the first "/" is not a segment
        ]
        for (path, expected) in cases { XCTAssertEqual(Router.route(path), expected, path) }
    }

    func testRequestPathAndQueryFromTargetBytes() {
        let cases: [(String, String, String?)] = [
            ("/a/b?x=1", "/a/b", "x=1"), ("/a", "/a", nil), ("/a?", "/a", ""), ("?q", "/", "q"), ("*", "*", nil),
            ("http://h:1/z?q", "/z", "q"), ("http://h:1", "/", nil), ("http://h:1?q=2", "/", "q=2"), ("http://h/", "/", nil),
        ]
        for (target, path, query) in cases {
            var request = HTTPRequest(method: "GET", target: "/placeholder?x")
            request.target = target
            XCTAssertEqual(request.path, path, target)
            XCTAssertEqual(request.query, query, target)
            XCTAssertEqual(request.withPathBytes { String(decoding: $0, as: UTF8.self) }, path, target)
        }
    }

    func testBearerTokenRange() {
        func token(_ field: String) -> String? {
            var field = field
            return field.withUTF8 { bytes in Router.bearerToken(in: bytes).map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) } }
        }
        XCTAssertEqual(token("Bearer abc"), "abc")
        XCTAssertEqual(token("  bEaReR   abc \t "), "abc")
        XCTAssertEqual(token("Bearer \t"), "")
        XCTAssertNil(token("Bearer "))
        XCTAssertNil(token("Basic abc"))
        XCTAssertNil(token("Bearerabc"))
    }

    func testRememberedTokenNeverLetsAWrongOneIn() throws {
        let fixture = try ServerFixture()
        let a = try fixture.createSession()
        let b = try fixture.createSession()
        let client = try fixture.client()
        // Each session learns its own token, then every other token is still refused.
        XCTAssertEqual(try client.request("GET", "/sessions/\(a.id)/state", headers: bearer(a.token)).status, 200)
        XCTAssertEqual(try client.request("GET", "/sessions/\(b.id)/state", headers: bearer(b.token)).status, 200)
        // Same length, last character changed.
        let nearMiss = String(a.token.dropLast()) + (a.token.hasSuffix("A") ? "B" : "A")
        for _ in 0..<2 {
            XCTAssertEqual(try client.request("GET", "/sessions/\(a.id)/state", headers: bearer(b.token)).status, 401)
            XCTAssertEqual(try client.request("GET", "/sessions/\(b.id)/state", headers: bearer(a.token)).status, 401)
            XCTAssertEqual(try client.request("GET", "/sessions/\(a.id)/state", headers: bearer(nearMiss)).status, 401)
            XCTAssertEqual(try client.request("GET", "/sessions/\(a.id)/state", headers: bearer(a.token + "x")).status, 401)
            XCTAssertEqual(try client.request("GET", "/sessions/\(a.id)/state?access_token=\(b.token)").status, 401)
            XCTAssertEqual(try client.request("GET", "/sessions/\(a.id)/state?access_token=\(a.token)").status, 200)
            XCTAssertEqual(try client.request("POST", "/sessions/\(a.id)/actions", headers: bearer(a.token),
                                              body: #"{"type":"counter/incrTapped"}"#).status, 200)
        }
        // A deleted session is gone whatever token it learned.
        XCTAssertEqual(try client.request("DELETE", "/sessions/\(a.id)", headers: bearer(a.token)).status, 204)
        XCTAssertEqual(try client.request("GET", "/sessions/\(a.id)/state", headers: bearer(a.token)).status, 404)
        XCTAssertEqual(try client.request("GET", "/sessions/\(b.id)/state", headers: bearer(b.token)).status, 200)
    }

    func testWrongTokenFirstThenRightOne() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token + "x")).status, 401)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).status, 200)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token + "x")).status, 401)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: ["Authorization": "Bearer   "]).status, 401)
    }

    func testStateAnswerFollowsEveryVersion() throws {
        let fixture = try ServerFixture()
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        for version in 1...3 {
            let posted = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
            let read = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token))
            XCTAssertEqual(posted.text, read.text)
            XCTAssertEqual(read.json["version"] as? Int, version)
            XCTAssertEqual(read.header("ETag"), "\"\(version)\"")
            XCTAssertEqual((read.json["state"] as? [String: Any])?["count"] as? Int, version)
            XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state?version=\(version)", headers: bearer(token)).text, read.text)
        }
    }

    /// The head's answer is built from the one before (`JSONAnswer.state(reusing:)`), which keeps
    /// `{"version":N,"state":` when N has as many digits: every version answers exactly what an
    /// answer built anew does, across changes in the count of digits and back (a rollback), and an
    /// answer still held elsewhere (a GET being written) is left as it was.
    func testReusedStateAnswerMatchesOneBuiltAnew() {
        var previous: HTTPResponse?
        for version in [0, 7, 9, 10, 11, 99, 100, 101, 12, 9, 999_999, 1_000_000, 1_000_001] {
            let state = Array(#"{"count":\#(version * 3),"label":"\#(String(repeating: "x", count: version % 7))"}"#.utf8)
            let held = previous, heldText = previous.map { String(decoding: $0.body, as: UTF8.self) }
            let heldTag = previous?.headers["ETag"]
            let (answer, stateRange) = JSONAnswer.state(version: version, reusing: &previous, expectedStateBytes: 16) { $0 += state }
            let fresh = JSONAnswer.state(version: version, state: state)
            XCTAssertEqual(String(decoding: answer.body, as: UTF8.self), String(decoding: fresh.body, as: UTF8.self), "version \(version)")
            XCTAssertEqual(Array(answer.body[stateRange]), state, "version \(version)")
            XCTAssertEqual(answer.headers["ETag"], "\"\(version)\"")
            XCTAssertEqual(answer.headers["Content-Type"], "application/json")
            XCTAssertEqual(answer.headers["Vary"], "Origin")
            XCTAssertEqual(answer.headers.map { "\($0.name): \($0.value)" }, fresh.headers.map { "\($0.name): \($0.value)" }, "version \(version)")
            XCTAssertEqual(held.map { String(decoding: $0.body, as: UTF8.self) }, heldText, "version \(version)")
            XCTAssertEqual(held?.headers["ETag"], heldTag, "version \(version)")
            previous = answer
        }
    }

    func testMetricsFromSeveralThreadsAddUp() {
        let metrics = Metrics(gauges: { (0, 0) })
        let slot = metrics.actionSlot(kind: "counter", source: "effect")
        XCTAssertEqual(metrics.actionSlot(kind: "counter", source: "effect"), slot)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<250 {
                metrics.recordRequest(route: .actions, method: "POST", status: 200, seconds: 0.0001)
                metrics.recordRequest(route: .other, method: "BREW", status: 418, seconds: 10)
                metrics.recordActions(kind: "counter", source: "client", count: 2)
                if let slot { metrics.recordActions(slot: slot, count: 3) }
                // The same pair counted without its slot adds to the same line.
                metrics.recordActions(kind: "counter", source: "effect", count: 1)
            }
        }
        let text = metrics.render()
        for line in [#"storehouse_http_requests_total{route="/sessions/{id}/actions",method="POST",status="200"} 1000"#,
                     #"storehouse_http_requests_total{route="other",method="other",status="418"} 1000"#,
                     #"storehouse_actions_total{kind="counter",source="client"} 2000"#,
                     #"storehouse_actions_total{kind="counter",source="effect"} 4000"#,
                     #"storehouse_http_request_duration_seconds_bucket{route="/sessions/{id}/actions",le="0.0005"} 1000"#,
                     #"storehouse_http_request_duration_seconds_bucket{route="other",le="+Inf"} 1000"#,
                     #"storehouse_http_request_duration_seconds_count{route="other"} 1000"#] {
            XCTAssertTrue(text.contains(line + "\n"), "missing \(line) in\n\(text)")
        }
        XCTAssertEqual(Metrics.Route.allCases.map(\.index), Array(0..<Metrics.Route.allCases.count))
        // Past the slots, pairs are counted under the lock instead.
        let slots = (0..<Metrics.actionSlots + 1).map { metrics.actionSlot(kind: "k\($0)", source: "client") }
        XCTAssertEqual(slots.compactMap { $0 }.count, Metrics.actionSlots - 1)
        XCTAssertNil(slots.last ?? 0)
        for status in Metrics.commonStatuses { XCTAssertEqual(Metrics.statusSlot(status).map { Metrics.commonStatuses[$0] }, status) }
    }

    func testSingleActionReadsWhatTheGeneralPathReads() throws {
        let bodies = [
            #"{"type":"counter/incrTapped"}"#, #" {"type":"a","payload":{"x":[1,2]},"meta":"m"} "#,
            #"{"type":"a","payload":null,"meta":null}"#, #"{"type":"a","type":"b"}"#, #"{"t\u0079pe":"esc","other":[{}]}"#,
            #"{"payload":1,"type":"late"}"#,
        ]
        for body in bodies {
            let bytes = Array(body.utf8)
            guard case .object(let object) = try JSONReader.parse(bytes), case .string(let type)? = object["type"] else {
                return XCTFail("not an action: \(body)")
            }
            let expected = ActionRecord(type: type, payload: object["payload"].flatMap { $0 == .null ? nil : $0 },
                                        meta: object["meta"].flatMap { $0 == .null ? nil : $0 }, at: 7, source: .client)
            XCTAssertEqual(Router.singleAction(bytes, at: 7), expected, body)
        }
        // Everything else goes the general way, which names the problem.
        for body in ["", "[]", #"[{"type":"a"}]"#, #"{"type":1}"#, "{}", #"{"type":"a"} x"#, #"{"type":"a""#, #"{"type":"a",}"#, "null", #""s""#] {
            XCTAssertNil(Router.singleAction(Array(body.utf8), at: 0), body)
        }
    }
}
