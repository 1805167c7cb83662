import XCTest
import Synchronization
import Glibc
@testable import HTTPEngine

/// Answers written by the thread that gives them (`EventLoop+DirectAnswer.swift`): the exchange
/// must go on exactly as when the loop writes them (keep-alive, pipelining, close, timeouts,
/// shutdown), and the loop must take the socket back whenever it needs it.
final class DirectAnswerTests: XCTestCase {
    var server: HTTPServer?
    /// The connection whose handler holds the loop (`shutDownWhileTheLoopIsBusy`), open until the test ends.
    private var stalledClient: RawClient?

    override func tearDown() {
        server?.shutdown()
        server?.waitUntilStopped()
        server = nil
        stalledClient = nil
    }

    func start(_ handler: HeldAnswers, _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> HTTPServer {
        var config = HTTPServerConfiguration()
        config.port = 0
        config.ioThreads = 1
        configure(&config)
        let s = HTTPServer(configuration: config, handler: handler)
        try s.start()
        server = s
        return s
    }

    var directAnswers: Int { server?.core.directAnswers.load(ordering: .relaxed) ?? -1 }

    func testAnswersFromAnotherThreadAreWrittenThereAndTheConnectionGoesOn() throws {
        let s = try start(HeldAnswers(answerOffTheLoop: true))
        let client = try RawClient(port: s.port)
        for i in 0..<3 {
            client.send("GET /k\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
            let r = try XCTUnwrap(client.readResponse())
            XCTAssertEqual(r.text, "path=/k\(i)")
            XCTAssertNil(r.header("Connection"))
            XCTAssertNotNil(r.header("Date"))
        }
        XCTAssertEqual(directAnswers, 3)
    }

    func testDisabledTheLoopWritesEveryAnswer() throws {
        let s = try start(HeldAnswers(answerOffTheLoop: true)) { $0.directAnswers = false }
        let client = try RawClient(port: s.port)
        for i in 0..<3 {
            client.send("GET /k\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(client.readResponse()?.text, "path=/k\(i)")
        }
        XCTAssertEqual(directAnswers, 0)
    }

    /// The second request waits in the loop's buffer while the first is lent out: no event will
    /// come for it, so the sender must tell the loop.
    func testPipelinedRequestWaitingBehindALentAnswerIsServed() throws {
        let s = try start(HeldAnswers(answerOffTheLoop: true))
        let client = try RawClient(port: s.port)
        client.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\nGET /c HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.text, "path=/a")
        XCTAssertEqual(client.readResponse()?.text, "path=/b")
        XCTAssertEqual(client.readResponse()?.text, "path=/c")
        XCTAssertEqual(directAnswers, 3)
    }

    func testConnectionCloseAnsweredOffTheLoopClosesAfterTheAnswer() throws {
        let s = try start(HeldAnswers(answerOffTheLoop: true))
        let client = try RawClient(port: s.port)
        client.send("GET /bye HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(r.header("Connection"), "close")
        XCTAssertEqual(client.receiveOutcome(), .endOfStream)
        XCTAssertEqual(directAnswers, 1)
    }

    func testHeadAnsweredOffTheLoopHasNoBody() throws {
        let s = try start(HeldAnswers(answerOffTheLoop: true))
        let client = try RawClient(port: s.port)
        client.send("HEAD /h HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try XCTUnwrap(client.readResponse(head: true))
        XCTAssertEqual(head.header("Content-Length"), "7")
        client.send("GET /g HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.text, "path=/g")
        XCTAssertEqual(directAnswers, 2)
    }

    /// A client that says nothing after its answer: the loop only learns of the answer at its
    /// sweep, and the idle timeout must still close the connection.
    func testIdleTimeoutClosesAConnectionWhoseLastAnswerWasLent() throws {
        let s = try start(HeldAnswers(answerOffTheLoop: true)) { $0.idleTimeout = .milliseconds(300) }
        let client = try RawClient(port: s.port, timeoutSeconds: 4)
        client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.status, 200)
        let started = ContinuousClock.now
        XCTAssertEqual(client.receiveOutcome(), .endOfStream)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
        XCTAssertEqual(directAnswers, 1)
    }

    /// An answer given while shutdown drains: it goes out, then the connection closes, and the
    /// server stops without waiting for its grace period.
    func testShutdownFinishesALentAnswerAndStopsWithoutTheGrace() throws {
        let held = HeldAnswers(answerOffTheLoop: false)
        let s = try start(held) { $0.shutdownGrace = .seconds(8) }
        let client = try RawClient(port: s.port, timeoutSeconds: 6)
        client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(held.waitForLent(count: 1))
        let started = ContinuousClock.now
        s.shutdown()
        held.answerAll()
        XCTAssertEqual(client.readResponse()?.text, "path=/slow")
        XCTAssertEqual(client.receiveOutcome(), .endOfStream)
        s.waitUntilStopped()
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(4))
        XCTAssertEqual(directAnswers, 1)
    }

    /// A lent answer goes out unseen by the loop; with the loop held inside another connection's
    /// handler, the client sends `next` and shutdown begins; then the loop runs again.
    private func shutDownWhileTheLoopIsBusy(sending next: String) throws -> (HeldAnswers, RawClient) {
        let held = HeldAnswers(answerOffTheLoop: false)
        let s = try start(held) { $0.shutdownGrace = .seconds(8) }
        let client = try RawClient(port: s.port, timeoutSeconds: 6)
        client.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(held.waitForLent(count: 1))
        held.answerAll()
        XCTAssertEqual(client.readResponse()?.text, "path=/a")
        let other = try RawClient(port: s.port)
        stalledClient = other
        other.send("GET /stall HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(held.stalled.wait(timeout: .now() + 5), .success)
        client.send(next)
        s.shutdown()
        held.stall.signal()
        return (held, client)
    }

    /// Shutdown begins while the loop has not yet seen that a lent answer went out, and the client's
    /// next request waits unread in the socket: it is read and answered with close, not reset by
    /// closing a socket with unread data.
    func testShutdownReadsARequestWaitingBehindASentLentAnswerRatherThanResettingIt() throws {
        let (held, client) = try shutDownWhileTheLoopIsBusy(sending: "GET /next HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(held.waitForLent(count: 1))
        held.answerAll()
        let r = try XCTUnwrap(client.readResponse(), "reset instead of answered")
        XCTAssertEqual(r.text, "path=/next")
        XCTAssertEqual(r.header("Connection"), "close")
        XCTAssertEqual(client.receiveOutcome(), .endOfStream)
    }

    /// The same, with the next request's body still on its way: its head is refused at once (a
    /// draining server takes no new work) rather than shutdown waiting for a body that may not come.
    func testShutdownRefusesFromItsHeadARequestWhoseBodyIsStillArrivingBehindALentAnswer() throws {
        let started = ContinuousClock.now
        let (_, client) = try shutDownWhileTheLoopIsBusy(sending: "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nonly part")
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(r.status, 503)
        XCTAssertEqual(r.header("Connection"), "close")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(4))
    }

    /// 16 MiB to a client that is not reading: the socket takes part of it, the loop writes the
    /// rest in order, and the next request on the connection is answered after it.
    func testAnAnswerTheSocketCannotTakeWholeIsFinishedByTheLoop() throws {
        let held = HeldAnswers(answerOffTheLoop: false, bodyBytes: 16 << 20)
        let s = try start(held)
        let client = try RawClient(port: s.port)
        client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(held.waitForLent(count: 1))
        held.answerAll()
        let r = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(s.core.directAnswers.load(ordering: .relaxed), 1)
        XCTAssertEqual(s.core.directAnswerRests.load(ordering: .relaxed), 1, "the socket took 16 MiB at once")
        XCTAssertEqual(r.body, HeldAnswers.body(path: "/big", bytes: 16 << 20))
        client.send("GET /next HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(held.waitForLent(count: 1))
        held.answerAll()
        XCTAssertEqual(client.readResponse()?.body, HeldAnswers.body(path: "/next", bytes: 16 << 20))
    }

    /// The client goes away while its answer is lent: the loop takes the socket back to close it,
    /// the late answer is dropped, and the server goes on.
    func testAClientGoneWhileItsAnswerIsLentLeavesTheServerServing() throws {
        let held = HeldAnswers(answerOffTheLoop: false)
        let s = try start(held)
        do {
            let gone = try RawClient(port: s.port)
            gone.send("GET /gone HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertTrue(held.waitForLent(count: 1))
            gone.abort()
        }  // closed with SO_LINGER 0: a reset
        XCTAssertTrue(waitUntil { s.openConnections == 0 })
        held.answerAll()
        let next = try RawClient(port: s.port)
        next.send("GET /next HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(held.waitForLent(count: 1))
        held.answerAll()
        XCTAssertEqual(next.readResponse()?.text, "path=/next")
        XCTAssertEqual(directAnswers, 1)
    }
}

/// A handler that answers nothing on the loop. Its `eventLoopWillWait` runs after the loop has let
/// go of the connections it served (and lent their sockets), so what it holds then is lent: it
/// answers those from a global queue (`answerOffTheLoop`) or counts them for the test to answer.
final class HeldAnswers: HTTPHandler {
    private let state = Mutex<(held: [(path: String, responder: HTTPResponder)], lent: [(path: String, responder: HTTPResponder)])>(([], []))
    private let lentSignal = DispatchSemaphore(value: 0)
    /// `/stall` keeps the loop inside `handle` until `stall` is signalled (`stalled` says it is there).
    let stall = DispatchSemaphore(value: 0), stalled = DispatchSemaphore(value: 0)
    let answerOffTheLoop: Bool
    let bodyBytes: Int?

    init(answerOffTheLoop: Bool, bodyBytes: Int? = nil) {
        self.answerOffTheLoop = answerOffTheLoop
        self.bodyBytes = bodyBytes
    }

    /// `path=<path>`, or `bytes` bytes that begin and end with the path (so a lost or reordered
    /// piece changes them).
    static func body(path: String, bytes: Int?) -> [UInt8] {
        let mark = Array("path=\(path)".utf8)
        guard let bytes else { return mark }
        var body = [UInt8](repeating: 0x2E, count: bytes)
        body.replaceSubrange(0..<mark.count, with: mark)
        body.replaceSubrange((bytes - mark.count)..<bytes, with: mark)
        body[bytes / 2] = 0x21
        return body
    }

    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        if request.path == "/stall" {
            stalled.signal()
            stall.wait()
            return responder.respond(HTTPResponse(status: 200, body: Array("stalled".utf8)))
        }
        state.withLock { $0.held.append((request.path, responder)) }
    }

    /// Refuses the head of `/upload` (as a draining server refuses new work).
    func handleExpectation(_ head: HTTPRequest, _ responder: HTTPResponder) -> Bool {
        guard head.path == "/upload" else { return false }
        responder.respond(HTTPResponse(status: 503, body: Array("draining".utf8)))
        return true
    }

    func eventLoopWillWait(loop: Int) {
        let now = state.withLock { s -> [(path: String, responder: HTTPResponder)] in
            defer { s.held = [] }
            return s.held
        }
        guard !now.isEmpty else { return }
        if answerOffTheLoop {
            DispatchQueue.global().async { [self] in now.forEach(answer) }
        } else {
            state.withLock { $0.lent += now }
            now.forEach { _ in lentSignal.signal() }
        }
    }

    func waitForLent(count: Int) -> Bool {
        (0..<count).allSatisfy { _ in lentSignal.wait(timeout: .now() + 5) == .success }
    }

    /// Answers every lent request from the calling thread.
    func answerAll() {
        let lent = state.withLock { s -> [(path: String, responder: HTTPResponder)] in
            defer { s.lent = [] }
            return s.lent
        }
        lent.forEach(answer)
    }

    private func answer(_ held: (path: String, responder: HTTPResponder)) {
        held.responder.respond(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"],
                                            body: Self.body(path: held.path, bytes: bodyBytes)))
    }
}

extension RawClient {
    enum ReceiveOutcome: Equatable { case bytes, endOfStream, timedOut, failed }

    /// What the next `recv` gives: unlike `isClosedByPeer`, a timeout is not taken for a close.
    func receiveOutcome() -> ReceiveOutcome {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, 0)
        if n > 0 { return .bytes }
        if n == 0 { return .endOfStream }
        return errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .failed
    }
}
