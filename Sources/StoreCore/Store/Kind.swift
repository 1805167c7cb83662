/// A kind made of a State, an Action and a reducer: what a developer registers.
///
///     Kind(name: "shop", reducer: shopReducer)    // State and Action inferred from the reducer
///     Kind(name: "counter", reducer: counterAppReducer, resume: counterAppResume)
///
/// `resume` names the effects a state is still waiting for (a request in flight). A restart
/// rebuilds the state from the journal but cannot rebuild an effect that was running when the
/// process died, so recovery asks `resume` and runs them again; without it such a state would
/// wait for an answer forever. Give such an effect an id (`Effect.run(id:)`): when the action
/// that started it is among the records recovery replays, the job that action started runs
/// again, with its inputs (the count when the button was tapped, not the count at the crash);
/// the effect `resume` builds from the current state is the fallback.
public struct Kind<State: StoreState, Action: StoreAction>: StoreKind {
    public let name: String
    public let reducer: Reducer<State, Action>
    public let resume: (@Sendable (State) -> Effect<Action>)?
    /// Every action type, matched by its bytes when a request is read (`ActionRecord.read(fsa:names:…)`).
    public let actionTypeNames: ActionTypeNames
    /// Built by the inlined initializer in the registering module, so the stores it makes run
    /// code specialized for this State and Action.
    @usableFromInline let factory: @Sendable (State, Int, EffectEnvironment) -> any AnyStore

    @inlinable
    public init(name: String, reducer: Reducer<State, Action>, resume: (@Sendable (State) -> Effect<Action>)? = nil) {
        self.name = name
        self.reducer = reducer
        self.resume = resume
        self.actionTypeNames = ActionTypeNames(Action.allTypes)
        self.factory = { state, version, environment in
            ErasedStore(Store(kind: name, state: state, version: version, reducer: reducer, environment: environment), resume: resume)
        }
    }

    public var actionTypes: [String] { Action.clientTypes }
    public var internalActionTypes: [String] { Action.internalTypes }
    public var initialState: JSONValue { State.initial.jsonValue() }
    public func payloadSchema(of type: String) -> JSONValue? { Action.payloadSchema(of: type) }
    public var outputTypes: [OutputType] { Action.outputTypes }

    public func makeStore(state: JSONValue?, version: Int, environment: EffectEnvironment) throws(StateDecodingError) -> any AnyStore {
        let initial = try state.map { (json) throws(StateDecodingError) -> State in try State(json: json, path: "") } ?? State.initial
        return factory(initial, version, environment)
    }

    public func makeStore(shared: SharedState, version: Int, environment: EffectEnvironment) throws(StateDecodingError) -> any AnyStore {
        if let state = shared.state(as: State.self) { return factory(state, version, environment) }
        return try makeStore(state: shared.jsonValue(), version: version, environment: environment)
    }

    public func readState(from reader: inout JSONStreamReader) throws(StateDecodingError) -> SharedState {
        try SharedState(State.read(from: &reader))
    }

    /// The typed store (tests, benchmarks).
    public func makeTypedStore(state: JSONValue? = nil, version: Int = 0, environment: EffectEnvironment = .live) throws(StateDecodingError) -> Store<State, Action> {
        let initial = try state.map { (json) throws(StateDecodingError) -> State in try State(json: json, path: "") } ?? State.initial
        return Store(kind: name, state: initial, version: version, reducer: reducer, environment: environment)
    }
}
