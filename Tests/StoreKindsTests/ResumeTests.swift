import Synchronization
import XCTest
@testable import StoreCore
@testable import StoreKinds

/// `Kind.resume`: what a restored state still waits for runs again, and nothing else does.
final class ResumeTests: XCTestCase {
    /// Runs every interrupted effect of a store made from `state` and returns what they sent.
    private func resumed(_ kindName: String, _ state: String) async throws -> [String] {
        let kind = try XCTUnwrap(KindRegistry.shipped.kind(named: kindName))
        let store = try kind.makeStore(state: JSONReader.parse(Array(state.utf8)), version: 7, environment: .immediate)
        let sent = Mutex<[String]>([])
        for effect in store.interruptedEffects() {
            await effect.run { type, payload in
                sent.withLock { $0.append(type + (payload.map { " " + String(decoding: $0.encoded(), as: UTF8.self) } ?? "")) }
            }
        }
        XCTAssertEqual(store.version, 7, "resuming changes no state")
        return sent.withLock { $0 }
    }

    func testCounterAsksAgainForTheNthPrimeInFlight() async throws {
        let inFlight = #"{"count":6,"favoritePrimes":[],"activityFeed":[],"nthPrime":null,"isNthPrimeRequestInFlight":true}"#
        let sent = try await resumed("counter", inFlight)
        XCTAssertEqual(sent, [#"counter/nthPrimeResponse {"prime":13}"#])
        let idle = #"{"count":6,"favoritePrimes":[],"activityFeed":[],"nthPrime":13,"isNthPrimeRequestInFlight":false}"#
        let none = try await resumed("counter", idle)
        XCTAssertEqual(none, [])
    }

    func testLoginAsksAgainForAValidationAndALoginInFlight() async throws {
        let both = #"{"online":true,"email":{"rawValue":"a@b.c","valid":true,"currentValidation":"remote"},"password":"wrongpassword","loggingIn":true,"canLogin":true}"#
        let sent = try await resumed("login", both)
        XCTAssertEqual(sent, [#"login/emailValidated {"email":"a@b.c","valid":true}"#, "login/loginFailed"])
        let idle = #"{"online":true,"email":{"rawValue":"a@b.c","valid":true,"currentValidation":null},"password":"","loggingIn":false,"canLogin":false}"#
        let none = try await resumed("login", idle)
        XCTAssertEqual(none, [])
    }

    func testAReplayedJobRunsWithTheInputsOfTheActionThatStartedIt() async throws {
        // As recovery does: replay the records, keep the newest job of each name, then resume.
        let kind = try XCTUnwrap(KindRegistry.shipped.kind(named: "counter"))
        let store = try kind.makeStore(state: nil, version: 0, environment: .immediate)
        let records = ["counter/incrTapped", "counter/incrTapped", "counter/nthPrimeButtonTapped", "counter/incrTapped"]
        _ = try store.apply(records.map { ActionRecord(type: $0, at: 0, source: .client) })
        var replayed: [String: PendingEffect] = [:]
        for effect in store.takePendingEffects() { if let id = effect.id { replayed[id] = effect } }
        XCTAssertEqual(Array(replayed.keys), ["counter/nthPrime"])
        let sent = Mutex<[String]>([])
        for effect in store.interruptedEffects(replayed: replayed) {
            await effect.run { type, payload in
                sent.withLock { $0.append(type + (payload.map { " " + String(decoding: $0.encoded(), as: UTF8.self) } ?? "")) }
            }
        }
        // Tapped at count 2: the 2nd prime, not the 3rd (the count at the end).
        XCTAssertEqual(sent.withLock { $0 }, [#"counter/nthPrimeResponse {"prime":3}"#])
    }

    func testKindsWithoutResumeWaitForNothing() async throws {
        let sent = try await resumed("shop", #"{"products":["a"]}"#)
        XCTAssertEqual(sent, [])
    }
}
