/// A feature's reducer run on its part of a parent's state, for the parent actions that are
/// the feature's: what `pullback(state:action:)` makes.
///
///     let counter = Scope(state: \AppState.counter, action: AppAction.counterCase, child: counterReducer)
///
/// A stored property is reduced in place at its offset (which `MemoryLayout.offset(of:)`
/// guarantees for stored-property key paths): no copy of its collections and no trip through
/// the key path runtime per action. A computed property (a view over several parent fields)
/// is read, reduced and written back; a refusal leaves the parent as it was.
public struct Scope<ParentState, Path: CasePathProtocol, Child: ReducerProtocol>: ReducerProtocol
where Path.Value == Child.Action, Path.Root: Sendable {
    public typealias ParentAction = Path.Root
    @usableFromInline let toLocal: WritableKeyPath<ParentState, Child.State> & Sendable
    /// The stored property's offset in `ParentState`, nil for a computed one.
    @usableFromInline let offset: Int?
    /// A type of its own, so a case path that switches is inlined here (see `CasePathProtocol`).
    @usableFromInline let toLocalAction: Path
    @usableFromInline let child: Child

    @inlinable
    public init(state toLocal: WritableKeyPath<ParentState, Child.State> & Sendable,
                action toLocalAction: Path, child: Child) {
        self.toLocal = toLocal
        self.offset = MemoryLayout<ParentState>.offset(of: toLocal)
        self.toLocalAction = toLocalAction
        self.child = child
    }

    @inlinable
    public func reduce(into parent: inout ParentState, action: ParentAction, context: ActionContext) throws(Rejection) -> Effect<ParentAction> {
        guard let local = toLocalAction.extract(from: action) else { return .none }
        let effect: Effect<Child.Action>
        if let offset {
            effect = try withUnsafeMutablePointer(to: &parent) { (pointer) throws(Rejection) -> Effect<Child.Action> in
                let field = (UnsafeMutableRawPointer(pointer) + offset).assumingMemoryBound(to: Child.State.self)
                return try child.reduce(into: &field.pointee, action: local, context: context)
            }
        } else {
            var state = parent[keyPath: toLocal]
            effect = try child.reduce(into: &state, action: local, context: context)  // refused: parent left as it was
            parent[keyPath: toLocal] = state
        }
        if effect.isNone { return .none }
        let path = toLocalAction
        return effect.map { path.embed($0) }
    }
}
