import XCTest
@testable import StoreCore
@testable import StoreKinds
import StoreTesting

final class CounterKindTests: XCTestCase {
    func testIncrementAndDecrement() {
        let store = TestStore(reducer: counterAppReducer)
        store.send(.counter(.incrTapped)) { $0.count = 1 }
        store.send(.counter(.incrTapped)) { $0.count = 2 }
        store.send(.counter(.decrTapped)) { $0.count = 1 }
        store.finish()
    }

    func testCountOverflowIsRefusedNotTrapped() {
        let store = TestStore(initialState: CounterAppState(count: .max), reducer: counterAppReducer)
        store.send(.counter(.incrTapped), refusedWith: .rejected(detail: "count is at its maximum"))
    }

    func testSaveFavoritePrimeAppendsAndLogsWithTheActionTime() {
        let store = TestStore(initialState: CounterAppState(count: 7), reducer: counterAppReducer, now: 1_000)
        store.send(.primeModal(.saveFavoritePrimeTapped)) {
            $0.favoritePrimes = [7]
            $0.activityFeed = [Activity(.addedFavoritePrime, prime: 7, timestamp: 1_000)]
        }
        XCTAssertEqual(String(decoding: store.store.encodeState(), as: UTF8.self),
                       #"{"count":7,"favoritePrimes":[7],"activityFeed":[{"type":"addedFavoritePrime","prime":7,"timestamp":"1970-01-01T00:00:01.000Z"}],"nthPrime":null,"isNthPrimeRequestInFlight":false}"#)
    }

    func testSaveRefusesNonPrimeAndExistingFavorite() {
        let store = TestStore(initialState: CounterAppState(count: 8), reducer: counterAppReducer)
        store.send(.primeModal(.saveFavoritePrimeTapped), refusedWith: .rejected(detail: "8 is not prime"))
        store.send(.counter(.decrTapped)) { $0.count = 7 }
        store.send(.primeModal(.saveFavoritePrimeTapped)) {
            $0.favoritePrimes = [7]
            $0.activityFeed = [Activity(.addedFavoritePrime, prime: 7, timestamp: store.now)]
        }
        store.send(.primeModal(.saveFavoritePrimeTapped), refusedWith: .rejected(detail: "7 is already a favorite"))
    }

    func testNegativeZeroAndOneAreNotPrime() {
        for n in [-7, 0, 1] {
            let store = TestStore(initialState: CounterAppState(count: n), reducer: counterAppReducer)
            store.send(.primeModal(.saveFavoritePrimeTapped), refusedWith: .rejected(detail: "\(n) is not prime"))
        }
    }

    func testRemoveFavoritePrime() {
        let start = CounterAppState(count: 5, favoritePrimes: [3, 5, 7])
        let store = TestStore(initialState: start, reducer: counterAppReducer)
        store.send(.primeModal(.removeFavoritePrimeTapped)) {
            $0.favoritePrimes = [3, 7]
            $0.activityFeed = [Activity(.removedFavoritePrime, prime: 5, timestamp: store.now)]
        }
        store.send(.primeModal(.removeFavoritePrimeTapped), refusedWith: .rejected(detail: "5 is not a favorite"))
    }

    func testDeleteFavoritePrimesByIndexes() {
        let start = CounterAppState(favoritePrimes: [2, 3, 5, 7])
        let store = TestStore(initialState: start, reducer: counterAppReducer)
        let at = store.now
        store.send(.favoritePrimes(.deleteFavoritePrimes(indexes: [2, 0]))) {
            $0.favoritePrimes = [3, 7]
            $0.activityFeed = [Activity(.removedFavoritePrime, prime: 2, timestamp: at),
                               Activity(.removedFavoritePrime, prime: 5, timestamp: at)]
        }
        store.send(.favoritePrimes(.deleteFavoritePrimes(indexes: [0, 2])),
                   refusedWith: .invalidPayload(detail: "payload.indexes[1]: 2 is out of range (2 favorites)"))
        store.send(.favoritePrimes(.deleteFavoritePrimes(indexes: [-1])),
                   refusedWith: .invalidPayload(detail: "payload.indexes[0]: -1 is out of range (2 favorites)"))
    }

    func testNthPrimeRunsAnEffectAndFeedsTheAnswerBack() {
        let store = TestStore(initialState: CounterAppState(count: 7), reducer: counterAppReducer)
        store.send(.counter(.nthPrimeButtonTapped)) { $0.isNthPrimeRequestInFlight = true }
        store.send(.counter(.nthPrimeButtonTapped), refusedWith: .rejected(detail: "an nth-prime request is already in flight"))
        store.receive(.counter(.nthPrimeResponse(prime: 17))) {
            $0.nthPrime = 17
            $0.isNthPrimeRequestInFlight = false
        }
        store.send(.counter(.alertDismissed)) { $0.nthPrime = nil }
        store.finish()
    }

    func testNthPrimeBelowOneIsNull() {
        let store = TestStore(initialState: CounterAppState(count: 0), reducer: counterAppReducer)
        store.send(.counter(.nthPrimeButtonTapped)) { $0.isNthPrimeRequestInFlight = true }
        store.receive(.counter(.nthPrimeResponse(prime: nil))) { $0.isNthPrimeRequestInFlight = false }
    }

    func testPrimes() {
        XCTAssertEqual((1...10).compactMap(Primes.nthPrime), [2, 3, 5, 7, 11, 13, 17, 19, 23, 29])
        XCTAssertEqual(Primes.nthPrime(10_000), 104_729)
        XCTAssertNil(Primes.nthPrime(Primes.nthPrimeLimit + 1))
        let small = (0..<200).filter(Primes.isPrime)
        let naive = (0..<200).filter { n in n >= 2 && (2..<n).allSatisfy { n % $0 != 0 } }
        XCTAssertEqual(small, naive)
        XCTAssertTrue(Primes.isPrime(9_223_372_036_854_775_783))  // the largest prime below 2^63
        XCTAssertFalse(Primes.isPrime(Int.max))
        XCTAssertFalse(Primes.isPrime(3_215_031_751))  // a strong pseudoprime to bases 2, 3, 5, 7
    }

    func testFSADecoding() throws {
        XCTAssertEqual(try CounterAppAction(type: "counter/incrTapped", payload: nil), .counter(.incrTapped))
        XCTAssertEqual(try CounterAppAction(type: "favoritePrimes/deleteFavoritePrimes", payload: .object(["indexes": .array([.int(1)])])),
                       .favoritePrimes(.deleteFavoritePrimes(indexes: [1])))
        XCTAssertThrowsError(try CounterAppAction(type: "counter/nope", payload: nil)) { error in
            XCTAssertEqual(error as? ActionError, .unknownAction(type: "counter/nope", validTypes: CounterAppAction.clientTypes))
        }
        XCTAssertThrowsError(try CounterAppAction(type: "favoritePrimes/deleteFavoritePrimes", payload: .object(["indexes": .array([.string("a")])]))) { error in
            XCTAssertEqual(error as? ActionError, .invalidPayload(detail: "payload.indexes[0]: expected an integer, got a string"))
        }
        XCTAssertThrowsError(try CounterAppAction(type: "favoritePrimes/deleteFavoritePrimes", payload: nil)) { error in
            guard case .invalidPayload(let detail)? = error as? ActionError else { return XCTFail("\(error)") }
            XCTAssertTrue(detail.hasPrefix("payload:"), detail)
        }
        XCTAssertEqual(try CounterAppAction(type: "counter/nthPrimeResponse", payload: .object(["prime": .null])),
                       .counter(.nthPrimeResponse(prime: nil)))
        for type in CounterAppAction.allTypes {
            let sample: JSONValue? = type == "favoritePrimes/deleteFavoritePrimes" ? .object(["indexes": .array([])])
                : type == "counter/nthPrimeResponse" ? .object(["prime": .int(3)]) : nil
            let action = try CounterAppAction(type: type, payload: sample)
            XCTAssertEqual(action.type, type)
            XCTAssertEqual(try CounterAppAction(type: action.type, payload: action.payload), action)
        }
    }
}
