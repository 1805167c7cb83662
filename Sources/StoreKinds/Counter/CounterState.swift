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
        w.key(static: "type"); w.write(kind.rawValue)
        w.key(static: "prime"); w.write(prime)
        w.key(static: "timestamp"); w.write(Timestamp.iso8601(millis: timestamp))
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
///
/// Each feature's state is stored where it can be (`counter`, `favorites`), so its reducer
/// works in place; the prime modal, which spans both, is a computed view. JSON stays flat, in
/// docs/API.md's order.
public struct CounterAppState: StoreState, PatchDiffable {
    public var counter: CounterState
    public var favorites: FavoritePrimesState

    public init(count: Int = 0, favoritePrimes: [Int] = [], activityFeed: [Activity] = [],
                nthPrime: Int? = nil, isNthPrimeRequestInFlight: Bool = false) {
        counter = CounterState(count: count, nthPrime: nthPrime, isNthPrimeRequestInFlight: isNthPrimeRequestInFlight)
        favorites = FavoritePrimesState(favoritePrimes: favoritePrimes, activityFeed: activityFeed)
    }

    public var count: Int { get { counter.count } set { counter.count = newValue } }
    public var nthPrime: Int? { get { counter.nthPrime } set { counter.nthPrime = newValue } }
    public var isNthPrimeRequestInFlight: Bool {
        get { counter.isNthPrimeRequestInFlight } set { counter.isNthPrimeRequestInFlight = newValue }
    }
    public var favoritePrimes: [Int] { get { favorites.favoritePrimes } set { favorites.favoritePrimes = newValue } }
    public var activityFeed: [Activity] { get { favorites.activityFeed } set { favorites.activityFeed = newValue } }

    public static var initial: CounterAppState { CounterAppState() }

    public func writeJSON(to w: inout JSONWriter) {
        // Everything but the feed's entries (strings, escaped by the writer) in place: one append
        // for the whole state while the feed is empty, three otherwise. An append per key and
        // value cost ~1,500 instructions for the whole state, which every POST answer writes
        // (`scripts/instructions-per-request.sh`). The bounds: keys and punctuation (47 and 46
        // bytes, with a comma before the object), and each number at its longest.
        //
        // The closures see the primes through a buffer pointer and the counter as a copy of a
        // plain struct: a closure reading `self`'s arrays copies them into its context, a retain
        // and a release per array on every answer.
        let counter = self.counter
        let tailBytes = 48 + JSONCursor.maxIntBytes
        if favorites.activityFeed.isEmpty {
            favorites.favoritePrimes.withUnsafeBufferPointer { primes in
                w.withCursor(maxBytes: Self.headBytes(primes) + 2 + tailBytes) { c in
                    Self.writeHead(counter.count, primes, to: &c)
                    c.beginArray(); c.endArray()
                    Self.writeTail(counter, to: &c)
                }
            }
        } else {
            favorites.favoritePrimes.withUnsafeBufferPointer { primes in
                w.withCursor(maxBytes: Self.headBytes(primes)) { c in Self.writeHead(counter.count, primes, to: &c) }
            }
            favorites.activityFeed.writeJSON(to: &w)
            w.withCursor(maxBytes: tailBytes) { c in Self.writeTail(counter, to: &c) }
        }
    }

    @inline(__always) static func headBytes(_ favoritePrimes: UnsafeBufferPointer<Int>) -> Int {
        48 + (1 + favoritePrimes.count) * JSONCursor.maxIntBytes
    }

    @inline(__always) static func writeHead(_ count: Int, _ favoritePrimes: UnsafeBufferPointer<Int>, to c: inout JSONCursor) {
        c.beginObject()
        c.key("count"); c.write(count)
        c.key("favoritePrimes"); c.write(favoritePrimes)
        c.key("activityFeed")
    }

    @inline(__always) static func writeTail(_ counter: CounterState, to c: inout JSONCursor) {
        c.key("nthPrime"); c.write(counter.nthPrime)
        c.key("isNthPrimeRequestInFlight"); c.write(counter.isNthPrimeRequestInFlight)
        c.endObject()
    }

    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        self.init(count: try json.decodeMember("count", at: path),
                  favoritePrimes: try json.decodeMember("favoritePrimes", at: path),
                  activityFeed: try json.decodeMember("activityFeed", at: path),
                  nthPrime: try json.decodeMember("nthPrime", at: path),
                  isNthPrimeRequestInFlight: try json.decodeMember("isNthPrimeRequestInFlight", at: path))
    }

    public func diff(from old: CounterAppState, at path: String, into patch: inout PatchWriter) {
        patch.field(counter.count, old.counter.count, path, "/count")
        patch.field(favorites.favoritePrimes, old.favorites.favoritePrimes, path, "/favoritePrimes")
        patch.field(favorites.activityFeed, old.favorites.activityFeed, path, "/activityFeed")
        patch.field(counter.nthPrime, old.counter.nthPrime, path, "/nthPrime")
        patch.field(counter.isNthPrimeRequestInFlight, old.counter.isNthPrimeRequestInFlight, path, "/isNthPrimeRequestInFlight")
    }
}

// The prime modal's view spans both features' state: a computed writable key path for `pullback`.
extension CounterAppState {
    public var primeModal: PrimeModalState {
        get { PrimeModalState(count: counter.count, favoritePrimes: favorites.favoritePrimes, activityFeed: favorites.activityFeed) }
        set {
            counter.count = newValue.count
            favorites.favoritePrimes = newValue.favoritePrimes
            favorites.activityFeed = newValue.activityFeed
        }
    }
}
