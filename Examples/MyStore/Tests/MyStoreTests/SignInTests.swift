import SignIn
import StoreCore
import StoreTesting
import XCTest

final class SignInTests: XCTestCase {
    private func filledIn(email: String = "ada@example.com", password: String = "correct horse") -> TestStore<SignInState, SignInAction> {
        let store = TestStore(reducer: signInReducer)
        store.send(.emailChanged(email)) { $0.email = email }
        store.send(.passwordChanged(password)) { $0.password = password }
        return store
    }

    func testTheFlowChecksTheAddressThenSignsIn() {
        let store = filledIn()
        store.send(.submitted) { $0.step = .checkingEmail }
        store.receive(.emailChecked(deliverable: true)) { $0.step = .signingIn }
        store.receive(.signedIn(token: "test-token"), outputs: [StoreOutput(type: "signIn/welcome")]) {
            $0.step = .signedIn
            $0.token = "test-token"
        }
        store.send(.submitted, refusedWith: .rejected(detail: "a sign-in is in progress or done"))
    }

    func testAnUndeliverableAddressEndsTheFlowBeforeTheSignIn() {
        let store = filledIn(email: "ada@example.invalid")
        store.send(.submitted) { $0.step = .checkingEmail }
        store.receive(.emailChecked(deliverable: false)) {
            $0.step = .failed
            $0.error = "the address cannot receive mail"
        }
    }

    func testAWrongPasswordFailsAndTheFormCanBeFixedAndSentAgain() {
        let store = filledIn(password: "wrongpassword")
        store.send(.submitted) { $0.step = .checkingEmail }
        store.receive(.emailChecked(deliverable: true)) { $0.step = .signingIn }
        store.receive(.failed(reason: "wrong password")) {
            $0.step = .failed
            $0.error = "wrong password"
        }
        store.send(.passwordChanged("correct horse")) {
            $0.password = "correct horse"
            $0.step = .editing
        }
        store.send(.submitted) {
            $0.step = .checkingEmail
            $0.error = nil
        }
        store.receive(.emailChecked(deliverable: true)) { $0.step = .signingIn }
        store.receive(.signedIn(token: "test-token"), outputs: [StoreOutput(type: "signIn/welcome")]) {
            $0.step = .signedIn
            $0.token = "test-token"
        }
    }

    func testTheFieldsAreLockedWhileTheFlowRunsAndAShortPasswordIsRefused() {
        let store = filledIn(password: "short")
        store.send(.submitted, refusedWith: .rejected(detail: "needs an address with @ and a password of 8 characters or more"))
        store.send(.passwordChanged("long enough")) { $0.password = "long enough" }
        store.send(.submitted) { $0.step = .checkingEmail }
        store.send(.emailChanged("x@y.z"), refusedWith: .rejected(detail: "a sign-in is in progress"))
        store.receive(.emailChecked(deliverable: true)) { $0.step = .signingIn }
        store.receive(.signedIn(token: "test-token"), outputs: [StoreOutput(type: "signIn/welcome")]) {
            $0.step = .signedIn
            $0.token = "test-token"
        }
    }

    func testARestartGoesOnFromTheStepTheStateIsAt() async {
        var checking = SignInState()
        checking.email = "ada@example.com"
        checking.password = "correct horse"
        checking.step = .checkingEmail
        var signingIn = checking
        signingIn.step = .signingIn
        let store = { (state: SignInState) in ErasedStore(Store(kind: "signIn", state: state, reducer: signInReducer, environment: .immediate), resume: signInResume) }
        let sent = SentActions()
        for effect in store(checking).interruptedEffects() { await effect.run { type, payload in sent.append(type, payload) } }
        XCTAssertEqual(sent.items.map(\.0), ["signIn/emailChecked", "signIn/signedIn"])
        let resumed = SentActions()
        for effect in store(signingIn).interruptedEffects() { await effect.run { type, payload in resumed.append(type, payload) } }
        XCTAssertEqual(resumed.items.map(\.0), ["signIn/signedIn"])
        XCTAssertTrue(store(SignInState()).interruptedEffects().isEmpty)
    }
}

final class SignInPropertyTests: XCTestCase {
    func testEveryPatchTurnsTheOldStateIntoTheNew() throws {
        let emails = ["ada@example.com", "ada@example.invalid", "nope"]
        let passwords = ["short", "correct horse", "wrongpassword"]
        try assertPatchesMatchState(of: .signIn, steps: 500) { g, _ in
            switch Int.random(in: 0..<6, using: &g) {
            case 0: ActionRecord(type: "signIn/emailChanged", payload: .string(emails[Int.random(in: 0..<3, using: &g)]), at: 0, source: .client)
            case 1: ActionRecord(type: "signIn/passwordChanged", payload: .string(passwords[Int.random(in: 0..<3, using: &g)]), at: 0, source: .client)
            case 2, 3: ActionRecord(type: "signIn/submitted", at: 0, source: .client)
            case 4: ActionRecord(type: "signIn/signedIn", payload: .object(["token": .string("t")]), at: 0, source: .client)  // internal: refused
            default: ActionRecord(type: "signIn/emailChanged", payload: .int(1), at: 0, source: .client)                      // malformed
            }
        }
    }
}
