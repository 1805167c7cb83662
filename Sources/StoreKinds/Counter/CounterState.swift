import StoreCore

/// One entry of the activity feed: `{"type": "addedFavoritePrime", "prime": 7, "timestamp": "..."}`.
public struct Activity: PatchDiffable, JSONDecodable, Sendable {
    public enum Kind: String, Sendable { case addedFavoritePrime, removedFavoritePrime }
    public var kind: Kind
    public var prime: Int
    /// Millis since the epoch: the `at` of the action that made the entry.
    public var timestamp: Int64

    public init(_ kind: Kind, prime: Int, timestamp: Int64) {
        self.kind = kind
        self.prime = prime
        self.timestamp = timestamp
    }

    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("type"); w.write(kind.rawValue)
        w.key("prime"); w.write(prime)
        w.key("timestamp"); w.write(Timestamp.iso8601(millis: timestamp))
        w.endObject()
    }

    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        let type: String = try json.decodeMember("type", at: path)
        guard let kind = Kind(rawValue: type) else {
            throw StateDecodingError(path: path + "/type", message: "expected \"addedFavoritePrime\" or \"removedFavoritePrime\"")
        }
        self.kind = kind
        prime = try json.decodeMember("prime", at: path)
        let stamp: String = try json.decodeMember("timestamp", at: path)
        guard let millis = Timestamp.millis(iso8601: stamp) else {
            throw StateDecodingError(path: path + "/timestamp", message: "expected an ISO-8601 timestamp")
        }
        timestamp = millis
    }
}

/// `counter`: the app state the three features share.
public struct CounterAppState: StoreState, PatchDiffable {
    public var count: Int
    public var favoritePrimes: [Int]
    public var activityFeed: [Activity]
    public var nthPrime: Int?
    public var isNthPrimeRequestInFlight: Bool

    public init(count: Int = 0, favoritePrimes: [Int] = [], activityFeed: [Activity] = [],
                nthPrime: Int? = nil, isNthPrimeRequestInFlight: Bool = false) {
        self.count = count
        self.favoritePrimes = favoritePrimes
        self.activityFeed = activityFeed
        self.nthPrime = nthPrime
        self.isNthPrimeRequestInFlight = isNthPrimeRequestInFlight
    }

    public static var initial: CounterAppState { CounterAppState() }

    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("count"); w.write(count)
        w.key("favoritePrimes"); favoritePrimes.writeJSON(to: &w)
        w.key("activityFeed"); activityFeed.writeJSON(to: &w)
        w.key("nthPrime"); nthPrime.writeJSON(to: &w)
        w.key("isNthPrimeRequestInFlight"); w.write(isNthPrimeRequestInFlight)
        w.endObject()
    }

    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        count = try json.decodeMember("count", at: path)
        favoritePrimes = try json.decodeMember("favoritePrimes", at: path)
        activityFeed = try json.decodeMember("activityFeed", at: path)
        nthPrime = try json.decodeMember("nthPrime", at: path)
        isNthPrimeRequestInFlight = try json.decodeMember("isNthPrimeRequestInFlight", at: path)
    }

    public func diff(from old: CounterAppState, at path: String, into patch: inout PatchWriter) {
        patch.field(count, old.count, path, "/count")
        patch.field(favoritePrimes, old.favoritePrimes, path, "/favoritePrimes")
        patch.field(activityFeed, old.activityFeed, path, "/activityFeed")
        patch.field(nthPrime, old.nthPrime, path, "/nthPrime")
        patch.field(isNthPrimeRequestInFlight, old.isNthPrimeRequestInFlight, path, "/isNthPrimeRequestInFlight")
    }
}

// The features' views of the app state, as writable key paths for `pullback`.
extension CounterAppState {
    public var counter: CounterState {
        get { CounterState(count: count, nthPrime: nthPrime, isNthPrimeRequestInFlight: isNthPrimeRequestInFlight) }
        set { count = newValue.count; nthPrime = newValue.nthPrime; isNthPrimeRequestInFlight = newValue.isNthPrimeRequestInFlight }
    }

    public var primeModal: PrimeModalState {
        get { PrimeModalState(count: count, favoritePrimes: favoritePrimes, activityFeed: activityFeed) }
        set { count = newValue.count; favoritePrimes = newValue.favoritePrimes; activityFeed = newValue.activityFeed }
    }

    public var favoritePrimesState: FavoritePrimesState {
        get { FavoritePrimesState(favoritePrimes: favoritePrimes, activityFeed: activityFeed) }
        set { favoritePrimes = newValue.favoritePrimes; activityFeed = newValue.activityFeed }
    }
}
