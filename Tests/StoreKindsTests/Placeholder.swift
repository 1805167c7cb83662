import XCTest

final class StoreKindsTestsPlaceholder: XCTestCase {
    func testPlaceholder() {}
}
