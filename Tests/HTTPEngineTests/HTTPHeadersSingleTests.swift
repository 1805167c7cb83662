@testable import HTTPEngine
import XCTest

/// RFC 6750 §3.1 and the like: a field that may appear once is refused, not guessed, when repeated.
final class HTTPHeadersSingleTests: XCTestCase {
    func testOneFieldGivesItsValue() {
        let headers = HTTPHeaders([("Host", "h"), ("authorization", "Bearer x"), ("Accept", "a")])
        guard case .once(let value) = headers.withSingleValue("Authorization", { String(decoding: $0, as: UTF8.self) }) else {
            return XCTFail("expected one value")
        }
        XCTAssertEqual(value, "Bearer x")
    }

    func testAbsentFieldDoesNotCallBody() {
        let headers = HTTPHeaders([("Host", "h")])
        var called = false
        guard case .absent = headers.withSingleValue("Authorization", { _ in called = true }) else {
            return XCTFail("expected absent")
        }
        XCTAssertFalse(called)
    }

    func testRepeatedFieldIsReportedWithoutCallingBody() {
        let headers = HTTPHeaders([("Authorization", "Bearer a"), ("Host", "h"), ("AUTHORIZATION", "Bearer b")])
        var called = false
        guard case .repeated = headers.withSingleValue("Authorization", { _ in called = true }) else {
            return XCTFail("expected repeated")
        }
        XCTAssertFalse(called)
    }
}
