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
public struct Reducer<State, Action: Sendable>: Sendable {
    public let reduce: @Sendable (inout State, Action, ActionContext) throws(Rejection) -> Effect<Action>

    @inlinable
    public init(_ reduce: @escaping @Sendable (inout State, Action, ActionContext) throws(Rejection) -> Effect<Action>) {
        self.reduce = reduce
    }

    @inlinable
    public func callAsFunction(_ state: inout State, _ action: Action, _ context: ActionContext) throws(Rejection) -> Effect<Action> {
        try reduce(&state, action, context)
    }
}

extension Reducer {
    /// Runs every reducer in order on the same action; their effects are merged.
    /// A refusal from any of them refuses the action (the Store rolls back the earlier ones too).
    @inlinable
    public static func combine(_ reducers: Reducer...) -> Reducer { combine(reducers) }

    @inlinable
    public static func combine(_ reducers: [Reducer]) -> Reducer {
        Reducer { state, action, context throws(Rejection) in
            // Most actions concern one feature: no array unless two reducers return effects.
            var result = Effect<Action>.none
            for r in reducers {
                let e = try r.reduce(&state, action, context)
                if e.isNone { continue }
                result = result.isNone ? e : .merge([result, e])
            }
            return result
        }
    }

    /// Lifts a feature reducer to a parent: its state lives at `state` (a writable key path,
    /// stored or computed), its actions are the parent actions `action.extract` recognizes,
    /// and its effects' actions are embedded back into the parent's.
    ///
    ///     let app = counterReducer.pullback(state: \AppState.counter, action: AppAction.counterCase)
    @inlinable
    public func pullback<ParentState, ParentAction>(
        state toLocal: WritableKeyPath<ParentState, State> & Sendable,
        action toLocalAction: CasePath<ParentAction, Action>
    ) -> Reducer<ParentState, ParentAction> {
        let reduce = self.reduce
        if let offset = MemoryLayout<ParentState>.offset(of: toLocal) {
            // A stored property: reduced in place at its offset (which `offset(of:)` guarantees
            // for stored-property key paths), so no copy of its collections and no trip through
            // the key path runtime on every action.
            return Reducer<ParentState, ParentAction> { parent, parentAction, context throws(Rejection) in
                guard let local = toLocalAction.extract(parentAction) else { return .none }
                let effect = try withUnsafeMutablePointer(to: &parent) { (pointer) throws(Rejection) -> Effect<Action> in
                    let field = (UnsafeMutableRawPointer(pointer) + offset).assumingMemoryBound(to: State.self)
                    return try reduce(&field.pointee, local, context)
                }
                return effect.isNone ? .none : effect.map(toLocalAction.embed)
            }
        }
        // A computed view over several parent fields: read, reduce, write back.
        return Reducer<ParentState, ParentAction> { parent, parentAction, context throws(Rejection) in
            guard let localAction = toLocalAction.extract(parentAction) else { return .none }
            var local = parent[keyPath: toLocal]
            let effect = try reduce(&local, localAction, context)  // refused: parent left as it was
            parent[keyPath: toLocal] = local
            return effect.isNone ? .none : effect.map(toLocalAction.embed)
        }
    }
}

/// The embed/extract pair that relates a parent action enum to one of its cases.
///
///     CasePath<AppAction, CounterAction>(embed: AppAction.counter) {
///         if case .counter(let a) = $0 { return a } else { return nil }
///     }
public struct CasePath<Root, Value>: Sendable {
    public let embed: @Sendable (Value) -> Root
    public let extract: @Sendable (Root) -> Value?
    @inlinable
    public init(embed: @escaping @Sendable (Value) -> Root, extract: @escaping @Sendable (Root) -> Value?) {
        self.embed = embed
        self.extract = extract
    }
}
