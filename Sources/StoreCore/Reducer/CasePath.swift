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
