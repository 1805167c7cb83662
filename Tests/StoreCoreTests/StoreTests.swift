import Synchronization
import XCTest
@testable import StoreCore
import StoreTesting

/// A two-feature toy app: composition, rollback and effects, independent of the shipped kinds.
struct Toy: StoreState, PatchDiffable {
    var a: Int = 0
    var b: [Int] = []
    static var initial: Toy { Toy() }
    func writeJSON(to w: inout JSONWriter) {
        w.beginObject(); w.key("a"); w.write(a); w.key("b"); b.writeJSON(to: &w); w.endObject()
    }
    init() {}
    init(json: JSONValue, path: String) throws(StateDecodingError) {
        a = try json.decodeMember("a", at: path)
        b = try json.decodeMember("b", at: path)
    }
    func diff(from old: Toy, at path: String, into patch: inout PatchWriter) {
        patch.field(a, old.a, path, "/a")
        patch.field(b, old.b, path, "/b")
    }
}

enum AAction: Equatable, Sendable { case add(Int), fail, ping, pong(Int) }
enum BAction: Equatable, Sendable { case push(Int), pushThenFail(Int) }

enum ToyAction: StoreAction, Equatable {
    case a(AAction), b(BAction)
    static let clientTypes = ["a/add", "a/fail", "a/ping", "b/push", "b/pushThenFail"]
    static let internalTypes = ["a/pong"]
    init(type: String, payload: JSONValue?) throws(ActionError) {
        switch type {
        case "a/add": self = .a(.add(try Payload.int(payload, field: "payload")))
        case "a/fail": self = .a(.fail)
        case "a/ping": self = .a(.ping)
        case "a/pong": self = .a(.pong(try Payload.int(payload, field: "payload")))
        case "b/push": self = .b(.push(try Payload.int(payload, field: "payload")))
        case "b/pushThenFail": self = .b(.pushThenFail(try Payload.int(payload, field: "payload")))
        default: throw Self.unknown(type)
        }
    }
    var type: String {
        switch self {
        case .a(.add): "a/add"
        case .a(.fail): "a/fail"
        case .a(.ping): "a/ping"
        case .a(.pong): "a/pong"
        case .b(.push): "b/push"
        case .b(.pushThenFail): "b/pushThenFail"
        }
    }
    var payload: JSONValue? {
        switch self {
        case .a(.add(let n)), .a(.pong(let n)), .b(.push(let n)), .b(.pushThenFail(let n)): .int(n)
        default: nil
        }
    }
}

let aReducer = Reducer<Int, AAction> { a, action, context throws(Rejection) in
    switch action {
    case .add(let n): a += n; return .none
    case .fail: throw .rejected("no")
    case .ping:
        let at = context.at
        return .merge(.output("a/pinged", payload: .int(Int(at))), .run { env, send in
            await env.sleep(env.latency)
            send(.pong(1)); send(.pong(2))
        })
    case .pong(let n): a += n * 100; return .none
    }
}

let bReducer = Reducer<[Int], BAction> { b, action, _ throws(Rejection) in
    switch action {
    case .push(let n): b.append(n)
    case .pushThenFail(let n):
        b.append(n)  // mutated, then refused: the Store must undo it
        throw .invalidPayload("payload: \(n) refused after mutating")
    }
    return .none
}

let toyReducer = Reducer<Toy, ToyAction>.combine(
    aReducer.pullback(state: \Toy.a, action: CasePath(embed: ToyAction.a) { if case .a(let x) = $0 { x } else { nil } }),
    bReducer.pullback(state: \Toy.b, action: CasePath(embed: ToyAction.b) { if case .b(let x) = $0 { x } else { nil } })
)

final class StoreTests: XCTestCase {
    func makeStore() -> any AnyStore { ErasedStore(Store(kind: "toy", state: Toy(), reducer: toyReducer, environment: .immediate)) }
    func r(_ type: String, _ payload: JSONValue? = nil, source: ActionSource = .client) -> ActionRecord {
        ActionRecord(type: type, payload: payload, at: 77, source: source)
    }

    func testVersionsPatchesAndComposition() throws {
        let store = makeStore()
        let changes = try store.apply([r("a/add", .int(2)), r("b/push", .int(9)), r("b/push", .int(8))])
        XCTAssertEqual(changes.map(\.version), [1, 2, 3])
        XCTAssertEqual(changes.map { String(decoding: $0.patch, as: UTF8.self) },
                       [#"[{"op":"replace","path":"/a","value":2}]"#, #"[{"op":"add","path":"/b/0","value":9}]"#,
                        #"[{"op":"add","path":"/b/1","value":8}]"#])
        XCTAssertEqual(store.version, 3)
        XCTAssertEqual(String(decoding: store.encodeState(), as: UTF8.self), #"{"a":2,"b":[9,8]}"#)
        XCTAssertEqual(store.stateValue(), .object(["a": .int(2), "b": .array([.int(9), .int(8)])]))
    }

    func testRefusalAnywhereInABatchUndoesEverything() throws {
        let store = makeStore()
        _ = try store.apply([r("b/push", .int(1))])
        XCTAssertThrowsError(try store.apply([r("a/add", .int(5)), r("b/push", .int(2)), r("b/pushThenFail", .int(3))])) {
            XCTAssertEqual($0 as? BatchError, BatchError(index: 2, error: .invalidPayload(detail: "payload: 3 refused after mutating")))
        }
        XCTAssertEqual(String(decoding: store.encodeState(), as: UTF8.self), #"{"a":0,"b":[1]}"#)
        XCTAssertEqual(store.version, 1)
        XCTAssertThrowsError(try store.apply([r("a/fail")])) {
            XCTAssertEqual($0 as? BatchError, BatchError(index: 0, error: .rejected(detail: "no")))
        }
        XCTAssertThrowsError(try store.apply([r("a/add", .string("x"))])) {
            XCTAssertEqual($0 as? BatchError, BatchError(index: 0, error: .invalidPayload(detail: "payload: expected an integer, got a string")))
        }
        XCTAssertEqual(try store.apply([]).count, 0)
        XCTAssertEqual(store.version, 1)
    }

    func testInternalTypesOnlyFromEffects() throws {
        let store = makeStore()
        XCTAssertThrowsError(try store.apply([r("a/pong", .int(1))])) {
            XCTAssertEqual($0 as? BatchError, BatchError(index: 0, error: .internalAction(type: "a/pong")))
        }
        XCTAssertEqual(try store.apply([r("a/pong", .int(1), source: .effect)]).first?.action.source, .effect)
    }

    func testOutputsAndEffectsRunThroughTheInjectedEnvironment() async throws {
        let slept = Mutex<[Duration]>([])
        var env = EffectEnvironment.immediate
        env.latency = .seconds(30)  // would time the test out if it were really waited
        env.sleep = { d in slept.withLock { $0.append(d) } }
        let store = Store(kind: "toy", state: Toy(), reducer: toyReducer, environment: env)
        let changes = try store.apply([r("a/ping")])
        XCTAssertEqual(changes[0].outputs, [StoreOutput(type: "a/pinged", payload: .int(77))])
        XCTAssertEqual(String(decoding: changes[0].patch, as: UTF8.self), "[]")
        let effects = store.takePendingEffects()
        XCTAssertEqual(effects.count, 1)
        let sent = Mutex<[String]>([])
        for e in effects { await e.run { type, payload in sent.withLock { $0.append("\(type) \(payload.map { String(decoding: $0.encoded(), as: UTF8.self) } ?? "-")") } } }
        XCTAssertEqual(sent.withLock { $0 }, ["a/pong 1", "a/pong 2"], "actions keep their order and are embedded into the parent")
        XCTAssertEqual(slept.withLock { $0 }, [.seconds(30)])
        // A refused batch leaves no pending effects behind.
        XCTAssertThrowsError(try store.apply([r("a/ping"), r("a/fail")]))
        XCTAssertTrue(store.takePendingEffects().isEmpty)
    }

    func testCombineRunsEveryReducerInOrder() throws {
        let log = Mutex<[String]>([])
        let first = Reducer<Int, Int> { s, a, _ in log.withLock { $0.append("first \(a)") }; s += a; return .none }
        let second = Reducer<Int, Int> { s, a, _ in log.withLock { $0.append("second \(s)") }; return .none }
        var state = 1
        _ = try Reducer.combine(first, second)(&state, 2, ActionContext(at: 0))
        XCTAssertEqual(log.withLock { $0 }, ["first 2", "second 3"])
        XCTAssertEqual(state, 3)
    }

    func testArrayDiffTouchesOnlyTheMiddle() throws {
        func patch(_ old: [Int], _ new: [Int]) throws -> String {
            var p = PatchWriter()
            new.diff(from: old, at: "/x", into: &p)
            let bytes = p.finish()
            XCTAssertEqual(try JSONPatch.apply(bytes, to: .object(["x": .array(old.map(JSONValue.int))])), .object(["x": .array(new.map(JSONValue.int))]))
            return String(decoding: bytes, as: UTF8.self)
        }
        XCTAssertEqual(try patch([1, 2, 3], [1, 2, 3]), "[]")
        XCTAssertEqual(try patch([1, 2, 3], [1, 3]), #"[{"op":"remove","path":"/x/1"}]"#)
        XCTAssertEqual(try patch([1, 3], [1, 2, 3]), #"[{"op":"add","path":"/x/1","value":2}]"#)
        XCTAssertEqual(try patch([1, 2, 3], [1, 9, 3]), #"[{"op":"replace","path":"/x/1","value":9}]"#)
        var g = SeededGenerator(seed: 3)
        for _ in 0..<300 {
            let a = (0..<Int.random(in: 0..<8, using: &g)).map { _ in Int.random(in: 0..<4, using: &g) }
            let b = (0..<Int.random(in: 0..<8, using: &g)).map { _ in Int.random(in: 0..<4, using: &g) }
            _ = try patch(a, b)
        }
    }

    func testKindDescribesItself() throws {
        let kind = Kind(name: "toy", reducer: toyReducer)
        XCTAssertEqual(kind.actionTypes, ToyAction.clientTypes)
        XCTAssertEqual(kind.internalActionTypes, ["a/pong"])
        XCTAssertEqual(kind.initialState, .object(["a": .int(0), "b": .array([])]))
        XCTAssertThrowsError(try kind.makeStore(state: .object(["a": .int(0), "b": .array([.bool(true)])]), version: 0, environment: .immediate)) {
            XCTAssertEqual($0 as? StateDecodingError, StateDecodingError(path: "/b/0", message: "expected an integer, got a boolean"))
        }
        let store = try kind.makeStore(state: .object(["a": .int(4), "b": .array([])]), version: 9, environment: .immediate)
        XCTAssertEqual(store.version, 9)
        XCTAssertEqual(try store.apply([r("a/add", .int(1))]).first?.version, 10)
    }
}

final class ChangeEncodingTests: XCTestCase {
    func testChangeIsTheSSEChangeData() {
        let change = Change(version: 3, action: ActionRecord(type: "a/add", payload: .int(1), at: 0, source: .client),
                            patch: Array(#"[{"op":"replace","path":"/a","value":1}]"#.utf8), outputs: [])
        XCTAssertEqual(String(decoding: change.jsonBytes(), as: UTF8.self),
                       #"{"version":3,"action":{"type":"a/add","payload":1,"at":"1970-01-01T00:00:00.000Z","source":"client"},"patch":[{"op":"replace","path":"/a","value":1}]}"#)
        XCTAssertEqual(String(decoding: StoreOutput(type: "x/y").jsonBytes(), as: UTF8.self), #"{"type":"x/y"}"#)
    }
}
