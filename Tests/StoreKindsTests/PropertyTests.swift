import XCTest
@testable import StoreCore
@testable import StoreKinds
import StoreTesting

/// For every kind: random action sequences (valid, refused and malformed, single and in
/// batches, effects fed back); each change's patch applied to the previous state's JSON gives
/// exactly the next state's JSON, versions grow by one per action, refusals change nothing.
final class PropertyTests: XCTestCase {
    typealias Generate = (inout SeededGenerator, JSONValue) -> ActionRecord

    func testCounterPatches() throws {
        try check("counter", steps: 600) { g, state in
            let count = state["count"].flatMap { if case .int(let i) = $0 { i } else { nil } } ?? 0
            let favorites = state["favoritePrimes"].flatMap { if case .array(let a) = $0 { a.count } else { nil } } ?? 0
            switch Int.random(in: 0..<10, using: &g) {
            case 0, 1: return .init(type: "counter/incrTapped", at: 0, source: .client)
            case 2: return .init(type: "counter/decrTapped", at: 0, source: .client)
            case 3, 4: return .init(type: "primeModal/saveFavoritePrimeTapped", at: 0, source: .client)
            case 5: return .init(type: "primeModal/removeFavoritePrimeTapped", at: 0, source: .client)
            case 6:
                let n = Int.random(in: 0...3, using: &g)
                let idx = (0..<n).map { _ in JSONValue.int(Int.random(in: -1...max(0, favorites), using: &g)) }
                return .init(type: "favoritePrimes/deleteFavoritePrimes", payload: .object(["indexes": .array(idx)]), at: 0, source: .client)
            case 7: return .init(type: "counter/nthPrimeButtonTapped", at: 0, source: .client)
            case 8: return .init(type: "counter/alertDismissed", at: 0, source: .client)
            default: return .init(type: count % 2 == 0 ? "counter/nthPrimeResponse" : "counter/bogus", at: 0, source: .client)
            }
        }
    }

    func testShopPatches() throws {
        let names = ["a", "b", "c", "d~/", "é"]
        try check("shop", steps: 600) { g, _ in
            let name = JSONValue.string(names[Int.random(in: 0..<names.count, using: &g)])
            switch Int.random(in: 0..<8, using: &g) {
            case 0...4: return .init(type: "shop/add", payload: name, at: 0, source: .client)
            case 5, 6: return .init(type: "shop/remove", payload: name, at: 0, source: .client)
            default: return .init(type: "shop/add", payload: .int(1), at: 0, source: .client)
            }
        }
    }

    func testTasksPatches() throws {
        try check("tasks", steps: 1_000) { g, state in
            let next = state["nextId"].flatMap { if case .int(let i) = $0 { i } else { nil } } ?? 1
            let id = JSONValue.int(Int.random(in: 0...max(1, next), using: &g))
            let types = ["tasks/add", "tasks/add", "tasks/add", "tasks/rename", "tasks/toggleDone", "tasks/toggleDone",
                         "tasks/remove", "tasks/remove", "tasks/favorite", "tasks/unfavorite"]
            let type = types[Int.random(in: 0..<types.count, using: &g)]
            let title = JSONValue.string("t\(Int.random(in: 0..<5, using: &g))")
            switch type {
            case "tasks/add": return .init(type: type, payload: .object(["title": title]), at: 0, source: .client)
            case "tasks/rename": return .init(type: type, payload: .object(["id": id, "title": title]), at: 0, source: .client)
            default: return .init(type: type, payload: .object(["id": id]), at: 0, source: .client)
            }
        }
    }

    func testLoginPatches() throws {
        let emails = ["a@b.c", "x@y.invalid", "nope", ""]
        let passwords = ["short", "long enough pw", "wrongpassword"]
        try check("login", steps: 600) { g, _ in
            switch Int.random(in: 0..<7, using: &g) {
            case 0: return .init(type: "login/emailChanged", payload: .string(emails.randomElement(using: &g) ?? ""), at: 0, source: .client)
            case 1: return .init(type: "login/passwordChanged", payload: .string(passwords.randomElement(using: &g) ?? ""), at: 0, source: .client)
            case 2: return .init(type: "login/connectivityChanged", payload: .object(["online": .bool(Bool.random(using: &g))]), at: 0, source: .client)
            case 3, 4: return .init(type: "login/loginTapped", at: 0, source: .client)
            case 5: return .init(type: "login/confirmationAnswered", payload: .object(["confirm": .bool(Bool.random(using: &g))]), at: 0, source: .client)
            default: return .init(type: "login/loginFailed", at: 0, source: .client)  // internal: refused
            }
        }
    }

    /// Copies of the tasks state kept along the way (O(1): they share the table with the live
    /// state) still equal the state at their version after thousands of further actions, as a
    /// replay of the applied records from version 0 gives it and as it encoded when kept.
    func testKeptTasksStatesEqualReplayFromVersionZero() throws {
        let store = Store(kind: "tasks", state: TasksState.initial, reducer: tasksReducer, environment: .immediate)
        var g = SeededGenerator(seed: 0xC0FF_EE17)
        var records: [ActionRecord] = []
        var kept: [(version: Int, state: TasksState, bytes: [UInt8])] = []
        // Enough tasks that the tables' tries have branch levels to share.
        for _ in 0..<4 {
            let batch = (0..<500).map { ActionRecord(type: "tasks/add", payload: .object(["title": .string("t\($0)")]), at: 0, source: .client) }
            _ = try store.apply(batch)
            records += batch
        }
        var refused = 0
        for step in 0..<1_500 {
            let next = store.state.nextId
            let batch = (0..<Int.random(in: 1...4, using: &g)).map { _ -> ActionRecord in
                let id = JSONValue.int(Int.random(in: 0...next, using: &g))
                switch Int.random(in: 0..<8, using: &g) {
                case 0, 1: return .init(type: "tasks/add", payload: .object(["title": .string("n\(step)")]), at: 0, source: .client)
                case 2: return .init(type: "tasks/rename", payload: .object(["id": id, "title": .string("r\(step)")]), at: 0, source: .client)
                case 3, 4: return .init(type: "tasks/toggleDone", payload: .object(["id": id]), at: 0, source: .client)
                case 5: return .init(type: "tasks/remove", payload: .object(["id": id]), at: 0, source: .client)
                default: return .init(type: "tasks/favorite", payload: .object(["id": id]), at: 0, source: .client)
                }
            }
            do {
                // States inside a batch are kept by the store as it applies it, not by replay.
                let inside = try store.apply(batch, keepingEvery: 5).kept
                records += batch
                for (version, shared) in inside where version % 100 == 0 {
                    kept.append((version, try XCTUnwrap(shared.state(as: TasksState.self)), shared.encode()))
                }
            } catch {
                refused += 1
            }
            if step % 37 == 0 { kept.append((store.version, store.state, store.state.jsonBytes())) }
        }
        XCTAssertEqual(store.version, records.count)
        XCTAssertGreaterThan(refused, 0)
        XCTAssertGreaterThan(kept.count, 45, "states kept between and inside batches")
        kept.sort { $0.version < $1.version }
        let replay = Store(kind: "tasks", state: TasksState.initial, reducer: tasksReducer, environment: .immediate)
        for (version, state, bytes) in kept {
            while replay.version < version { _ = try replay.apply([records[replay.version]]) }
            XCTAssertEqual(state, replay.state, "kept state at \(version)")
            XCTAssertEqual(state.jsonBytes(), bytes, "kept state at \(version) changed after it was kept")
            XCTAssertEqual(state.jsonBytes(), replay.state.jsonBytes())
        }
    }

    private func check(_ kindName: String, steps: Int, _ generate: Generate) throws {
        try assertPatchesMatchState(of: try XCTUnwrap(KindRegistry.shipped.kind(named: kindName)), steps: steps, generate)
    }
}
