// Only where a library can import XCTest (the other helpers of StoreTesting need nothing of it).
#if canImport(XCTest)
import Dispatch
import Synchronization
import XCTest
import StoreCore

/// An exhaustive test harness in the spirit of TCA's TestStore.
///
/// `send` applies an action and asserts the whole state after it (the closure states the
/// expected change from the previous expected state) and the outputs; the action's patch is
/// checked to turn the previous state's JSON into the new one. Effects run at once on the
/// injected environment; each action they send must then be `receive`d in order, and
/// `finish()` fails on any that were not.
///
/// ```swift
/// import StoreTesting
/// import XCTest
///
/// final class CounterTests: XCTestCase {
///     func testIncrement() {
///         let store = TestStore(initialState: CounterAppState(), reducer: counterAppReducer)
///         store.send(.counter(.incrTapped)) { $0.count = 1 }
///     }
/// }
/// ```
public final class TestStore<State: StoreState & Equatable, Action: StoreAction & Equatable> {
    /// The store under test (its `state` and `version` are the real ones).
    public let store: Store<State, Action>
    /// The state the test expects, as the `update` closures built it.
    public private(set) var expected: State
    private var queue: [Action] = []
    /// What effects run with (`.immediate` unless given: no sleeps, fixed tokens).
    public var environment: EffectEnvironment
    /// The `at` stamp of the next action.
    public var now: Int64
    private let file: StaticString
    private let line: UInt

    /// A store at `initialState` whose effects run on `environment`, each action stamped `now`,
    /// `now + 1`, ….
    public init(initialState: State = .initial, reducer: Reducer<State, Action>, environment: EffectEnvironment = .immediate,
         now: Int64 = 1_763_755_301_123, file: StaticString = #filePath, line: UInt = #line) {
        self.store = Store(kind: "test", state: initialState, reducer: reducer, environment: environment)
        self.expected = initialState
        self.environment = environment
        self.now = now
        self.file = file
        self.line = line
    }

    deinit {
        if !queue.isEmpty {
            XCTFail("TestStore ended with \(queue.count) unreceived effect action(s): \(queue)", file: file, line: line)
        }
    }

    /// Sends a client action; `update` turns the previous expected state into the expected one.
    public func send(_ action: Action, outputs: [StoreOutput] = [], file: StaticString = #filePath, line: UInt = #line,
              _ update: (inout State) -> Void = { _ in }) {
        // Like TCA, a client may act while effect actions are still in flight; they must
        // still be received (or `finish`/deinit fails).
        step(action, source: .client, outputs: outputs, file: file, line: line, update)
    }

    /// Receives the next action an effect sent, which must equal `action`.
    public func receive(_ action: Action, outputs: [StoreOutput] = [], file: StaticString = #filePath, line: UInt = #line,
                 _ update: (inout State) -> Void = { _ in }) {
        guard !queue.isEmpty else {
            XCTFail("expected to receive \(action), but no effect action is pending", file: file, line: line)
            return
        }
        let next = queue.removeFirst()
        XCTAssertEqual(next, action, "received a different effect action", file: file, line: line)
        step(next, source: .effect, outputs: outputs, file: file, line: line, update)
    }

    /// Sends an action the reducer must refuse with `error`, leaving state and version untouched.
    public func send(_ action: Action, refusedWith expectedError: ActionError, file: StaticString = #filePath, line: UInt = #line) {
        let before = store.state.jsonBytes()
        let version = store.version
        do {
            _ = try store.send([action], at: now, source: .client)
            XCTFail("\(action) was not refused", file: file, line: line)
        } catch {
            XCTAssertEqual(error, BatchError(index: 0, error: expectedError), file: file, line: line)
        }
        XCTAssertEqual(String(decoding: store.state.jsonBytes(), as: UTF8.self), String(decoding: before, as: UTF8.self),
                       "a refused action changed the state", file: file, line: line)
        XCTAssertEqual(store.version, version, file: file, line: line)
        XCTAssertEqual(store.state, expected, file: file, line: line)
    }

    /// Fails if effect actions are still waiting to be received.
    public func finish(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(queue.isEmpty, "unreceived effect actions: \(queue)", file: file, line: line)
        queue.removeAll()
    }

    private func step(_ action: Action, source: ActionSource, outputs: [StoreOutput], file: StaticString, line: UInt,
                      _ update: (inout State) -> Void) {
        let beforeJSON = store.state.jsonValue()
        let version = store.version
        let result: (changes: [Change], effects: [Effect<Action>.Work])
        do {
            result = try store.send([action], at: now, source: source)
        } catch {
            XCTFail("\(action) was refused: \(error)", file: file, line: line)
            return
        }
        update(&expected)
        now += 1
        XCTAssertEqual(store.state, expected, "state after \(action)\n  actual:   \(text(store.state))\n  expected: \(text(expected))",
                       file: file, line: line)
        XCTAssertEqual(store.version, version + 1, file: file, line: line)
        guard let change = result.changes.first else { XCTFail("no change", file: file, line: line); return }
        XCTAssertEqual(change.version, version + 1, file: file, line: line)
        XCTAssertEqual(change.outputs, outputs, "outputs of \(action)", file: file, line: line)
        do {
            let patched = try JSONPatch.apply(change.patch, to: beforeJSON)
            XCTAssertEqual(patched, store.state.jsonValue(), "patch \(String(decoding: change.patch, as: UTF8.self))",
                           file: file, line: line)
        } catch {
            XCTFail("patch does not apply: \(error)", file: file, line: line)
        }
        for work in result.effects { queue.append(contentsOf: runToEnd(work)) }
    }

    /// Runs one effect to its end and returns what it sent, in order. The test thread is not a
    /// concurrency-pool thread, so blocking it on the semaphore cannot starve the effect.
    private func runToEnd(_ work: @escaping Effect<Action>.Work) -> [Action] {
        let sent = Mutex<[Action]>([])
        let done = DispatchSemaphore(value: 0)
        let environment = self.environment
        Task {
            await work(environment, Send { action in sent.withLock { $0.append(action) } })
            done.signal()
        }
        if done.wait(timeout: .now() + 10) == .timedOut { XCTFail("an effect did not finish within 10 s") }
        return sent.withLock { $0 }
    }

    private func text(_ s: State) -> String { String(decoding: s.jsonBytes(), as: UTF8.self) }
}
#endif
