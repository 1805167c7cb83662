/// The typed store of one session: state, version, reducer and the effects it produced.
///
/// `apply` is the one path every action takes, from a client or an effect:
/// decode and check every record (before any reducer runs), then per action take a
/// checkpoint, run the reducer, write the patch since the checkpoint, collect outputs and
/// effects; a refusal rolls the whole batch back. NOT thread-safe: the session serializes calls.
///
/// The hot path is `@inlinable` so a kind's module compiles it specialized for its own
/// State and Action (no generic metadata lookups per action); `Kind` erases it through
/// `ErasedStore`, whose closures are created in that specialized context.
///
///     let store = Store(kind: "counter", state: .initial, reducer: counterAppReducer)
///     let changes = try store.apply([ActionRecord(type: "counter/incrTapped", at: 0, source: .client)])
public final class Store<State: StoreState, Action: StoreAction>: AnyStore {
    public let kind: String
    @usableFromInline var _version: Int
    @usableFromInline var _state: State
    public let reducer: Reducer<State, Action>
    public let environment: EffectEnvironment
    @usableFromInline var pending: [Effect<Action>.Job] = []

    @inlinable public var version: Int { _version }
    @inlinable public var state: State { _state }

    @inlinable
    public init(kind: String, state: State, version: Int = 0, reducer: Reducer<State, Action>,
                environment: EffectEnvironment = .live) {
        self.kind = kind
        self._state = state
        self._version = version
        self.reducer = reducer
        self.environment = environment
    }

    @inlinable public func encodeState() -> [UInt8] { _state.jsonBytes(capacity: 1024) }

    @inlinable public func encodeState(into bytes: inout [UInt8]) {
        // The writer takes the caller's buffer for the duration (a move, not a copy).
        var w = JSONWriter(capacity: 0)
        swap(&w.bytes, &bytes)
        Self.write(&_state, to: &w)
        swap(&w.bytes, &bytes)
    }

    /// Writes the state borrowed in place (`inout`), not a copy of the stored property.
    @inlinable static func write(_ state: inout State, to w: inout JSONWriter) { state.writeJSON(to: &w) }

    @inlinable public func stateValue() -> JSONValue { _state.jsonValue() }

    @inlinable public func encodedState(at pointer: JSONPointer) -> [UInt8]? { _state.encodedValue(at: pointer.tokens[...]) }

    /// The state as a value, O(1): it shares every unchanged part with the state as it goes on.
    @inlinable public func sharedState() -> SharedState { SharedState(_state) }

    /// Decodes a record into the kind's action, refusing effect-only types from clients, and a
    /// payload on an action that takes none: a decoded action without a `payload` takes none, and
    /// one sent anyway would be journaled and kept for nothing (any size up to the body limit).
    /// `replaying`: the record is already journaled (recovery, a rebuilt version), so a payload
    /// on such an action is ignored as it was when it was accepted, and the session still replays.
    ///
    ///     let action = try Store<CounterState, CounterAction>.decode(record, replaying: true)
    @inlinable
    public static func decode(_ record: ActionRecord, replaying: Bool = false) throws(ActionError) -> Action {
        // Lengths first: a client's type is rarely internal, and `==` on two different strings
        // calls into the runtime (~80 instructions per action); a length is read in place.
        if record.source == .client,
           Action.internalTypes.contains(where: { $0.utf8.count == record.type.utf8.count && $0 == record.type }) {
            throw .internalAction(type: record.type)
        }
        let action = try Action(type: record.type, payload: record.payload)
        if !replaying, record.source == .client, record.payload != nil, record.payload != .null, !action.hasPayload {
            throw .invalidPayload(detail: "payload: this action takes none; send it without one")
        }
        return action
    }

    @inlinable
    public func apply(_ records: [ActionRecord]) throws(BatchError) -> [Change] {
        try apply(records, replaying: false)
    }

    /// `apply` for records already journaled (recovery, hibernation's load, a rebuilt version):
    /// what the journal holds was accepted once, and the checks added since do not refuse it.
    ///
    ///     let changes = try store.replay(journaledRecords)
    @inlinable
    public func replay(_ records: [ActionRecord]) throws(BatchError) -> [Change] {
        try apply(records, replaying: true)
    }

    @inlinable
    func apply(_ records: [ActionRecord], replaying: Bool) throws(BatchError) -> [Change] {
        if records.count == 1 {
            // The common case, without the intermediate array of actions; the record is copied
            // out of the array once, and that copy moves into the change.
            let record = records[0]
            let action: Action
            do { action = try Store.decode(record, replaying: replaying) } catch { throw BatchError(index: 0, error: error) }
            return [try applyOne(action, record, collect: &pending)]
        }
        var actions: [Action] = []
        actions.reserveCapacity(records.count)
        for i in records.indices {
            do { actions.append(try Store.decode(records[i], replaying: replaying)) } catch { throw BatchError(index: i, error: error) }
        }
        var kept: [(version: Int, state: SharedState)] = []
        return try run(actions, records, collect: &pending, keepEvery: 0, kept: &kept)
    }

    /// `apply`, also keeping the state after each action inside the batch whose version is a
    /// multiple of `interval` (not the last one: that is the state after the batch). Each costs
    /// O(1): no encoding, no replay. Kept states of a refused batch are dropped with it.
    @inlinable
    public func apply(_ records: [ActionRecord], keepingEvery interval: Int) throws(BatchError)
        -> (changes: [Change], kept: [(version: Int, state: SharedState)]) {
        guard records.count > 1, interval > 0 else { return (try apply(records), []) }
        var actions: [Action] = []
        actions.reserveCapacity(records.count)
        for i in records.indices {
            do { actions.append(try Store.decode(records[i])) } catch { throw BatchError(index: i, error: error) }
        }
        var kept: [(version: Int, state: SharedState)] = []
        let changes = try run(actions, records, collect: &pending, keepEvery: interval, kept: &kept)
        return (changes, kept)
    }

    /// Typed entry (tests, benchmarks): applies typed actions stamped `at`, returning the
    /// changes and the effects' work instead of queueing it.
    @inlinable
    public func send(_ actions: [Action], at: Int64, source: ActionSource = .client) throws(BatchError)
        -> (changes: [Change], effects: [Effect<Action>.Work]) {
        let records = actions.map { ActionRecord(type: $0.type, payload: $0.payload, at: at, source: source) }
        var jobs: [Effect<Action>.Job] = []
        var kept: [(version: Int, state: SharedState)] = []
        let changes = try run(actions, records, collect: &jobs, keepEvery: 0, kept: &kept)
        return (changes, jobs.map(\.work))
    }

    @inlinable
    func applyOne(_ action: Action, _ record: consuming ActionRecord, collect: inout [Effect<Action>.Job]) throws(BatchError) -> Change {
        let change = try Self.applyOne(action, record, to: &_state, reducer, version: _version + 1, collect: &collect)
        _version += 1
        return change
    }

    /// `applyOne` on the state in place: the steps below take it `inout`, so reading it for the
    /// checkpoint, the patch and the rollback borrows it where a read of the stored property
    /// would copy it (a retain and a release per collection it holds).
    @inlinable
    static func applyOne(_ action: Action, _ record: consuming ActionRecord, to state: inout State, _ reducer: Reducer<State, Action>,
                         version: Int, collect: inout [Effect<Action>.Job]) throws(BatchError) -> Change {
        let before = state.checkpoint()
        let change = try step(action, record, on: &state, reducer, version: version, index: 0, before: before, batchStart: before, collect: &collect)
        state.commit()
        return change
    }

    @inlinable
    func run(_ actions: [Action], _ records: [ActionRecord], collect: inout [Effect<Action>.Job],
             keepEvery: Int, kept: inout [(version: Int, state: SharedState)]) throws(BatchError) -> [Change] {
        guard !actions.isEmpty else { return [] }
        var changes: [Change] = []
        changes.reserveCapacity(actions.count)
        var jobs: [Effect<Action>.Job] = []
        let batchStart = _state.checkpoint()
        for i in 0..<actions.count {
            let before = i == 0 ? batchStart : _state.checkpoint()
            changes.append(try Self.step(actions[i], records[i], on: &_state, reducer, version: _version + i + 1, index: i,
                                         before: before, batchStart: batchStart, collect: &jobs))
            if keepEvery > 0, i < actions.count - 1, (_version + i + 1) % keepEvery == 0 {
                // A copy (O(1)) with its tables' logs forgotten: the batch's log stays with the
                // store, and the kept state never rolls back.
                var copy = _state
                copy.commit()
                kept.append((_version + i + 1, SharedState(copy)))
            }
        }
        _state.commit()
        _version += actions.count
        if !jobs.isEmpty { collect.append(contentsOf: jobs) }
        return changes
    }

    /// One action of a batch, producing `version`: reduce, or roll the whole batch back to
    /// `batchStart` and throw; then the patch since `before`, the outputs, and the effects' work
    /// (into `collect`).
    @inlinable
    static func step(_ action: Action, _ record: consuming ActionRecord, on state: inout State, _ reducer: Reducer<State, Action>,
                     version: Int, index: Int, before: State.Checkpoint, batchStart: State.Checkpoint,
                     collect: inout [Effect<Action>.Job]) throws(BatchError) -> Change {
        let effect: Effect<Action>
        do {
            effect = try reducer.reduce(&state, action, ActionContext(at: record.at, source: record.source))
        } catch {
            state.rollback(to: batchStart)
            throw BatchError(index: index, error: error.actionError)
        }
        var patch = PatchWriter()
        state.writePatch(since: before, into: &patch)
        // No outputs, no effects: the common case makes no array and walks no tree.
        var outputs: [StoreOutput] = []
        if !effect.isNone { effect.flatten(outputs: &outputs, jobs: &collect) }
        return Change(version: version, action: record, patch: patch.finish(), outputs: outputs)
    }

    /// Queues `effect`'s async work as if a reducer had returned it (outputs are dropped), for
    /// the next `takePendingEffects`; recovery runs through it what a restored state waits for.
    public func queue(_ effect: Effect<Action>) {
        var outputs: [StoreOutput] = []
        effect.flatten(outputs: &outputs, jobs: &pending)
    }

    @inlinable public func takePendingEffects() -> [PendingEffect] {
        // Most actions start no effect. Inlinable, so this check runs specialized in the kind's
        // module; the generic version looked up the array's type metadata on every call.
        if pending.isEmpty { return [] }
        return takeQueuedEffects()
    }

    @usableFromInline func takeQueuedEffects() -> [PendingEffect] {
        let jobs = pending
        pending = []
        let environment = self.environment
        return jobs.map { job in
            let work = job.work
            return PendingEffect(id: job.id) { send in
                await work(environment, Send { action in send(action.type, action.payload) })
            }
        }
    }
}

/// `AnyStore` over closures made where the State and Action types are concrete (see `Kind`),
/// so every call runs specialized code.
public final class ErasedStore: AnyStore {
    public let kind: String
    @usableFromInline let _version: () -> Int
    @usableFromInline let _encodeState: () -> [UInt8]
    @usableFromInline let _encodeStateInto: (inout [UInt8]) -> Void
    @usableFromInline let _stateValue: () -> JSONValue
    @usableFromInline let _encodedStateAt: (JSONPointer) -> [UInt8]?
    @usableFromInline let _sharedState: () -> SharedState
    @usableFromInline let _apply: ([ActionRecord]) throws(BatchError) -> [Change]
    @usableFromInline let _replay: ([ActionRecord]) throws(BatchError) -> [Change]
    @usableFromInline let _applyKeeping: ([ActionRecord], Int) throws(BatchError) -> (changes: [Change], kept: [(version: Int, state: SharedState)])
    @usableFromInline let _takePendingEffects: () -> [PendingEffect]
    @usableFromInline let _interruptedEffects: ([String: PendingEffect]) -> [PendingEffect]

    @inlinable
    public init<State, Action>(_ store: Store<State, Action>, resume: (@Sendable (State) -> Effect<Action>)? = nil) {
        kind = store.kind
        _version = { store.version }
        _encodeState = { store.encodeState() }
        _encodeStateInto = { store.encodeState(into: &$0) }
        _stateValue = { store.stateValue() }
        _encodedStateAt = { store.encodedState(at: $0) }
        _sharedState = { store.sharedState() }
        _apply = { (records) throws(BatchError) -> [Change] in try store.apply(records) }
        _replay = { (records) throws(BatchError) -> [Change] in try store.replay(records) }
        _applyKeeping = { (records, interval) throws(BatchError) in try store.apply(records, keepingEvery: interval) }
        _takePendingEffects = { store.takePendingEffects() }
        _interruptedEffects = { replayed in
            guard let resume else { return [] }
            store.queue(resume(store.state))
            // A named request's own job, started by a replayed action, carries that action's
            // inputs; `resume` can only rebuild it from the state as it is now.
            return store.takePendingEffects().map { fresh in fresh.id.flatMap { replayed[$0] } ?? fresh }
        }
    }

    public var version: Int { _version() }
    public func encodeState() -> [UInt8] { _encodeState() }
    public func encodeState(into bytes: inout [UInt8]) { _encodeStateInto(&bytes) }
    public func stateValue() -> JSONValue { _stateValue() }
    public func encodedState(at pointer: JSONPointer) -> [UInt8]? { _encodedStateAt(pointer) }
    public func sharedState() -> SharedState { _sharedState() }
    public func apply(_ actions: [ActionRecord]) throws(BatchError) -> [Change] { try _apply(actions) }
    public func replay(_ actions: [ActionRecord]) throws(BatchError) -> [Change] { try _replay(actions) }
    public func apply(_ actions: [ActionRecord], keepingEvery interval: Int) throws(BatchError)
        -> (changes: [Change], kept: [(version: Int, state: SharedState)]) {
        try _applyKeeping(actions, interval)
    }
    public func takePendingEffects() -> [PendingEffect] { _takePendingEffects() }
    public func interruptedEffects(replayed: [String: PendingEffect]) -> [PendingEffect] { _interruptedEffects(replayed) }
}
