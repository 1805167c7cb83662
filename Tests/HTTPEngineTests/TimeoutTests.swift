import XCTest
@testable import HTTPEngine

/// Deadlines: the pure timer with a fake clock, then each deadline once over a socket.
final class TimeoutTests: XCTestCase {
    let timeouts = ConnectionTimer.Timeouts(header: 100, idle: 1_000, body: 300, linger: 50)

    func testTimerPhasesWithFakeClock() {
        var timer = ConnectionTimer(now: 0)
        timer.enter(.idle, now: 0)
        XCTAssertEqual(timer.expired(now: 999, timeouts: timeouts), .none)
        XCTAssertEqual(timer.expired(now: 1_000, timeouts: timeouts), .close)
        timer.enter(.head, now: 500)
        XCTAssertEqual(timer.expired(now: 599, timeouts: timeouts), .none)
        XCTAssertEqual(timer.expired(now: 600, timeouts: timeouts), .requestTimeout)
        timer.enter(.head, now: 590)            // same phase: the clock does not restart (slowloris drip)
        XCTAssertEqual(timer.expired(now: 600, timeouts: timeouts), .requestTimeout)
        timer.enter(.body, now: 600)
        XCTAssertEqual(timer.expired(now: 899, timeouts: timeouts), .none)
        XCTAssertEqual(timer.expired(now: 900, timeouts: timeouts), .requestTimeout)
        timer.enter(.streaming, now: 900)
        XCTAssertEqual(timer.expired(now: 1_000_000, timeouts: timeouts), .none)
        timer.enter(.busy, now: 0)
        XCTAssertEqual(timer.expired(now: 1_000_000, timeouts: timeouts), .none)
        timer.enter(.writing, now: 0)
        timer.exchanged(now: 900)
        XCTAssertEqual(timer.expired(now: 1_899, timeouts: timeouts), .none)
        XCTAssertEqual(timer.expired(now: 1_900, timeouts: timeouts), .close)
        timer.enter(.lingering, now: 0)
        XCTAssertEqual(timer.expired(now: 50, timeouts: timeouts), .close)
    }

    var server: HTTPServer?

    override func tearDown() {
        server?.shutdown()
        server?.waitUntilStopped()
        server = nil
    }

    func start() throws -> Int {
        let s = try startServer({
            $0.headerTimeout = .milliseconds(200)
            $0.bodyTimeout = .milliseconds(200)
            $0.idleTimeout = .milliseconds(300)
        }, handler: { request, responder in
            if request.path == "/stream" {
                let stream = responder.startStream(status: 200, headers: ["Content-Type": "text/event-stream"])
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(700)) {
                    stream.write(Array("late".utf8))
                    stream.finish()
                }
            } else {
                echoHandler(request, responder)
            }
        })
        server = s
        return s.port
    }

    func testSlowHeaderBlockGets408() throws {
        let client = try RawClient(port: try start())
        client.send("GET / HTTP/1.1\r\nHost: t\r\n")   // never finished
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(r.status, 408)
        XCTAssertTrue(r.text.contains("/problems/request-timeout"))
        XCTAssertTrue(client.isClosedByPeer())
    }

    func testSlowBodyGets408() throws {
        let client = try RawClient(port: try start())
        client.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
        XCTAssertEqual(client.readResponse()?.status, 408)
    }

    func testIdleKeepAliveConnectionClosedSilently() throws {
        let client = try RawClient(port: try start())
        client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.status, 200)
        let started = Date()
        XCTAssertTrue(client.readToEOF().isEmpty, "closed without a response")
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.2)
    }

    func testStreamsAreExemptFromIdleTimeout() throws {
        let client = try RawClient(port: try start())
        client.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse(head: true)?.status, 200)
        XCTAssertEqual(client.readChunk().map { String(decoding: $0, as: UTF8.self) }, "late")   // after > idle timeout
    }
}
