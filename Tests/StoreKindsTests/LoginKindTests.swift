import Synchronization
import XCTest
@testable import StoreCore
@testable import StoreKinds
import StoreTesting

final class LoginKindTests: XCTestCase {
    func testValidEmailIsValidatedRemotelyThroughTheInjectedSleep() {
        let slept = Mutex<[Duration]>([])
        var env = EffectEnvironment.immediate
        env.latency = .milliseconds(50)
        env.sleep = { d in slept.withLock { $0.append(d) } }
        let store = TestStore(reducer: loginReducer, environment: env)
        store.send(.emailChanged("a@b.c")) {
            $0.email = EmailField(rawValue: "a@b.c", valid: false, currentValidation: "remote")
        }
        store.receive(.emailValidated(valid: true, email: "a@b.c")) {
            $0.email.valid = true
            $0.email.currentValidation = nil
        }
        XCTAssertEqual(slept.withLock { $0 }, [.milliseconds(50)])
        store.finish()
    }

    func testInvalidDomainFailsRemoteValidation() {
        let store = TestStore(reducer: loginReducer)
        store.send(.emailChanged("a@b.invalid")) { $0.email = EmailField(rawValue: "a@b.invalid", currentValidation: "remote") }
        store.receive(.emailValidated(valid: false, email: "a@b.invalid")) { $0.email.currentValidation = nil }
    }

    func testStaleValidationIsIgnored() {
        let store = TestStore(reducer: loginReducer)
        store.send(.emailChanged("a@b.c")) { $0.email = EmailField(rawValue: "a@b.c", currentValidation: "remote") }
        store.send(.emailChanged("abc")) { $0.email = EmailField(rawValue: "abc") }
        store.receive(.emailValidated(valid: true, email: "a@b.c"))  // for "a@b.c": no change but the version
        XCTAssertFalse(store.store.state.email.valid)
        store.finish()
    }

    func testAVerdictForAReplacedAddressIsIgnoredWhileTheNewOneIsInFlight() {
        // Both addresses pass the local check, so a validation is in flight throughout: only the
        // address in the verdict tells the first verdict from the second.
        let store = TestStore(reducer: loginReducer)
        store.send(.passwordChanged("longenough1")) { $0.password = "longenough1" }
        store.send(.emailChanged("me@good.com")) { $0.email = EmailField(rawValue: "me@good.com", currentValidation: "remote") }
        store.send(.emailChanged("me@evil.invalid")) { $0.email = EmailField(rawValue: "me@evil.invalid", currentValidation: "remote") }
        store.receive(.emailValidated(valid: true, email: "me@good.com"))  // stale: no change but the version
        XCTAssertFalse(store.store.state.canLogin)
        store.receive(.emailValidated(valid: false, email: "me@evil.invalid")) { $0.email.currentValidation = nil }
        XCTAssertFalse(store.store.state.canLogin)
        store.finish()
    }

    func testAVerdictJournaledWithoutItsAddressStillApplies() throws {
        // Records written before verdicts named their address: the verdict is for the current one.
        let kind = try XCTUnwrap(KindRegistry.shipped.kind(named: "login"))
        let inFlight = #"{"online":true,"email":{"rawValue":"a@b.c","valid":false,"currentValidation":"remote"},"password":"","loggingIn":false,"canLogin":false}"#
        let store = try kind.makeStore(state: try JSONReader.parse(inFlight), version: 0, environment: .immediate)
        _ = try store.apply([ActionRecord(type: "login/emailValidated", payload: .object(["valid": .bool(true)]), at: 0, source: .effect)])
        XCTAssertEqual(store.stateValue()["email"]?["valid"], .bool(true))
    }

    func testARestoredValidationIsRemoteOrNone() throws {
        let kind = try XCTUnwrap(KindRegistry.shipped.kind(named: "login"))
        func decode(_ validation: String) -> String? {
            let state = #"{"online":true,"email":{"rawValue":"a@b.c","valid":false,"currentValidation":\#(validation)},"password":"","loggingIn":false,"canLogin":false}"#
            guard let value = try? JSONReader.parse(Array(state.utf8)) else { return "setup" }
            do { _ = try kind.makeStore(state: value, version: 0, environment: .immediate); return nil } catch { return error.description }
        }
        XCTAssertNil(decode("null"))
        XCTAssertNil(decode(#""remote""#))
        XCTAssertEqual(decode(#""bogus""#), #"/email/currentValidation: must be "remote" or null"#)
        XCTAssertEqual(decode(#""REMOTE""#), #"/email/currentValidation: must be "remote" or null"#)
        let noAt = #"{"online":true,"email":{"rawValue":"nope","valid":false,"currentValidation":"remote"},"password":"","loggingIn":false,"canLogin":false}"#
        let value = try JSONReader.parse(Array(noAt.utf8))
        XCTAssertThrowsError(try kind.makeStore(state: value, version: 0, environment: .immediate), "validated remotely, it would become valid")
    }

    func testLocalFailureNeedsNoEffect() {
        let store = TestStore(initialState: LoginState(email: EmailField(rawValue: "a@b.c", valid: true)), reducer: loginReducer)
        store.send(.emailChanged("ab.c")) { $0.email = EmailField(rawValue: "ab.c", valid: false, currentValidation: nil) }
        store.finish()
    }

    func testCanLoginIsDerived() {
        let store = TestStore(reducer: loginReducer)
        XCTAssertFalse(store.store.state.canLogin)
        store.send(.emailChanged("me@example.com")) { $0.email = EmailField(rawValue: "me@example.com", currentValidation: "remote") }
        store.receive(.emailValidated(valid: true, email: "me@example.com")) { $0.email.valid = true; $0.email.currentValidation = nil }
        store.send(.passwordChanged("12345678")) { $0.password = "12345678" }
        XCTAssertFalse(store.store.state.canLogin, "8 characters are not longer than 8")
        store.send(.passwordChanged("123456789")) { $0.password = "123456789" }
        XCTAssertTrue(store.store.state.canLogin)
        store.send(.connectivityChanged(online: false)) { $0.online = false }
        XCTAssertFalse(store.store.state.canLogin)
        XCTAssertTrue(String(decoding: store.store.encodeState(), as: UTF8.self).hasSuffix(#""loggingIn":false,"canLogin":false}"#))
    }

    private var ready: LoginState {
        LoginState(email: EmailField(rawValue: "me@example.com", valid: true), password: "correct horse")
    }

    func testLoginTappedIsRefusedUnlessCanLogin() {
        let store = TestStore(reducer: loginReducer)
        store.send(.loginTapped, refusedWith: .rejected(detail: "cannot log in: needs to be online, a valid email and a password longer than 8"))
        store.send(.confirmationAnswered(confirm: true), refusedWith: .rejected(detail: "cannot log in: needs to be online, a valid email and a password longer than 8"))
    }

    func testSuccessfulLogin() {
        let store = TestStore(initialState: ready, reducer: loginReducer)
        store.send(.loginTapped, outputs: [StoreOutput(type: "login/confirmationRequested")])
        store.send(.confirmationAnswered(confirm: true)) { $0.loggingIn = true }
        store.send(.loginTapped, refusedWith: .rejected(detail: "a login is already in progress"))
        store.receive(.loginSucceeded(token: "test-token"),
                      outputs: [StoreOutput(type: "login/loginFinished", payload: .object(["token": .string("test-token")]))]) {
            $0.loggingIn = false
        }
        store.finish()
    }

    func testDeclinedConfirmationChangesNothingButTheVersion() {
        let store = TestStore(initialState: ready, reducer: loginReducer)
        store.send(.confirmationAnswered(confirm: false))
        XCTAssertEqual(store.store.version, 1)
    }

    func testWrongPasswordFails() {
        var state = ready
        state.password = "wrongpassword"
        let store = TestStore(initialState: state, reducer: loginReducer)
        store.send(.confirmationAnswered(confirm: true)) { $0.loggingIn = true }
        store.receive(.loginFailed, outputs: [StoreOutput(type: "login/showErrorToast")]) { $0.loggingIn = false }
    }

    func testEffectOnlyTypesAreRefusedFromClients() throws {
        let store = try XCTUnwrap(KindRegistry.shipped.kind(named: "login")).makeStore(state: nil, version: 0, environment: .immediate)
        for type in LoginAction.internalTypes {
            XCTAssertThrowsError(try store.apply([ActionRecord(type: type, payload: .object(["valid": .bool(true)]), at: 0, source: .client)])) { error in
                XCTAssertEqual(error as? BatchError, BatchError(index: 0, error: .internalAction(type: type)))
            }
        }
        XCTAssertEqual(store.version, 0)
        let changes = try store.apply([ActionRecord(type: "login/emailValidated", payload: .object(["valid": .bool(true)]), at: 0, source: .effect)])
        XCTAssertEqual(changes.map(\.version), [1])
    }
}
