import Foundation
import Synchronization
import XCTest
@testable import SystemSupport

final class NamedThreadTests: XCTestCase {
    /// The kernel knows the thread by the name given (what `top -H` and `perf` show), and the
    /// body runs on that thread, not the caller's.
    func testTheBodyRunsOnANewThreadTheKernelKnowsByItsName() throws {
        let seen = Mutex<(name: String, onCaller: Bool)?>(nil)
        let ran = DispatchSemaphore(value: 0)
        let caller = pthread_self()
        XCTAssertTrue(NamedThread.start("test-named-01") {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            seen.withLock { $0 = (comm.trimmingCharacters(in: .newlines), pthread_equal(pthread_self(), caller) != 0) }
            ran.signal()
        })
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
        let result = try XCTUnwrap(seen.withLock { $0 })
        XCTAssertEqual(result.name, "test-named-01")
        XCTAssertFalse(result.onCaller)
    }
}
