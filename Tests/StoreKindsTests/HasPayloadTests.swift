import XCTest
import StoreCore
@testable import StoreKinds

/// `hasPayload`, which the store asks instead of building the payload, says what `payload` says
/// for every action of every shipped kind.
final class HasPayloadTests: XCTestCase {
    func check<A: StoreAction>(_ actions: [A], file: StaticString = #filePath, line: UInt = #line) {
        for action in actions {
            XCTAssertEqual(action.hasPayload, action.payload != nil, action.type, file: file, line: line)
        }
    }

    func testHasPayloadAgreesWithPayload() {
        check([CounterAppAction.counter(.incrTapped), .counter(.decrTapped), .counter(.nthPrimeButtonTapped),
               .counter(.nthPrimeResponse(prime: 7)), .counter(.nthPrimeResponse(prime: nil)), .counter(.alertDismissed),
               .primeModal(.saveFavoritePrimeTapped), .primeModal(.removeFavoritePrimeTapped),
               .favoritePrimes(.deleteFavoritePrimes(indexes: [0]))])
        check([TasksAction.add(title: "t"), .rename(id: 1, title: "t"), .toggleDone(id: 1), .remove(id: 1),
               .favorite(id: 1), .unfavorite(id: 1)])
        check([ShopAction.add("a"), .remove("a")])
        check([LoginAction.emailChanged("a@b"), .passwordChanged("p"), .connectivityChanged(online: true), .loginTapped,
               .confirmationAnswered(confirm: true), .emailValidated(valid: true, email: "a@b"),
               .emailValidated(valid: false, email: nil), .loginSucceeded(token: "t"), .loginFailed])
    }
}
