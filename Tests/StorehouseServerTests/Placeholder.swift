import XCTest

final class StorehouseServerTestsPlaceholder: XCTestCase {
    func testPlaceholder() {}
}
