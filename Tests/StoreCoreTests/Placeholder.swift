import XCTest

final class StoreCoreTestsPlaceholder: XCTestCase {
    func testPlaceholder() {}
}
