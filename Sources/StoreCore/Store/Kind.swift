/// A kind made of a State, an Action and a reducer: what a developer registers.
///
///     Kind(name: "shop", reducer: shopReducer)    // State and Action inferred from the reducer
public struct Kind<State: StoreState, Action: StoreAction>: StoreKind {
    public let name: String
    public let reducer: Reducer<State, Action>

    public init(name: String, reducer: Reducer<State, Action>) {
        self.name = name
        self.reducer = reducer
    }

    public var actionTypes: [String] { Action.clientTypes }
    public var internalActionTypes: [String] { Action.internalTypes }
    public var initialState: JSONValue { State.initial.jsonValue() }

    public func makeStore(state: JSONValue?, version: Int, environment: EffectEnvironment) throws(StateDecodingError) -> any AnyStore {
        try makeTypedStore(state: state, version: version, environment: environment)
    }

    public func makeTypedStore(state: JSONValue? = nil, version: Int = 0, environment: EffectEnvironment = .live) throws(StateDecodingError) -> Store<State, Action> {
        let initial = try state.map { (json) throws(StateDecodingError) -> State in try State(json: json, path: "") } ?? State.initial
        return Store(kind: name, state: initial, version: version, reducer: reducer, environment: environment)
    }
}
