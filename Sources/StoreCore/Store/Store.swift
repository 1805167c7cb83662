/// The typed store of one session: state, version, reducer and the effects it produced.
///
/// `apply` is the one path every action takes, from a client or an effect:
/// decode and check every record (before any reducer runs), then per action take a
/// checkpoint, run the reducer, write the patch since the checkpoint, collect outputs and
/// effects; a refusal rolls the whole batch back. NOT thread-safe: the session serializes calls.
///
///     let store = Store(kind: "counter", state: .initial, reducer: counterAppReducer)
///     let changes = try store.apply([ActionRecord(type: "counter/incrTapped", at: 0, source: .client)])
public final class Store<State: StoreState, Action: StoreAction>: AnyStore {
    public let kind: String
    public private(set) var version: Int
    public private(set) var state: State
    public let reducer: Reducer<State, Action>
    public let environment: EffectEnvironment
    private var pending: [Effect<Action>.Work] = []

    public init(kind: String, state: State, version: Int = 0, reducer: Reducer<State, Action>,
                environment: EffectEnvironment = .live) {
        self.kind = kind
        self.state = state
        self.version = version
        self.reducer = reducer
        self.environment = environment
    }

    public func encodeState() -> [UInt8] { state.jsonBytes(capacity: 1024) }

    public func stateValue() -> JSONValue { state.jsonValue() }

    /// Decodes a record into the kind's action, refusing effect-only types from clients.
    public static func decode(_ record: ActionRecord) throws(ActionError) -> Action {
        if record.source == .client, Action.internalTypes.contains(record.type) {
            throw .internalAction(type: record.type)
        }
        return try Action(type: record.type, payload: record.payload)
    }

    public func apply(_ records: [ActionRecord]) throws(BatchError) -> [Change] {
        var actions: [Action] = []
        actions.reserveCapacity(records.count)
        for (i, r) in records.enumerated() {
            do { actions.append(try Store.decode(r)) } catch { throw BatchError(index: i, error: error) }
        }
        let (changes, works) = try run(actions, records)
        pending.append(contentsOf: works)
        return changes
    }

    /// Typed entry (tests, benchmarks): applies typed actions stamped `at`, returning the
    /// changes and the effects' work instead of queueing it.
    public func send(_ actions: [Action], at: Int64, source: ActionSource = .client) throws(BatchError)
        -> (changes: [Change], effects: [Effect<Action>.Work]) {
        let records = actions.map { ActionRecord(type: $0.type, payload: $0.payload, at: at, source: source) }
        return try run(actions, records)
    }

    private func run(_ actions: [Action], _ records: [ActionRecord]) throws(BatchError)
        -> ([Change], [Effect<Action>.Work]) {
        guard !actions.isEmpty else { return ([], []) }
        var changes: [Change] = []
        changes.reserveCapacity(actions.count)
        var works: [Effect<Action>.Work] = []
        let batchStart = state.checkpoint()
        for i in 0..<actions.count {
            let record = records[i]
            let before = i == 0 ? batchStart : state.checkpoint()
            let effect: Effect<Action>
            do {
                effect = try reducer.reduce(&state, actions[i], ActionContext(at: record.at, source: record.source))
            } catch {
                state.rollback(to: batchStart)
                throw BatchError(index: i, error: error.actionError)
            }
            var patch = PatchWriter()
            state.writePatch(since: before, into: &patch)
            var outputs: [StoreOutput] = []
            effect.flatten(outputs: &outputs, works: &works)
            changes.append(Change(version: version + i + 1, action: record, patch: patch.bytes, outputs: outputs))
        }
        state.commit()
        version += actions.count
        return (changes, works)
    }

    public func takePendingEffects() -> [PendingEffect] {
        let works = pending
        pending = []
        let environment = self.environment
        return works.map { work in
            PendingEffect { send in
                await work(environment, Send { action in send(action.type, action.payload) })
            }
        }
    }
}
