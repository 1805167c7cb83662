/// Work a reducer asks for, as a value: nothing, async work that sends actions back,
/// a one-off output for clients, or several of these.
///
///     return .run { environment, send in
///         await environment.sleep(environment.latency)   // stands for a remote call
///         await send(.loginSucceeded(token: "t"))
///     }
public struct Effect<Action: Sendable>: Sendable {
    public typealias Work = @Sendable (EffectEnvironment, Send<Action>) async -> Void

    @usableFromInline enum Node: Sendable {
        case none
        case run(Work)
        case output(StoreOutput)
        case merge([Effect])
    }

    @usableFromInline let node: Node

    @usableFromInline init(_ node: Node) { self.node = node }

    @inlinable public static var none: Effect { Effect(.none) }
    /// Async work; reads top to bottom, sends any number of actions, in order.
    @inlinable public static func run(_ work: @escaping Work) -> Effect { Effect(.run(work)) }
    /// An output for clients, emitted with the action's change.
    @inlinable public static func output(_ output: StoreOutput) -> Effect { Effect(.output(output)) }
    @inlinable public static func output(_ type: String, payload: JSONValue? = nil) -> Effect { Effect(.output(StoreOutput(type: type, payload: payload))) }
    @inlinable public static func merge(_ effects: [Effect]) -> Effect { effects.isEmpty ? .none : Effect(.merge(effects)) }
    @inlinable public static func merge(_ effects: Effect...) -> Effect { merge(effects) }

    @inlinable public var isNone: Bool { if case .none = node { return true } else { return false } }

    /// The same effect sending `transform(action)` instead (used by `pullback`).
    @inlinable public func map<B>(_ transform: @escaping @Sendable (Action) -> B) -> Effect<B> {
        switch node {
        case .none: return .none
        case .output(let o): return .output(o)
        case .run(let work):
            return .run { environment, send in
                await work(environment, Send { send(transform($0)) })
            }
        case .merge(let effects): return .merge(effects.map { $0.map(transform) })
        }
    }

    /// Splits the tree into outputs (emitted at once) and the async works (run later), in order.
    @inlinable public func flatten(outputs: inout [StoreOutput], works: inout [Work]) {
        switch node {
        case .none: break
        case .output(let o): outputs.append(o)
        case .run(let w): works.append(w)
        case .merge(let effects): for e in effects { e.flatten(outputs: &outputs, works: &works) }
        }
    }
}

/// How an effect sends actions back into its store.
public struct Send<Action>: Sendable {
    @usableFromInline let send: @Sendable (Action) -> Void
    @inlinable public init(_ send: @escaping @Sendable (Action) -> Void) { self.send = send }
    @inlinable public func callAsFunction(_ action: Action) { send(action) }
}
