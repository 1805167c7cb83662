/// Type-erased store of one session. NOT thread-safe: the session serializes every call.
public protocol AnyStore: AnyObject {
    var kind: String { get }
    var version: Int { get }
    /// The state's JSON bytes (keys in the kind's stable order).
    func encodeState() -> [UInt8]
    /// Appends the state's JSON bytes to `bytes`, so an answer can be written in one buffer.
    func encodeState(into bytes: inout [UInt8])
    /// The state as a value.
    func stateValue() -> JSONValue
    /// The bytes of the value at an RFC 6901 pointer in the state, as they stand in
    /// `encodeState()`, nil when there is none (for `?path=`); cost proportional to the answer
    /// for entity tables, not to the whole state.
    func encodedState(at pointer: JSONPointer) -> [UInt8]?
    /// The state as a value, O(1); it shares every unchanged part with the state as that goes on.
    func sharedState() -> SharedState
    /// Applies in order, all or none (state untouched on error); version +1 per action.
    /// Internal (effect-only) types are refused when `record.source == .client`.
    func apply(_ actions: [ActionRecord]) throws(BatchError) -> [Change]
    /// `apply` for records already journaled: a payload on an action that takes none is
    /// ignored, not refused, so a journal accepted before that check still replays.
    func replay(_ actions: [ActionRecord]) throws(BatchError) -> [Change]
    /// `apply`, also keeping the state after each action inside the batch whose version is a
    /// multiple of `interval` (O(1) each; not after the last action).
    func apply(_ actions: [ActionRecord], keepingEvery interval: Int) throws(BatchError)
        -> (changes: [Change], kept: [(version: Int, state: SharedState)])
    /// Effects returned by reducers during the last successful apply (cleared by this call).
    func takePendingEffects() -> [PendingEffect]
    /// The effects the current state is still waiting for (see `Kind.resume`), to run again after
    /// a restart; the state is not changed. Outputs are dropped: they were emitted the first time.
    /// `replayed`: the newest job of each name that the actions replayed at recovery started
    /// (`Effect.run(id:)`); it runs instead of the one `resume` rebuilds from the current state.
    func interruptedEffects(replayed: [String: PendingEffect]) -> [PendingEffect]
}

extension AnyStore {
    /// For conformers with no `resume`: nothing is waited for.
    public func interruptedEffects(replayed: [String: PendingEffect]) -> [PendingEffect] { [] }

    /// What the state waits for, rebuilt from the state alone (no action was replayed).
    public func interruptedEffects() -> [PendingEffect] { interruptedEffects(replayed: [:]) }

    /// For conformers that cannot do better: encode, then copy.
    public func encodeState(into bytes: inout [UInt8]) {
        bytes += encodeState()
    }

    /// For conformers that cannot do better: the whole state, then the pointer.
    public func encodedState(at pointer: JSONPointer) -> [UInt8]? {
        JSONPointer.value(at: pointer.tokens[...], in: encodeState())
    }
}

/// A kind as the server sees it: a name, its action types, its initial state, and a factory.
public protocol StoreKind: Sendable {
    var name: String { get }
    /// Client-sendable types.
    var actionTypes: [String] { get }
    /// Effect-only types.
    var internalActionTypes: [String] { get }
    var initialState: JSONValue { get }
    /// The JSON Schema of an action type's payload, nil when it takes none.
    func payloadSchema(of type: String) -> JSONValue?
    /// The one-off outputs the kind emits.
    var outputTypes: [OutputType] { get }
    /// `state` nil = the initial state. Throws when `state` does not decode (the error names the path).
    func makeStore(state: JSONValue?, version: Int, environment: EffectEnvironment) throws(StateDecodingError) -> any AnyStore
    /// A store that starts from a kept state: O(1) for a state this kind's store gave.
    func makeStore(shared: SharedState, version: Int, environment: EffectEnvironment) throws(StateDecodingError) -> any AnyStore
    /// A state of this kind read from `reader` (a snapshot's bytes), for `makeStore(shared:)`:
    /// straight into the state when it is `JSONStreamDecodable`, without a `JSONValue` of it.
    func readState(from reader: inout JSONStreamReader) throws(StateDecodingError) -> SharedState
    /// Every action type (client and internal), for reading a request's `"type"` by its bytes.
    var actionTypeNames: ActionTypeNames { get }
}

extension StoreKind {
    /// For kinds that cannot do better: through the state's JSON.
    public func makeStore(shared: SharedState, version: Int, environment: EffectEnvironment) throws(StateDecodingError) -> any AnyStore {
        try makeStore(state: shared.jsonValue(), version: version, environment: environment)
    }
}

extension StoreKind {
    /// For kinds that keep none: built on each call (`Kind` keeps its own).
    public var actionTypeNames: ActionTypeNames { ActionTypeNames(actionTypes + internalActionTypes) }
    public func payloadSchema(of type: String) -> JSONValue? { nil }
    public var outputTypes: [OutputType] { [] }
}
