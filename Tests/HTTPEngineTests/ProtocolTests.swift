import XCTest
import Synchronization
import Glibc
@testable import HTTPEngine

/// RFC 9112 behaviour over raw sockets, one rule per test.
final class ProtocolTests: XCTestCase {
    var server: HTTPServer?

    override func tearDown() {
        server?.shutdown()
        server?.waitUntilStopped()
        server = nil
    }

    func start(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
               handler: @escaping @Sendable (HTTPRequest, HTTPResponder) -> Void = echoHandler) throws -> Int {
        let s = try startServer(configure, handler: handler)
        server = s
        return s.port
    }

    func testKeepAliveIsDefaultInHTTP11() throws {
        let client = try RawClient(port: try start())
        for i in 0..<3 {
            client.send("GET /k\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
            let r = try XCTUnwrap(client.readResponse())
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r.text, "path=/k\(i)")
            XCTAssertNil(r.header("Connection"))
        }
    }

    func testConnectionCloseTokenInListClosesAfterAnswer() throws {
        let client = try RawClient(port: try start())
        client.send("GET / HTTP/1.1\r\nHost: t\r\nConnection: foo, CLOSE\r\n\r\n")
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(r.header("Connection"), "close")
        XCTAssertTrue(client.isClosedByPeer())
    }

    func testHTTP10ClosesUnlessKeepAliveAsked() throws {
        let port = try start()
        let plain = try RawClient(port: port)
        plain.send("GET / HTTP/1.0\r\n\r\n")
        XCTAssertEqual(plain.readResponse()?.header("Connection"), "close")
        XCTAssertTrue(plain.isClosedByPeer())

        let keep = try RawClient(port: port)
        keep.send("GET /1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        XCTAssertEqual(keep.readResponse()?.header("Connection"), "keep-alive")
        keep.send("GET /2 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        XCTAssertEqual(keep.readResponse()?.text, "path=/2")
    }

    func testPipelinedRequestsAnsweredInOrderEvenWhenAsync() throws {
        // Odd requests answer from another thread after a delay, even ones at once: order must hold.
        let port = try start(handler: { request, responder in
            let n = Int(request.path.dropFirst()) ?? 0
            let response = HTTPResponse(status: 200, body: Array("r\(n)".utf8))
            if n % 2 == 1 {
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { responder.respond(response) }
            } else {
                responder.respond(response)
            }
        })
        let client = try RawClient(port: port)
        client.send((0..<10).map { "GET /\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
        for i in 0..<10 { XCTAssertEqual(client.readResponse()?.text, "r\(i)") }
    }

    func testContentLengthBody() throws {
        let client = try RawClient(port: try start())
        client.send("POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello")
        client.send(" world")
        XCTAssertEqual(client.readResponse()?.text, "hello world")
    }

    func testChunkedBodyWithExtensionsAndTrailers() throws {
        let client = try RawClient(port: try start())
        client.send("POST /e HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n4\r\ndefg\r\n0\r\nX-Trailer: yes\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.text, "abcdefg")
    }

    func testExpectContinueGets100BeforeBody() throws {
        let client = try RawClient(port: try start())
        client.send("POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(interim.status, 100)
        client.send("body")
        let final = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(final.status, 200)
        XCTAssertEqual(final.text, "body")
    }

    /// Refuses from its head any request to /denied that waits for 100 Continue; echoes the rest.
    struct GateHandler: HTTPHandler {
        func handle(_ request: HTTPRequest, _ responder: HTTPResponder) { echoHandler(request, responder) }

        func handleExpectation(_ head: HTTPRequest, _ responder: HTTPResponder) -> Bool {
            if head.path == "/answered-anyway" {
                // Breaks the contract (answers, then says it did not): still a refusal.
                responder.respond(HTTPResponse(status: 409, headers: [:], body: []))
                return false
            }
            guard head.path == "/denied" else { return false }
            let who = head.headers["X-Who"] ?? "-"
            responder.respond(HTTPResponse(status: 403, headers: ["Content-Type": "text/plain"], body: Array("no \(head.method) for \(who)".utf8)))
            return true
        }
    }

    func startGate() throws -> Int {
        var config = HTTPServerConfiguration()
        config.port = 0
        let s = HTTPServer(configuration: config, handler: GateHandler())
        try s.start()
        server = s
        return s.port
    }

    func testExpectContinueRefusedFromHeadGetsTheAnswerInsteadOf100AndCloses() throws {
        let client = try RawClient(port: try startGate())
        client.send("POST /denied HTTP/1.1\r\nHost: t\r\nX-Who: ann\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(r.status, 403)
        XCTAssertEqual(r.text, "no POST for ann")
        // The body was never read, so the connection cannot carry another request (RFC 9112 §9.6).
        XCTAssertEqual(r.header("Connection"), "close")
        XCTAssertTrue(client.isClosedByPeer())
    }

    func testExpectContinueRefusedFromHeadWhileTheBodyIsAlreadyOnItsWay() throws {
        let client = try RawClient(port: try startGate())
        // A client that did not wait for the 100 (RFC 9110 §10.1.1 allows it): one answer, no 100.
        client.send("POST /denied HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\nbodyGET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(r.status, 403)
        XCTAssertTrue(client.isClosedByPeer())
    }

    func testExpectContinueAnsweredByAHandlerThatReturnsFalseGetsNo100AfterTheAnswer() throws {
        let client = try RawClient(port: try startGate())
        client.send("POST /answered-anyway HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.status, 409)
        XCTAssertTrue(client.isClosedByPeer(), "nothing after the final answer, no 100 Continue")
    }

    func testExpectContinueNotRefusedGets100AndTheConnectionGoesOn() throws {
        let client = try RawClient(port: try startGate())
        for i in 0..<2 {
            client.send("POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            XCTAssertEqual(client.readResponse()?.status, 100)
            client.send("bod\(i)")
            let r = try XCTUnwrap(client.readResponse())
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r.text, "bod\(i)")
            XCTAssertNil(r.header("Connection"))
        }
    }

    func testExpectContinueWithTooLargeBodyGets413AtOnce() throws {
        let client = try RawClient(port: try start { $0.maxBodyBytes = 100 })
        client.send("POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n")
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(r.status, 413)
        XCTAssertEqual(r.header("Connection"), "close")
    }

    func testExpectContinueIgnoredInHTTP10() throws {
        let client = try RawClient(port: try start())
        client.send("POST /e HTTP/1.0\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nok")
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.text, "ok")
    }

    func testNoContentLengthOn204Or304AndTheConnectionGoesOn() throws {
        let client = try RawClient(port: try start(handler: { request, responder in
            switch request.path {
            case "/204": responder.respond(HTTPResponse(status: 204, headers: [:], body: []))
            case "/304": responder.respond(HTTPResponse(status: 304, headers: ["ETag": "\"7\""], body: []))
            default: echoHandler(request, responder)
            }
        }))
        // RFC 9110 §8.6: never in a 204; in a 304 only as the 200's length, which the engine does not know.
        for status in [204, 304] {
            client.send("GET /\(status) HTTP/1.1\r\nHost: t\r\n\r\n")
            let r = try XCTUnwrap(client.readResponse())
            XCTAssertEqual(r.status, status)
            XCTAssertNil(r.header("Content-Length"), "\(status)")
        }
        client.send("GET /after HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.text, "path=/after")
    }

    func testHeadKeepsContentLengthDropsBody() throws {
        let client = try RawClient(port: try start())
        client.send("HEAD /abc HTTP/1.1\r\nHost: t\r\n\r\nGET /abc HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try XCTUnwrap(client.readResponse(head: true))
        XCTAssertEqual(head.header("Content-Length"), "\("path=/abc".utf8.count)")
        // The next bytes must be the GET's answer, proving no body followed the HEAD answer.
        XCTAssertEqual(client.readResponse()?.text, "path=/abc")
    }

    func testDateAndContentLengthOnEveryResponse() throws {
        let client = try RawClient(port: try start(handler: { _, responder in responder.respond(HTTPResponse(status: 201)) }))
        client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(r.header("Content-Length"), "0")
        let date = try XCTUnwrap(r.header("Date"))
        XCTAssertTrue(date.hasSuffix(" GMT") && date.count == 29, date)
    }

    func testHandlerHeadersCannotOverrideFramingOrSplitResponse() throws {
        let client = try RawClient(port: try start(handler: { _, responder in
            responder.respond(HTTPResponse(status: 200, headers: ["Content-Length": "999", "X-Evil": "a\r\nSet-Cookie: x", "X-Good": "ok"], body: Array("hi".utf8)))
        }))
        client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(r.header("Content-Length"), "2")
        XCTAssertNil(r.header("X-Evil"))
        XCTAssertNil(r.header("Set-Cookie"))
        XCTAssertEqual(r.header("X-Good"), "ok")
    }

    func testHalfClosedClientStillGetsAnswer() throws {
        let port = try start(handler: { request, responder in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(30)) {
                responder.respond(HTTPResponse(status: 200, body: Array("late".utf8)))
            }
        })
        let client = try RawClient(port: port)
        client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        client.shutdownWrite()
        XCTAssertEqual(client.readResponse()?.text, "late")
        XCTAssertTrue(client.isClosedByPeer())
    }

    func testResponderDroppedWithoutAnswerGives500() throws {
        let client = try RawClient(port: try start(handler: { _, _ in }))
        client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.status, 500)
    }

    func testLargeBodyEchoLeavesIntact() throws {
        let client = try RawClient(port: try start())
        let body = (0..<(900 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        client.send(Array("POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
        XCTAssertEqual(client.readResponse()?.body, body)
    }

    /// With Nagle on, or head and body in separate writes, each exchange would wait ~40 ms for the
    /// client's delayed ACK: 200 sequential requests would take ~8 s instead of well under one.
    func testSequentialKeepAliveExchangesAreNotDelayed() throws {
        let client = try RawClient(port: try start())
        let started = Date()
        for i in 0..<200 {
            client.send("POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nx\(i % 10)y")
            XCTAssertEqual(client.readResponse()?.text, "x\(i % 10)y")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.0)
    }

    func testSoftDescriptorLimitRaisedToHard() throws {
        _ = try start()
        var limit = rlimit()
        getrlimit(Syscalls.RLIMIT_NOFILE_VALUE, &limit)
        XCTAssertEqual(limit.rlim_cur, limit.rlim_max)
    }

    func testManyConnectionsAtOnce() throws {
        try manyConnections(port: try start())
    }

    func testManyConnectionsWithSingleAcceptorHandOff() throws {
        try manyConnections(port: try start { $0.reusePortListeners = false; $0.ioThreads = 3 })
    }

    func manyConnections(port: Int) throws {
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 64) { worker in
            guard let client = try? RawClient(port: port) else { failures.add(1, ordering: .relaxed); return }
            for i in 0..<25 {
                client.send("GET /w\(worker)-\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
                if client.readResponse()?.text != "path=/w\(worker)-\(i)" { failures.add(1, ordering: .relaxed) }
            }
        }
        XCTAssertEqual(failures.load(ordering: .relaxed), 0)
    }
}
