import XCTest

final class HTTPEngineTestsPlaceholder: XCTestCase {
    func testPlaceholder() {}
}
