import Synchronization
import XCTest
@testable import StoreCore

/// `pullback`/`combine` as generic values (`Scope`, `CombineReducers`): the order reducers run
/// in, how their effects merge, refusals through a computed scope, and `ReducerProtocol` types.
final class ReducerCompositionTests: XCTestCase {
    struct Pair: Equatable { var left = 0; var right = 0 }
    enum PairAction: Equatable, Sendable { case left(Int), right(Int) }
    static let leftCase = CasePath<PairAction, Int>(embed: PairAction.left) { if case .left(let n) = $0 { n } else { nil } }
    static let rightCase = CasePath<PairAction, Int>(embed: PairAction.right) { if case .right(let n) = $0 { n } else { nil } }

    /// A feature written as a type: adds its action, refuses a negative one after writing it.
    struct Adding: ReducerProtocol {
        func reduce(into state: inout Int, action: Int, context: ActionContext) throws(Rejection) -> Effect<Int> {
            state += action
            if action < 0 { throw .rejected("negative") }
            return action == 0 ? .none : .output("added", payload: .int(action))
        }
    }

    func outputs<A>(_ effect: Effect<A>) -> [String] {
        var outputs: [StoreOutput] = [], jobs: [Effect<A>.Job] = []
        effect.flatten(outputs: &outputs, jobs: &jobs)
        return outputs.map { $0.type + ($0.payload.map { " \(String(decoding: $0.encoded(), as: UTF8.self))" } ?? "") }
    }

    func testCombineRunsEveryReducerInOrderAndMergesTheirEffects() throws {
        let log = Mutex<[String]>([])
        func logging(_ name: String, output: Bool) -> Reducer<Int, Int> {
            Reducer { state, action, _ in
                log.withLock { $0.append("\(name) sees \(state)") }
                state += action
                return output ? .output(name) : .none
            }
        }
        let four = Reducer.combine(logging("a", output: true), logging("b", output: false), logging("c", output: true), logging("d", output: true))
        var state = 0
        let effect = try four(&state, 1, ActionContext(at: 0))
        XCTAssertEqual(log.withLock { $0 }, ["a sees 0", "b sees 1", "c sees 2", "d sees 3"])
        XCTAssertEqual(state, 4)
        XCTAssertEqual(outputs(effect), ["a", "c", "d"])
        // The list form, for reducers chosen at run time, does the same.
        log.withLock { $0 = [] }
        let listed = Reducer.combine([logging("a", output: false), logging("b", output: true)])
        XCTAssertEqual(outputs(try listed(&state, 1, ActionContext(at: 0))), ["b"])
        XCTAssertEqual(log.withLock { $0 }, ["a sees 4", "b sees 5"])
    }

    func testMergeMakesANodeOnlyWhenBothEffectsDoSomething() {
        XCTAssertTrue(Effect<Int>.none.merge(with: .none).isNone)
        XCTAssertEqual(outputs(Effect<Int>.output("x").merge(with: .none)), ["x"])
        XCTAssertEqual(outputs(Effect<Int>.none.merge(with: .output("y"))), ["y"])
        XCTAssertEqual(outputs(Effect<Int>.output("x").merge(with: .output("y"))), ["x", "y"])
        XCTAssertTrue(Effect<Int>.merge([]).isNone)
    }

    func testScopesRunOnlyForTheirActionsAndEmbedTheirEffects() async throws {
        let app = Reducer<Pair, PairAction>.combine(
            Adding().pullback(state: \Pair.left, action: Self.leftCase),
            Reducer<Int, Int> { right, n, _ in
                right -= n
                return .run { _, send in send(n * 10) }
            }.pullback(state: \Pair.right, action: Self.rightCase)
        )
        var pair = Pair()
        XCTAssertEqual(outputs(try app(&pair, .left(2), ActionContext(at: 0))), ["added 2"])
        XCTAssertEqual(pair, Pair(left: 2, right: 0))
        let effect = try app(&pair, .right(3), ActionContext(at: 0))
        XCTAssertEqual(pair, Pair(left: 2, right: -3))
        var outs: [StoreOutput] = [], jobs: [Effect<PairAction>.Job] = []
        effect.flatten(outputs: &outs, jobs: &jobs)
        XCTAssertEqual(jobs.count, 1)
        let sent = Mutex<[PairAction]>([])
        await jobs[0].work(.immediate, Send { action in sent.withLock { $0.append(action) } })
        XCTAssertEqual(sent.withLock { $0 }, [.right(30)], "the child's action comes back embedded in the parent's")
    }

    func testAComputedScopeLeavesTheParentAsItWasWhenItRefuses() throws {
        struct Parent: Equatable {
            var a = 1, b = 2
            var sum: Int { get { a + b } set { a = newValue; b = 0 } }
        }
        let app = Reducer<Parent, Int>.combine(
            Adding().pullback(state: \Parent.sum, action: CasePath(embed: { $0 }, extract: { $0 })),
            Reducer { _, _, _ in .none }
        )
        var parent = Parent()
        XCTAssertThrowsError(try app(&parent, -5, ActionContext(at: 0)))
        XCTAssertEqual(parent, Parent(a: 1, b: 2), "a refused action writes nothing back")
        _ = try app(&parent, 4, ActionContext(at: 0))
        XCTAssertEqual(parent, Parent(a: 7, b: 0))
    }
}
