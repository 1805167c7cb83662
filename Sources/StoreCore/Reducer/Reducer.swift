/// A pure function that applies an action to state and returns the effects to run.
///
/// It may refuse an action by throwing a `Rejection`; the `Store` then restores the state
/// (see `StoreState` for how, without copying large state).
///
///     let counter = Reducer<Int, CounterAction> { count, action, _ in
///         switch action {
///         case .incr: count += 1
///         case .decr: count -= 1
///         }
///         return .none
///     }
public struct Reducer<State, Action: Sendable>: ReducerProtocol {
    public let reduce: @Sendable (inout State, Action, ActionContext) throws(Rejection) -> Effect<Action>

    @inlinable
    public init(_ reduce: @escaping @Sendable (inout State, Action, ActionContext) throws(Rejection) -> Effect<Action>) {
        self.reduce = reduce
    }

    /// Any reducer as a `Reducer`: one closure around it, the composition inside it specialized.
    ///
    ///     let app = Reducer(CombineReducers(counterScope, favoritesScope))
    @inlinable
    public init<R: ReducerProtocol>(_ reducer: R) where R.State == State, R.Action == Action {
        if let same = reducer as? Reducer {
            self = same
            return
        }
        // Boxed: the closure borrows the composition from the box's constant, where a capture
        // by value was copied out of the closure's context on every call.
        let box = ReducerBox(reducer)
        self.init { state, action, context throws(Rejection) in try box.reducer.reduce(into: &state, action: action, context: context) }
    }

    @inlinable
    public func reduce(into state: inout State, action: Action, context: ActionContext) throws(Rejection) -> Effect<Action> {
        try reduce(&state, action, context)
    }

    @inlinable
    public func callAsFunction(_ state: inout State, _ action: Action, _ context: ActionContext) throws(Rejection) -> Effect<Action> {
        try reduce(&state, action, context)
    }
}

extension Reducer {
    /// Runs every reducer in order on the same action; their effects are merged. A refusal from
    /// any of them refuses the action (the Store rolls back the earlier ones too). The reducers
    /// are nested as `CombineReducers` values: one closure for the whole, inside it each call is
    /// direct and inlinable.
    ///
    ///     let app = Reducer<AppState, AppAction>.combine(
    ///         counterReducer.pullback(state: \.counter, action: AppAction.counterCase),
    ///         favoritesReducer.pullback(state: \.favorites, action: AppAction.favoritesCase))
    @inlinable
    public static func combine<R0: ReducerProtocol, R1: ReducerProtocol>(_ r0: R0, _ r1: R1) -> Reducer
    where R0.State == State, R0.Action == Action,
          R1.State == State, R1.Action == Action {
        Reducer(CombineReducers(r0, r1))
    }

    @inlinable
    public static func combine<R0: ReducerProtocol, R1: ReducerProtocol, R2: ReducerProtocol>(_ r0: R0, _ r1: R1, _ r2: R2) -> Reducer
    where R0.State == State, R0.Action == Action,
          R1.State == State, R1.Action == Action,
          R2.State == State, R2.Action == Action {
        Reducer(CombineReducers(r0, CombineReducers(r1, r2)))
    }

    @inlinable
    public static func combine<R0: ReducerProtocol, R1: ReducerProtocol, R2: ReducerProtocol, R3: ReducerProtocol>(_ r0: R0, _ r1: R1, _ r2: R2, _ r3: R3) -> Reducer
    where R0.State == State, R0.Action == Action,
          R1.State == State, R1.Action == Action,
          R2.State == State, R2.Action == Action,
          R3.State == State, R3.Action == Action {
        Reducer(CombineReducers(r0, CombineReducers(r1, CombineReducers(r2, r3))))
    }

    @inlinable
    public static func combine<R0: ReducerProtocol, R1: ReducerProtocol, R2: ReducerProtocol, R3: ReducerProtocol, R4: ReducerProtocol>(_ r0: R0, _ r1: R1, _ r2: R2, _ r3: R3, _ r4: R4) -> Reducer
    where R0.State == State, R0.Action == Action,
          R1.State == State, R1.Action == Action,
          R2.State == State, R2.Action == Action,
          R3.State == State, R3.Action == Action,
          R4.State == State, R4.Action == Action {
        Reducer(CombineReducers(r0, CombineReducers(r1, CombineReducers(r2, CombineReducers(r3, r4)))))
    }

    @inlinable
    public static func combine<R0: ReducerProtocol, R1: ReducerProtocol, R2: ReducerProtocol, R3: ReducerProtocol, R4: ReducerProtocol, R5: ReducerProtocol>(_ r0: R0, _ r1: R1, _ r2: R2, _ r3: R3, _ r4: R4, _ r5: R5) -> Reducer
    where R0.State == State, R0.Action == Action,
          R1.State == State, R1.Action == Action,
          R2.State == State, R2.Action == Action,
          R3.State == State, R3.Action == Action,
          R4.State == State, R4.Action == Action,
          R5.State == State, R5.Action == Action {
        Reducer(CombineReducers(r0, CombineReducers(r1, CombineReducers(r2, CombineReducers(r3, CombineReducers(r4, r5))))))
    }

    /// `combine` for a list made at run time: each reducer is called through its closure.
    @inlinable
    public static func combine(_ reducers: [Reducer]) -> Reducer {
        Reducer { state, action, context throws(Rejection) in
            var result = Effect<Action>.none
            for r in reducers { result = result.merge(with: try r.reduce(&state, action, context)) }
            return result
        }
    }
}

/// A composed reducer held by reference, for `Reducer.init(_:)`'s closure.
@usableFromInline
final class ReducerBox<R: ReducerProtocol>: Sendable {
    @usableFromInline let reducer: R
    @inlinable init(_ reducer: R) { self.reducer = reducer }
}
