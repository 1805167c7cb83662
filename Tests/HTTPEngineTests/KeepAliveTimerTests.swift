import XCTest
@testable import HTTPEngine

/// The idle timeout counts from the last byte exchanged, and a connection that sends nothing at
/// all is closed after the much shorter first-byte deadline.
final class KeepAliveTimerTests: XCTestCase {
    var server: HTTPServer?

    override func tearDown() {
        server?.shutdown()
        server?.waitUntilStopped()
        server = nil
    }

    /// `offLoop`: answers from another thread (the direct-answer path), as the storehouse's
    /// journaled routes do; otherwise on the loop, inside the read that brought the request.
    func start(offLoop: Bool, firstByte: Duration = .seconds(5), idle: Duration = .seconds(1)) throws -> Int {
        let s = try startServer({
            $0.idleTimeout = idle
            $0.headerTimeout = .milliseconds(300)
            $0.firstByteTimeout = firstByte
        }, handler: { request, responder in
            if offLoop {
                DispatchQueue.global().async { echoHandler(request, responder) }
            } else {
                echoHandler(request, responder)
            }
        })
        server = s
        return s.port
    }

    /// A client that sends a request every 50 ms for three and a half idle timeouts gets every
    /// answer (1 s each: a loaded machine may stretch the client's pauses, never to a second).
    func keepAliveClientIsAnsweredThroughout(offLoop: Bool) throws {
        let client = try RawClient(port: try start(offLoop: offLoop))
        let started = Date()
        var answered = 0
        while Date().timeIntervalSince(started) < 3.5 {
            client.send("GET /ping HTTP/1.1\r\nHost: t\r\n\r\n")
            guard let response = client.readResponse() else {
                return XCTFail("request \(answered + 1) after \(Date().timeIntervalSince(started)) s got no answer")
            }
            XCTAssertEqual(response.status, 200)
            answered += 1
            usleep(50_000)  // the client's pace, shorter than the idle timeout
        }
        XCTAssertGreaterThanOrEqual(answered, 7, "at least two requests per idle timeout")
    }

    func testKeepAliveClientAnsweredOnLoop() throws {
        try keepAliveClientIsAnsweredThroughout(offLoop: false)
    }

    func testKeepAliveClientAnsweredOffLoop() throws {
        try keepAliveClientIsAnsweredThroughout(offLoop: true)
    }

    func testSilentConnectionClosedAtFirstByteDeadline() throws {
        // An idle timeout far longer than the deadline, so a loaded machine cannot blur the two.
        let port = try start(offLoop: false, firstByte: .milliseconds(100), idle: .seconds(3))
        let silent = try RawClient(port: port)
        let started = Date()
        XCTAssertTrue(silent.readToEOF().isEmpty, "closed without a response")
        let waited = Date().timeIntervalSince(started)
        XCTAssertLessThan(waited, 2, "closed well before the idle timeout")
        // A connection that did send is then held to the idle timeout, not the first-byte deadline.
        let talking = try RawClient(port: port)
        talking.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(talking.readResponse()?.status, 200)
        let idleStarted = Date()
        XCTAssertTrue(talking.readToEOF().isEmpty)
        XCTAssertGreaterThan(Date().timeIntervalSince(idleStarted), 2.5)
    }

    func testTimerRestartsOnActivityInIdlePhase() {
        let t = ConnectionTimer.Timeouts(header: 100, idle: 1_000, body: 300, firstByte: 50)
        var timer = ConnectionTimer(now: 0)
        XCTAssertEqual(timer.expired(now: 49, timeouts: t), .none)
        XCTAssertEqual(timer.expired(now: 50, timeouts: t), .close, "first-byte deadline")
        timer.enter(.idle, now: 10)
        timer.exchanged(now: 900)
        XCTAssertEqual(timer.expired(now: 1_899, timeouts: t), .none)
        XCTAssertEqual(timer.expired(now: 1_900, timeouts: t), .close)
        timer.enter(.head, now: 1_000)
        timer.exchanged(now: 1_090)   // a slow header block does not restart its deadline
        XCTAssertEqual(timer.expired(now: 1_100, timeouts: t), .requestTimeout)
    }
}
