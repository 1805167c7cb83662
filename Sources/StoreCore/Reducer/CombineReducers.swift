/// Two reducers run in order on the same state and action, their effects merged: what
/// `Reducer.combine` nests for any number of them. A refusal from either refuses the action
/// (the `Store` rolls back what the first one did too).
///
///     let app = CombineReducers(counterScope, CombineReducers(favoritesScope, modalScope))
public struct CombineReducers<First: ReducerProtocol, Second: ReducerProtocol>: ReducerProtocol
where Second.State == First.State, Second.Action == First.Action {
    @usableFromInline let first: First
    @usableFromInline let second: Second

    @inlinable
    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    @inlinable
    public func reduce(into state: inout First.State, action: First.Action, context: ActionContext) throws(Rejection) -> Effect<First.Action> {
        let a = try first.reduce(into: &state, action: action, context: context)
        let b = try second.reduce(into: &state, action: action, context: context)
        return a.merge(with: b)
    }
}
