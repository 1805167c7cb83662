import StoreCore

/// The counter kind's three case paths, one type each: their switch is inlined into the
/// composed reducer's scopes, where a `CasePath`'s closures cost a call per feature per action.
extension CounterAppAction {
    static let counterCase = CounterCase()
    static let primeModalCase = PrimeModalCase()
    static let favoritePrimesCase = FavoritePrimesCase()

    struct CounterCase: CasePathProtocol {
        func extract(from action: CounterAppAction) -> CounterAction? {
            if case .counter(let a) = action { a } else { nil }
        }
        func embed(_ action: CounterAction) -> CounterAppAction { .counter(action) }
    }

    struct PrimeModalCase: CasePathProtocol {
        func extract(from action: CounterAppAction) -> PrimeModalAction? {
            if case .primeModal(let a) = action { a } else { nil }
        }
        func embed(_ action: PrimeModalAction) -> CounterAppAction { .primeModal(action) }
    }

    struct FavoritePrimesCase: CasePathProtocol {
        func extract(from action: CounterAppAction) -> FavoritePrimesAction? {
            if case .favoritePrimes(let a) = action { a } else { nil }
        }
        func embed(_ action: FavoritePrimesAction) -> CounterAppAction { .favoritePrimes(action) }
    }
}
