import XCTest
@testable import StoreCore
@testable import StoreKinds
import StoreTesting

final class TasksKindTests: XCTestCase {
    func testAddAndFavoriteGiveTheShapeOfAPIMD() {
        let store = TestStore(reducer: tasksReducer)
        store.send(.add(title: "write")) {
            $0.tasks.insert(TaskItem(id: 1, title: "write"))
            $0.nextId = 2
        }
        store.send(.favorite(id: 1)) { $0.favoriteIds = [1] }
        XCTAssertEqual(String(decoding: store.store.encodeState(), as: UTF8.self),
                       #"{"tasks":{"byId":{"1":{"id":1,"title":"write","done":false}},"allIds":[1]},"favoriteIds":[1],"nextId":2}"#)
    }

    func testRenameToggleRemoveUnfavorite() {
        let store = TestStore(reducer: tasksReducer)
        store.send(.add(title: "a")) { $0.tasks.insert(TaskItem(id: 1, title: "a")); $0.nextId = 2 }
        store.send(.add(title: "b")) { $0.tasks.insert(TaskItem(id: 2, title: "b")); $0.nextId = 3 }
        store.send(.rename(id: 1, title: "A")) { $0.tasks.update(1) { $0.title = "A" } }
        store.send(.toggleDone(id: 2)) { $0.tasks.update(2) { $0.done = true } }
        store.send(.toggleDone(id: 2)) { $0.tasks.update(2) { $0.done = false } }
        store.send(.favorite(id: 2)) { $0.favoriteIds = [2] }
        store.send(.favorite(id: 2))  // already a favorite: unchanged
        store.send(.favorite(id: 1)) { $0.favoriteIds = [2, 1] }
        store.send(.unfavorite(id: 2)) { $0.favoriteIds = [1] }
        store.send(.unfavorite(id: 2))  // not a favorite: unchanged
        store.send(.remove(id: 1)) { $0.tasks.remove(1); $0.favoriteIds = [] }
        store.send(.add(title: "c")) { $0.tasks.insert(TaskItem(id: 3, title: "c")); $0.nextId = 4 }
        XCTAssertEqual(store.store.state.tasks.ids, [2, 3])
    }

    func testUnknownIdIsInvalidPayloadForEveryAction() {
        let store = TestStore(reducer: tasksReducer)
        store.send(.add(title: "a")) { $0.tasks.insert(TaskItem(id: 1, title: "a")); $0.nextId = 2 }
        let refusal = ActionError.invalidPayload(detail: "payload.id: no task with id 9")
        for action in [TasksAction.rename(id: 9, title: "x"), .toggleDone(id: 9), .remove(id: 9), .favorite(id: 9), .unfavorite(id: 9)] {
            store.send(action, refusedWith: refusal)
        }
    }

    func testPayloadErrorsNameTheField() {
        func detail(_ type: String, _ payload: JSONValue?) -> String? {
            do { _ = try TasksAction(type: type, payload: payload); return nil } catch {
                if case .invalidPayload(let d) = error { return d }
                return "\(error)"
            }
        }
        XCTAssertEqual(detail("tasks/add", .object([:])), "payload.title: expected a string, got none")
        XCTAssertEqual(detail("tasks/rename", .object(["id": .string("1"), "title": .string("x")])), "payload.id: expected an integer, got a string")
        XCTAssertEqual(detail("tasks/rename", .object(["id": .int(1)])), "payload.title: expected a string, got none")
        XCTAssertEqual(detail("tasks/toggleDone", .string("1")), "payload: tasks/toggleDone expects an object, got a string")
        XCTAssertEqual(detail("tasks/remove", .object(["id": .double(1.5)])), "payload.id: expected an integer, got a number")
    }

    func testStateDecodingNamesThePath() {
        let kind = KindRegistry.shipped.kind(named: "tasks")
        func error(_ json: String) -> String? {
            guard let kind, let v = try? JSONReader.parse(json) else { return "setup" }
            do { _ = try kind.makeStore(state: v, version: 0, environment: .immediate); return nil } catch { return error.description }
        }
        XCTAssertNil(error(#"{"tasks":{"byId":{"1":{"id":1,"title":"a","done":false}},"allIds":[1]},"favoriteIds":[1],"nextId":2}"#))
        XCTAssertEqual(error(#"{"tasks":{"byId":{"1":{"id":1,"title":3,"done":false}},"allIds":[1]},"favoriteIds":[],"nextId":2}"#),
                       "/tasks/byId/1/title: expected a string, got a number")
        XCTAssertEqual(error(#"{"tasks":{"byId":{},"allIds":[1]},"favoriteIds":[],"nextId":2}"#), "/tasks/allIds/0: no such member in byId")
        XCTAssertEqual(error(#"{"tasks":{"byId":{"2":{"id":2,"title":"a","done":false}},"allIds":[]},"favoriteIds":[],"nextId":3}"#),
                       "/tasks/byId/2: not listed in allIds")
        XCTAssertEqual(error(#"{"tasks":{"byId":{"2":{"id":3,"title":"a","done":false}},"allIds":[2]},"favoriteIds":[],"nextId":4}"#),
                       "/tasks/byId/2/id: does not match its key")
        XCTAssertEqual(error(#"{"tasks":{"byId":{},"allIds":[]},"favoriteIds":[4],"nextId":1}"#), "/favoriteIds/0: no task has this id")
        XCTAssertEqual(error(#"{"tasks":{"byId":{"5":{"id":5,"title":"a","done":false}},"allIds":[5]},"favoriteIds":[],"nextId":5}"#),
                       "/nextId: must be greater than every task id")
        XCTAssertEqual(error(#"{"tasks":{"byId":{},"allIds":[]},"favoriteIds":[]}"#), "/nextId: missing")
        // add() would hand out id 0 or -5, whose key the schema does not allow.
        XCTAssertEqual(error(#"{"tasks":{"byId":{},"allIds":[]},"favoriteIds":[],"nextId":-5}"#), "/nextId: must be at least 1")
        XCTAssertEqual(error(#"{"tasks":{"byId":{},"allIds":[]},"favoriteIds":[],"nextId":0}"#), "/nextId: must be at least 1")
        XCTAssertEqual(error(#"{"tasks":{"byId":{"-3":{"id":-3,"title":"a","done":false}},"allIds":[-3]},"favoriteIds":[],"nextId":1}"#),
                       "/tasks/byId/-3: a task id is never negative")
    }

    func testADuplicateFavoriteIsDroppedSoRemoveLeavesNoDanglingId() throws {
        // Kept, the duplicate outlived its task's remove and left a state no longer loadable:
        // the session was lost at its next recovery.
        let kind = try XCTUnwrap(KindRegistry.shipped.kind(named: "tasks"))
        let restored = #"{"tasks":{"byId":{"1":{"id":1,"title":"a","done":false},"2":{"id":2,"title":"b","done":false}},"allIds":[1,2]},"favoriteIds":[1,2,1],"nextId":3}"#
        let store = try kind.makeStore(state: JSONReader.parse(Array(restored.utf8)), version: 0, environment: .immediate)
        XCTAssertTrue(String(decoding: store.encodeState(), as: UTF8.self).contains(#""favoriteIds":[1,2]"#))
        _ = try store.apply([ActionRecord(type: "tasks/remove", payload: .object(["id": .int(1)]), at: 0, source: .client)])
        let after = store.encodeState()
        XCTAssertTrue(String(decoding: after, as: UTF8.self).contains(#""favoriteIds":[2]"#))
        XCTAssertNoThrow(try kind.makeStore(state: JSONReader.parse(after), version: 1, environment: .immediate), "what the store wrote loads again")
    }

    func testRestoredStateSerializesInCanonicalOrder() throws {
        let json = #"{"nextId":3,"favoriteIds":[],"tasks":{"allIds":[2,1],"byId":{"1":{"done":true,"title":"a","id":1},"2":{"title":"b","id":2,"done":false}}}}"#
        let store = try XCTUnwrap(KindRegistry.shipped.kind(named: "tasks")).makeStore(state: try JSONReader.parse(json), version: 7, environment: .immediate)
        XCTAssertEqual(store.version, 7)
        XCTAssertEqual(String(decoding: store.encodeState(), as: UTF8.self),
                       #"{"tasks":{"byId":{"2":{"id":2,"title":"b","done":false},"1":{"id":1,"title":"a","done":true}},"allIds":[2,1]},"favoriteIds":[],"nextId":3}"#)
    }
}

final class TasksPointerTests: XCTestCase {
    /// Pointer lookups answer exactly the bytes that stand at the pointer in the whole state's
    /// encoding (same key order), and the value that walking the parsed state finds.
    func testPointerLookupsAgreeWithTheWholeState() throws {
        let kind = try XCTUnwrap(KindRegistry.shipped.kind(named: "tasks"))
        let store = try kind.makeStore(state: nil, version: 0, environment: .immediate)
        func add(_ t: String) throws { _ = try store.apply([ActionRecord(type: "tasks/add", payload: .object(["title": .string(t)]), at: 0, source: .client)]) }
        for i in 1...40 { try add("t\(i)") }
        for id in [3, 5, 6, 7, 20, 40] {
            _ = try store.apply([ActionRecord(type: "tasks/remove", payload: .object(["id": .int(id)]), at: 0, source: .client)])
        }
        _ = try store.apply([ActionRecord(type: "tasks/favorite", payload: .object(["id": .int(2)]), at: 0, source: .client)])
        let whole = store.stateValue()
        let bytes = store.encodeState()
        var pointers = ["", "/tasks", "/tasks/byId", "/tasks/allIds", "/favoriteIds", "/favoriteIds/0", "/favoriteIds/1", "/nextId",
                        "/nextId/x", "/nope", "/tasks/nope", "/tasks/byId/x", "/tasks/byId/3", "/tasks/byId/03", "/tasks/allIds/-",
                        "/tasks/allIds/01", "/tasks/allIds/34", "/tasks/allIds/0/x", "/tasks/byId/2/title/x"]
        for id in 0...41 { pointers += ["/tasks/byId/\(id)", "/tasks/byId/\(id)/title", "/tasks/byId/\(id)/done"] }
        for i in 0...36 { pointers.append("/tasks/allIds/\(i)") }
        for p in pointers {
            let pointer = try JSONPointer(p)
            let answer = store.encodedState(at: pointer)
            XCTAssertEqual(answer, JSONPointer.locate(pointer.tokens[...], in: bytes).map { Array(bytes[$0]) }, p)
            XCTAssertEqual(answer.flatMap { try? JSONReader.parse($0) }, whole.value(at: pointer), p)
        }
    }

    /// A store started from a kept state goes on from it as one started from its JSON does, and
    /// the kept state is not touched by what the new store does.
    func testStoreFromASharedStateGoesOnFromIt() throws {
        let kind = try XCTUnwrap(KindRegistry.shipped.kind(named: "tasks"))
        let store = try kind.makeStore(state: nil, version: 0, environment: .immediate)
        let adds = (0..<6).map { ActionRecord(type: "tasks/add", payload: .object(["title": .string("t\($0)")]), at: 0, source: .client) }
        let (_, inside) = try store.apply(adds, keepingEvery: 4)
        XCTAssertEqual(inside.map(\.version), [4])
        let kept = store.sharedState()
        let before = kept.encode()
        let fromShared = try kind.makeStore(shared: kept, version: 6, environment: .immediate)
        let fromJSON = try kind.makeStore(state: JSONReader.parse(before), version: 6, environment: .immediate)
        let more = [ActionRecord(type: "tasks/toggleDone", payload: .object(["id": .int(2)]), at: 0, source: .client),
                    ActionRecord(type: "tasks/remove", payload: .object(["id": .int(5)]), at: 0, source: .client)]
        XCTAssertEqual(try fromShared.apply(more).map(\.patch), try fromJSON.apply(more).map(\.patch))
        XCTAssertEqual(fromShared.encodeState(), fromJSON.encodeState())
        XCTAssertEqual(kept.encode(), before)
        XCTAssertEqual(try XCTUnwrap(inside.first?.state.jsonValue())["nextId"], .int(5))
        XCTAssertEqual(kept.encodedValue(at: try JSONPointer("/tasks/byId/2/done")), Array("false".utf8))
    }
}
