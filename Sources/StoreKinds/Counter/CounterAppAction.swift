import StoreCore

/// The `counter` kind's actions: one case per feature, each with its own FSA prefix.
public enum CounterAppAction: StoreAction, Equatable {
    case counter(CounterAction)
    case primeModal(PrimeModalAction)
    case favoritePrimes(FavoritePrimesAction)

    public static let clientTypes = [
        "counter/incrTapped", "counter/decrTapped", "counter/nthPrimeButtonTapped", "counter/alertDismissed",
        "primeModal/saveFavoritePrimeTapped", "primeModal/removeFavoritePrimeTapped",
        "favoritePrimes/deleteFavoritePrimes",
    ]
    public static let internalTypes = ["counter/nthPrimeResponse"]

    public static func payloadSchema(of type: String) -> JSONValue? {
        switch type {
        case "counter/nthPrimeResponse": PayloadSchema.object(["prime": PayloadSchema.nullable(PayloadSchema.integer)])
        case "favoritePrimes/deleteFavoritePrimes": PayloadSchema.object(["indexes": PayloadSchema.array(of: PayloadSchema.integer)])
        default: nil
        }
    }

    public init(type: String, payload: JSONValue?) throws(ActionError) {
        switch type {
        case "counter/incrTapped": self = .counter(.incrTapped)
        case "counter/decrTapped": self = .counter(.decrTapped)
        case "counter/nthPrimeButtonTapped": self = .counter(.nthPrimeButtonTapped)
        case "counter/alertDismissed": self = .counter(.alertDismissed)
        case "counter/nthPrimeResponse":
            let o = try Payload.object(payload, type)
            let prime = try Payload.member(o, "prime") { (v, field) throws(ActionError) -> Int? in
                if v == nil || v == .null { return nil }
                return try Payload.int(v, field: field)
            }
            guard o["prime"] != nil else { throw .invalidPayload(detail: "payload.prime: missing") }
            self = .counter(.nthPrimeResponse(prime: prime))
        case "primeModal/saveFavoritePrimeTapped": self = .primeModal(.saveFavoritePrimeTapped)
        case "primeModal/removeFavoritePrimeTapped": self = .primeModal(.removeFavoritePrimeTapped)
        case "favoritePrimes/deleteFavoritePrimes":
            let o = try Payload.object(payload, type)
            guard case .array(let items)? = o["indexes"] else {
                throw .invalidPayload(detail: "payload.indexes: expected an array of integers, got \(o["indexes"]?.typeName ?? "none")")
            }
            var indexes: [Int] = []
            for (i, item) in items.enumerated() {
                // The field's name only for the refusal: none made per index read.
                guard case .int(let index) = item else { throw .invalidPayload(detail: "payload.indexes[\(i)]: expected an integer, got \(item.typeName)") }
                indexes.append(index)
            }
            self = .favoritePrimes(.deleteFavoritePrimes(indexes: indexes))
        default:
            throw Self.unknown(type)
        }
    }

    public var type: String {
        switch self {
        case .counter(.incrTapped): return "counter/incrTapped"
        case .counter(.decrTapped): return "counter/decrTapped"
        case .counter(.nthPrimeButtonTapped): return "counter/nthPrimeButtonTapped"
        case .counter(.nthPrimeResponse): return "counter/nthPrimeResponse"
        case .counter(.alertDismissed): return "counter/alertDismissed"
        case .primeModal(.saveFavoritePrimeTapped): return "primeModal/saveFavoritePrimeTapped"
        case .primeModal(.removeFavoritePrimeTapped): return "primeModal/removeFavoritePrimeTapped"
        case .favoritePrimes(.deleteFavoritePrimes): return "favoritePrimes/deleteFavoritePrimes"
        }
    }

    public var hasPayload: Bool {
        switch self {
        case .counter(.nthPrimeResponse), .favoritePrimes(.deleteFavoritePrimes): return true
        default: return false
        }
    }

    public var payload: JSONValue? {
        switch self {
        case .counter(.nthPrimeResponse(let prime)): return .object(["prime": prime.map(JSONValue.int) ?? .null])
        case .favoritePrimes(.deleteFavoritePrimes(let indexes)): return .object(["indexes": .array(indexes.map(JSONValue.int))])
        default: return nil
        }
    }
}

/// The `counter` kind: three feature reducers lifted into the app state and combined.
/// The app's interrupted effects: the counter feature's, lifted like its reducer.
public let counterAppResume: @Sendable (CounterAppState) -> Effect<CounterAppAction> = { state in
    counterResume(state.counter).map(CounterAppAction.counter)
}

public let counterAppReducer = Reducer<CounterAppState, CounterAppAction>.combine(
    counterReducer.pullback(state: \.counter, action: CounterAppAction.counterCase),
    primeModalReducer.pullback(state: \.primeModal, action: CounterAppAction.primeModalCase),
    favoritePrimesReducer.pullback(state: \.favorites, action: CounterAppAction.favoritePrimesCase)
)
