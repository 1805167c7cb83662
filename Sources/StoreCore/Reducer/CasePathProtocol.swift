/// What a `Scope` needs of one case of a parent action enum: its payload out (`extract`) and
/// back in (`embed`). `CasePath` is one made of two closures; a type of its own that switches on
/// the case lets a scope inline the test, with no closure call per feature per action.
///
///     struct CounterCase: CasePathProtocol {
///         func extract(from action: AppAction) -> CounterAction? {
///             if case .counter(let a) = action { a } else { nil }
///         }
///         func embed(_ action: CounterAction) -> AppAction { .counter(action) }
///     }
public protocol CasePathProtocol<Root, Value>: Sendable {
    associatedtype Root
    associatedtype Value

    /// The case's payload, or nil when `root` is another case.
    func extract(from root: Root) -> Value?
    /// `value` as the parent's case.
    func embed(_ value: Value) -> Root
}
