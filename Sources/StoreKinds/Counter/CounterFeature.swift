import StoreCore

/// The counter screen's state: the count and the nth-prime alert.
public struct CounterState: Equatable, Sendable {
    public var count: Int
    public var nthPrime: Int?
    public var isNthPrimeRequestInFlight: Bool
}

public enum CounterAction: Equatable, Sendable {
    case incrTapped
    case decrTapped
    case nthPrimeButtonTapped
    case nthPrimeResponse(prime: Int?)
    case alertDismissed
}

/// Increments, decrements, and asks an effect for the count-th prime.
public let counterReducer = Reducer<CounterState, CounterAction> { state, action, _ throws(Rejection) in
    switch action {
    case .incrTapped:
        guard state.count < Int.max else { throw .rejected("count is at its maximum") }
        state.count += 1
        return .none
    case .decrTapped:
        guard state.count > Int.min else { throw .rejected("count is at its minimum") }
        state.count -= 1
        return .none
    case .nthPrimeButtonTapped:
        guard !state.isNthPrimeRequestInFlight else { throw .rejected("an nth-prime request is already in flight") }
        state.isNthPrimeRequestInFlight = true
        return nthPrimeEffect(state.count)
    case .nthPrimeResponse(let prime):
        state.nthPrime = prime
        state.isNthPrimeRequestInFlight = false
        return .none
    case .alertDismissed:
        state.nthPrime = nil
        return .none
    }
}

/// Computes the `n`-th prime off the store's thread and feeds it back.
func nthPrimeEffect(_ n: Int) -> Effect<CounterAction> {
    .run(id: "counter/nthPrime") { _, send in
        send(.nthPrimeResponse(prime: Primes.nthPrime(n)))
    }
}

/// After a restart: a request that was in flight is asked again (the flag is still set, so the
/// button would be refused with 409 forever otherwise).
public let counterResume: @Sendable (CounterState) -> Effect<CounterAction> = { state in
    state.isNthPrimeRequestInFlight ? nthPrimeEffect(state.count) : .none
}

/// The prime modal's state: the count it shows and the favorites it edits.
public struct PrimeModalState: Equatable, Sendable {
    public var count: Int
    public var favoritePrimes: [Int]
    public var activityFeed: [Activity]
}

public enum PrimeModalAction: Equatable, Sendable {
    case saveFavoritePrimeTapped
    case removeFavoritePrimeTapped
}

/// Saves or removes the current count as a favorite, logging each in the activity feed.
public let primeModalReducer = Reducer<PrimeModalState, PrimeModalAction> { state, action, context throws(Rejection) in
    switch action {
    case .saveFavoritePrimeTapped:
        guard Primes.isPrime(state.count) else { throw .rejected("\(state.count) is not prime") }
        guard !state.favoritePrimes.contains(state.count) else { throw .rejected("\(state.count) is already a favorite") }
        state.favoritePrimes.append(state.count)
        state.activityFeed.append(Activity(.addedFavoritePrime, prime: state.count, timestamp: context.at))
    case .removeFavoritePrimeTapped:
        guard let i = state.favoritePrimes.firstIndex(of: state.count) else { throw .rejected("\(state.count) is not a favorite") }
        state.favoritePrimes.remove(at: i)
        state.activityFeed.append(Activity(.removedFavoritePrime, prime: state.count, timestamp: context.at))
    }
    return .none
}

/// The favorites list's state.
public struct FavoritePrimesState: Equatable, Sendable {
    public var favoritePrimes: [Int]
    public var activityFeed: [Activity]
}

public enum FavoritePrimesAction: Equatable, Sendable {
    case deleteFavoritePrimes(indexes: [Int])
}

/// Deletes favorites by position; an index out of range refuses the whole action.
public let favoritePrimesReducer = Reducer<FavoritePrimesState, FavoritePrimesAction> { state, action, context throws(Rejection) in
    switch action {
    case .deleteFavoritePrimes(let indexes):
        let positions = Set(indexes).sorted()
        for (i, index) in indexes.enumerated() where index < 0 || index >= state.favoritePrimes.count {
            throw .invalidPayload("payload.indexes[\(i)]: \(index) is out of range (\(state.favoritePrimes.count) favorites)")
        }
        for index in positions {
            state.activityFeed.append(Activity(.removedFavoritePrime, prime: state.favoritePrimes[index], timestamp: context.at))
        }
        for index in positions.reversed() { state.favoritePrimes.remove(at: index) }
    }
    return .none
}
