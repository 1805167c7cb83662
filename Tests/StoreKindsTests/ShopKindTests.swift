import XCTest
@testable import StoreCore
@testable import StoreKinds
import StoreTesting

final class ShopKindTests: XCTestCase {
    func testAddAppendsAndRemoveRemovesEveryEqualEntry() {
        let store = TestStore(reducer: shopReducer)
        store.send(.add("apple")) { $0.products = ["apple"] }
        store.send(.add("pear")) { $0.products = ["apple", "pear"] }
        store.send(.add("apple")) { $0.products = ["apple", "pear", "apple"] }
        store.send(.remove("apple")) { $0.products = ["pear"] }
        store.send(.remove("plum"))  // nothing to remove: no change but the version
        XCTAssertEqual(store.store.version, 5)
    }

    func testPayloadMustBeAString() {
        XCTAssertThrowsError(try ShopAction(type: "shop/add", payload: .int(3))) { error in
            XCTAssertEqual(error as? ActionError, .invalidPayload(detail: "payload: expected a string, got a number"))
        }
        XCTAssertThrowsError(try ShopAction(type: "shop/add", payload: nil)) { error in
            XCTAssertEqual(error as? ActionError, .invalidPayload(detail: "payload: expected a string, got none"))
        }
        XCTAssertThrowsError(try ShopAction(type: "shop/clear", payload: nil)) { error in
            XCTAssertEqual(error as? ActionError, .unknownAction(type: "shop/clear", validTypes: ["shop/add", "shop/remove"]))
        }
    }
}
