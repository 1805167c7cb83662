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
