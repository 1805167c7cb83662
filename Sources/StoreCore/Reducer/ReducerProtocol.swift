/// What every reducer is: a pure function from state and action to new state and the effects
/// to run, as a type. Composing reducers by scoping and combining (`pullback`, `combine`) builds
/// nested generic values, so a store runs a whole app's reducer as specialized, inlinable code:
/// no closure call or array walk per feature, only the scope that recognizes the action runs.
///
/// `Reducer` (a closure) is the usual way to write one feature; a type of its own works too:
///
///     struct Counting: ReducerProtocol {
///         func reduce(into count: inout Int, action: CounterAction, context: ActionContext) throws(Rejection) -> Effect<CounterAction> {
///             count += 1
///             return .none
///         }
///     }
public protocol ReducerProtocol<State, Action>: Sendable {
    associatedtype State
    associatedtype Action: Sendable

    /// Applies `action` to `state` and returns the work to run after it; a `Rejection` refuses
    /// the action (the `Store` rolls the state back, whatever was written before the throw).
    func reduce(into state: inout State, action: Action, context: ActionContext) throws(Rejection) -> Effect<Action>
}

extension ReducerProtocol {
    /// Lifts this feature's reducer to a parent: its state lives at `state` (a writable key
    /// path, stored or computed), its actions are the parent actions `action.extract(from:)`
    /// recognizes, and its effects' actions are embedded back into the parent's (see `Scope`).
    /// `action` is a `CasePath`, or a `CasePathProtocol` type that switches on the case.
    ///
    ///     let app = Reducer<AppState, AppAction>.combine(
    ///         counterReducer.pullback(state: \.counter, action: AppAction.counterCase),
    ///         settingsReducer.pullback(state: \.settings, action: AppAction.settingsCase))
    @inlinable
    public func pullback<ParentState, Path: CasePathProtocol>(
        state toLocal: WritableKeyPath<ParentState, State> & Sendable,
        action toLocalAction: Path
    ) -> Scope<ParentState, Path, Self> where Path.Value == Action, Path.Root: Sendable {
        Scope(state: toLocal, action: toLocalAction, child: self)
    }
}
