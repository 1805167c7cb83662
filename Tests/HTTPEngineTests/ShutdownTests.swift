import XCTest
import Synchronization
@testable import HTTPEngine

/// Graceful shutdown: stop accepting, finish in flight, end streams, close idle, exit within the grace.
final class ShutdownTests: XCTestCase {
    func testGracefulShutdownFinishesInFlightEndsStreamsClosesIdle() throws {
        let inFlight = expectation(description: "slow request arrived")
        let server = try startServer({ $0.shutdownGrace = .seconds(5) }, handler: { request, responder in
            switch request.path {
            case "/slow":
                inFlight.fulfill()
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) {
                    responder.respond(HTTPResponse(status: 200, body: Array("done".utf8)))
                }
            case "/stream":
                let stream = responder.startStream(status: 200, headers: [:])
                stream.onShutdown {
                    stream.write(Array("event: end\n\n".utf8))
                    stream.finish()
                }
            default:
                echoHandler(request, responder)
            }
        })
        let idle = try RawClient(port: server.port)
        idle.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(idle.readResponse()?.status, 200)
        let streaming = try RawClient(port: server.port)
        streaming.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertNotNil(streaming.readResponse(head: true))
        let slow = try RawClient(port: server.port)
        slow.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        wait(for: [inFlight], timeout: 5)

        let started = Date()
        server.shutdown()
        XCTAssertTrue(idle.isClosedByPeer())
        XCTAssertEqual(streaming.readChunk().map { String(decoding: $0, as: UTF8.self) }, "event: end\n\n")
        let answer = try XCTUnwrap(slow.readResponse())
        XCTAssertEqual(answer.text, "done")
        XCTAssertEqual(answer.header("Connection"), "close")
        XCTAssertTrue(slow.isClosedByPeer())
        slow.abort()   // a client closes once told to; the server stops lingering at its FIN
        server.waitUntilStopped()
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        XCTAssertThrowsError(try RawClient(port: server.port), "no longer accepting")
    }

    func testGraceBoundsAStuckRequest() throws {
        let server = try startServer({ $0.shutdownGrace = .milliseconds(300) }, handler: { _, responder in
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(30)) { responder.respond(HTTPResponse(status: 200)) }
        })
        let client = try RawClient(port: server.port)
        client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(waitUntil { server.openConnections == 1 })
        let started = Date()
        server.shutdown()
        server.waitUntilStopped()
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertTrue(client.isClosedByPeer())
    }

    /// A request written before the shutdown, still unread in its socket because the loop was
    /// busy, is answered (with close) rather than reset by closing a socket with unread data.
    func testARequestUnreadAtShutdownIsAnsweredNotReset() throws {
        let busy = DispatchSemaphore(value: 0), blocking = expectation(description: "the loop is busy")
        let server = try startServer({ $0.ioThreads = 1; $0.shutdownGrace = .seconds(5) }, handler: { request, responder in
            if request.path == "/busy" {
                blocking.fulfill()
                _ = busy.wait(timeout: .now() + 10)  // holds the one loop thread
            }
            echoHandler(request, responder)
        })
        let waiting = try RawClient(port: server.port)
        waiting.send("GET /first HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(waiting.readResponse()?.status, 200, "accepted, and idle from here on")
        let holder = try RawClient(port: server.port)
        holder.send("GET /busy HTTP/1.1\r\nHost: t\r\n\r\n")
        wait(for: [blocking], timeout: 5)
        waiting.send("GET /second HTTP/1.1\r\nHost: t\r\n\r\n")  // the loop cannot read it yet
        server.shutdown()   // queued: the loop takes it before reading its sockets again
        busy.signal()
        let answer = try XCTUnwrap(waiting.readResponse(), "answered, not reset")
        XCTAssertEqual(answer.text, "path=/second")
        XCTAssertEqual(answer.header("Connection"), "close")
        waiting.abort()   // a client closes once told to; the server stops lingering at its FIN
        server.waitUntilStopped()
    }

    /// Refuses from its head a request to /refused whose body has not all arrived; /busy holds
    /// the loop thread until `release` is signaled.
    struct DrainingHandler: HTTPHandler {
        var entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)

        func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
            if request.path == "/busy" {
                entered.signal()
                _ = release.wait(timeout: .now() + 10)
            }
            echoHandler(request, responder)
        }

        func handleExpectation(_ head: HTTPRequest, _ responder: HTTPResponder) -> Bool {
            guard head.path == "/refused" else { return false }
            responder.respond(HTTPResponse(status: 503, headers: ["Content-Type": "text/plain"], body: Array("draining".utf8)))
            return true
        }
    }

    /// A body still arriving at shutdown: the head alone is offered to the handler, which may
    /// refuse it at once; one it does not refuse is read to its end and answered.
    func testABodyStillArrivingAtShutdownIsRefusedFromItsHead() throws {
        var config = HTTPServerConfiguration()
        config.port = 0
        config.ioThreads = 1
        config.shutdownGrace = .seconds(5)
        let server = HTTPServer(configuration: config, handler: DrainingHandler())
        try server.start()
        let refused = try RawClient(port: server.port), kept = try RawClient(port: server.port)
        refused.send("POST /refused HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n12345")
        kept.send("POST /kept HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n12345")
        // A round trip on the same loop: the partial requests above, sent first, have been read.
        let probe = try RawClient(port: server.port)
        probe.send("GET /probe HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(probe.readResponse()?.status, 200)
        let started = Date()
        server.shutdown()
        let answer = try XCTUnwrap(refused.readResponse())
        XCTAssertEqual(answer.status, 503)
        XCTAssertEqual(answer.header("Connection"), "close")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "at once, not at the end of the grace period")
        kept.send("67890")
        let echoed = try XCTUnwrap(kept.readResponse())
        XCTAssertEqual(echoed.text, "1234567890")
        XCTAssertEqual(echoed.header("Connection"), "close")
        refused.abort()
        kept.abort()
        server.waitUntilStopped()
    }

    /// The head and part of a body, written to an idle connection while the loop was busy, are
    /// read at shutdown: the head is refused at once, not answered with EOF at the grace's end.
    func testABodyUnreadAtShutdownIsRefusedFromItsHead() throws {
        var config = HTTPServerConfiguration()
        config.port = 0
        config.ioThreads = 1
        config.shutdownGrace = .seconds(5)
        let handler = DrainingHandler()
        let server = HTTPServer(configuration: config, handler: handler)
        try server.start()
        let waiting = try RawClient(port: server.port)
        waiting.send("GET /first HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(waiting.readResponse()?.status, 200, "accepted, and idle from here on")
        let holder = try RawClient(port: server.port)
        holder.send("GET /busy HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(handler.entered.wait(timeout: .now() + 5), .success, "the loop is busy")
        waiting.send("POST /refused HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n12345")
        let started = Date()
        server.shutdown()
        handler.release.signal()
        let answer = try XCTUnwrap(waiting.readResponse())
        XCTAssertEqual(answer.status, 503)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "at once, not at the end of the grace period")
        waiting.abort()
        server.waitUntilStopped()
    }

    func testSIGTERMTriggersGracefulShutdown() throws {
        let server = try startServer(handler: echoHandler)
        server.shutdownOnTerminationSignals()
        kill(getpid(), SIGTERM)
        let stopped = expectation(description: "stopped")
        DispatchQueue.global().async {
            server.waitUntilStopped()
            stopped.fulfill()
        }
        wait(for: [stopped], timeout: 5)
        signal(SIGTERM, SIG_DFL)   // the test runner itself stays killable
        signal(SIGINT, SIG_DFL)
    }
}
