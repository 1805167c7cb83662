/// Work a reducer asks for, as a value: nothing, async work that sends actions back,
/// a one-off output for clients, or several of these.
///
///     return .run { environment, send in
///         await environment.sleep(environment.latency)   // stands for a remote call
///         await send(.loginSucceeded(token: "t"))
///     }
public struct Effect<Action: Sendable>: Sendable {
    public typealias Work = @Sendable (EffectEnvironment, Send<Action>) async -> Void

    /// One async work and the name its kind gave it, if any.
    public struct Job: Sendable {
        /// Names the request a state can wait for (`Kind.resume`), so that after a restart the
        /// job a replayed action started runs again with that action's inputs.
        public let id: String?
        public let work: Work

        @inlinable public init(id: String?, work: @escaping Work) {
            self.id = id
            self.work = work
        }
    }

    /// Indirect: an effect is one word, `.none` without an allocation, and copying one (as
    /// every reducer's result is returned up through its scopes) is at most a retain.
    @usableFromInline indirect enum Node: Sendable {
        case none
        case run(Job)
        case output(StoreOutput)
        case merge([Effect])
    }

    @usableFromInline let node: Node

    @usableFromInline init(_ node: Node) { self.node = node }

    @inlinable public static var none: Effect { Effect(.none) }
    /// Async work; reads top to bottom, sends any number of actions, in order. `id` names a
    /// request that a state records as in flight (see `Kind.resume`):
    ///
    ///     return .run(id: "counter/nthPrime") { _, send in send(.nthPrimeResponse(prime: Primes.nthPrime(n))) }
    @inlinable public static func run(id: String? = nil, _ work: @escaping Work) -> Effect { Effect(.run(Job(id: id, work: work))) }
    /// An output for clients, emitted with the action's change.
    @inlinable public static func output(_ output: StoreOutput) -> Effect { Effect(.output(output)) }
    @inlinable public static func output(_ type: String, payload: JSONValue? = nil) -> Effect { Effect(.output(StoreOutput(type: type, payload: payload))) }
    @inlinable public static func merge(_ effects: [Effect]) -> Effect { effects.isEmpty ? .none : Effect(.merge(effects)) }
    @inlinable public static func merge(_ effects: Effect...) -> Effect { merge(effects) }

    @inlinable public var isNone: Bool { if case .none = node { return true } else { return false } }

    /// This effect, then `other`: no merge node unless both do something (most actions concern
    /// one feature, so combining reducers makes no array).
    @inlinable public func merge(with other: Effect) -> Effect {
        if other.isNone { return self }
        if isNone { return other }
        return .merge([self, other])
    }

    /// The same effect sending `transform(action)` instead (used by `pullback`).
    @inlinable public func map<B>(_ transform: @escaping @Sendable (Action) -> B) -> Effect<B> {
        switch node {
        case .none: return .none
        case .output(let o): return .output(o)
        case .run(let job):
            let work = job.work
            return .run(id: job.id) { environment, send in
                await work(environment, Send { send(transform($0)) })
            }
        case .merge(let effects): return .merge(effects.map { $0.map(transform) })
        }
    }

    /// Splits the tree into outputs (emitted at once) and the async jobs (run later), in order.
    @inlinable public func flatten(outputs: inout [StoreOutput], jobs: inout [Job]) {
        switch node {
        case .none: break
        case .output(let o): outputs.append(o)
        case .run(let job): jobs.append(job)
        case .merge(let effects): for e in effects { e.flatten(outputs: &outputs, jobs: &jobs) }
        }
    }
}

/// How an effect sends actions back into its store.
public struct Send<Action>: Sendable {
    @usableFromInline let send: @Sendable (Action) -> Void
    @inlinable public init(_ send: @escaping @Sendable (Action) -> Void) { self.send = send }
    @inlinable public func callAsFunction(_ action: Action) { send(action) }
}
