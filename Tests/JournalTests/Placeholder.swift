import XCTest

final class JournalTestsPlaceholder: XCTestCase {
    func testPlaceholder() {}
}
