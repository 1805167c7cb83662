import XCTest
@testable import StoreCore
@testable import StoreKinds
import StoreTesting

final class RegistryTests: XCTestCase {
    func testInitialStatesAreExactlyAPIMDs() throws {
        let expected = [
            "counter": #"{"count":0,"favoritePrimes":[],"activityFeed":[],"nthPrime":null,"isNthPrimeRequestInFlight":false}"#,
            "shop": #"{"products":[]}"#,
            "tasks": #"{"tasks":{"byId":{},"allIds":[]},"favoriteIds":[],"nextId":1}"#,
            "login": #"{"online":true,"email":{"rawValue":"","valid":false,"currentValidation":null},"password":"","loggingIn":false,"canLogin":false}"#,
        ]
        XCTAssertEqual(KindRegistry.shipped.all.map(\.name), ["counter", "shop", "tasks", "login"])
        for kind in KindRegistry.shipped.all {
            let store = try kind.makeStore(state: nil, version: 0, environment: .immediate)
            XCTAssertEqual(String(decoding: store.encodeState(), as: UTF8.self), expected[kind.name], kind.name)
            XCTAssertEqual(store.stateValue(), kind.initialState)
            XCTAssertEqual(store.kind, kind.name)
            // A state read back gives the same bytes.
            let again = try kind.makeStore(state: store.stateValue(), version: 0, environment: .immediate)
            XCTAssertEqual(again.encodeState(), store.encodeState())
        }
        XCTAssertNil(KindRegistry.shipped.kind(named: "nope"))
        XCTAssertEqual(KindRegistry.shipped.kind(named: "counter")?.internalActionTypes, ["counter/nthPrimeResponse"])
        XCTAssertEqual(KindRegistry.shipped.kind(named: "login")?.internalActionTypes, ["login/emailValidated", "login/loginSucceeded", "login/loginFailed"])
    }

    func testBatchIsAllOrNothing() throws {
        let store = try XCTUnwrap(KindRegistry.shipped.kind(named: "tasks")).makeStore(state: nil, version: 0, environment: .immediate)
        let add = ActionRecord(type: "tasks/add", payload: .object(["title": .string("a")]), at: 5, source: .client)
        _ = try store.apply([add, add])
        let before = store.encodeState()
        let batch = [
            add,
            ActionRecord(type: "tasks/toggleDone", payload: .object(["id": .int(1)]), at: 5, source: .client),
            ActionRecord(type: "tasks/remove", payload: .object(["id": .int(2)]), at: 5, source: .client),
            ActionRecord(type: "tasks/favorite", payload: .object(["id": .int(2)]), at: 5, source: .client),  // 2 is gone: refused
        ]
        XCTAssertThrowsError(try store.apply(batch)) { error in
            XCTAssertEqual(error as? BatchError, BatchError(index: 3, error: .invalidPayload(detail: "payload.id: no task with id 2")))
        }
        XCTAssertEqual(store.encodeState(), before)
        XCTAssertEqual(store.version, 2)
        // Shape errors are found before any reducer runs.
        XCTAssertThrowsError(try store.apply([add, ActionRecord(type: "tasks/zap", at: 5, source: .client)])) { error in
            XCTAssertEqual((error as? BatchError)?.index, 1)
        }
        XCTAssertEqual(store.encodeState(), before)
        let changes = try store.apply(Array(batch.prefix(3)))
        XCTAssertEqual(changes.map(\.version), [3, 4, 5])
        XCTAssertEqual(String(decoding: changes[2].patch, as: UTF8.self),
                       #"[{"op":"remove","path":"/tasks/allIds/1"},{"op":"remove","path":"/tasks/byId/2"}]"#)
        XCTAssertEqual(changes[0].action, batch[0])
    }

    func testPendingEffectsRunThroughTheServerPath() async throws {
        let store = try XCTUnwrap(KindRegistry.shipped.kind(named: "counter"))
            .makeStore(state: .object(["count": .int(6), "favoritePrimes": .array([]), "activityFeed": .array([]),
                                       "nthPrime": .null, "isNthPrimeRequestInFlight": .bool(false)]),
                       version: 10, environment: .immediate)
        _ = try store.apply([ActionRecord(type: "counter/nthPrimeButtonTapped", at: 1, source: .client)])
        let effects = store.takePendingEffects()
        XCTAssertEqual(effects.count, 1)
        XCTAssertTrue(store.takePendingEffects().isEmpty, "taking clears")
        let sent = SentActions()
        for effect in effects { await effect.run { type, payload in sent.append(type, payload) } }
        let records = sent.items.map { ActionRecord(type: $0.0, payload: $0.1, at: 2, source: .effect) }
        XCTAssertEqual(records.map(\.type), ["counter/nthPrimeResponse"])
        let changes = try store.apply(records)
        XCTAssertEqual(changes.first?.version, 12)
        XCTAssertEqual(store.stateValue()["nthPrime"], .int(13))
    }

    func testUnknownTypeListsValidTypes() throws {
        for kind in KindRegistry.shipped.all {
            let store = try kind.makeStore(state: nil, version: 0, environment: .immediate)
            XCTAssertThrowsError(try store.apply([ActionRecord(type: "x/y", at: 0, source: .client)])) { error in
                XCTAssertEqual(error as? BatchError, BatchError(index: 0, error: .unknownAction(type: "x/y", validTypes: kind.actionTypes)))
            }
        }
    }
}
