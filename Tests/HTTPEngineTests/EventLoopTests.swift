import XCTest
import Glibc
@testable import HTTPEngine

/// How a loop ends an iteration (`EventLoop.run`): one that has run `yieldAfterBusy` without
/// sleeping gives up its core, so a thread woken on that core does not wait for the scheduler's tick.
final class EventLoopTests: XCTestCase {
    /// Two requests to a handler that keeps the loop's thread 2 ms per request (more than the
    /// 250 µs default); the number of yields once both are answered.
    private func yieldsAfterTwoSlowRequests(_ configure: @escaping (inout HTTPServerConfiguration) -> Void) throws -> Int {
        let s = try startServer({ $0.ioThreads = 1; configure(&$0) }) { request, responder in
            usleep(2_000)
            echoHandler(request, responder)
        }
        defer {
            s.shutdown()
            s.waitUntilStopped()
        }
        let client = try RawClient(port: s.port)
        for i in 0..<2 {
            client.send("GET /y\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(client.readResponse()?.text, "path=/y\(i)")
        }
        // The iteration that answered the first request ended (and yielded) before the one loop
        // read the second: no wait is needed for the count.
        return s.core.yields.load(ordering: .sequentiallyConsistent)
    }

    func testALoopBusyLongerThanTheLimitYieldsBeforeWaitingAgain() throws {
        XCTAssertGreaterThanOrEqual(try yieldsAfterTwoSlowRequests { _ in }, 1)
    }

    func testALoopBusyLessThanTheLimitDoesNotYield() throws {
        XCTAssertEqual(try yieldsAfterTwoSlowRequests { $0.yieldAfterBusy = .seconds(60) }, 0)
    }

    func testWithoutALimitTheLoopNeverYields() throws {
        XCTAssertEqual(try yieldsAfterTwoSlowRequests { $0.yieldAfterBusy = nil }, 0)
    }
}
