import XCTest
@testable import SessionCore
import StoreCore

/// The kept states: starting points for time travel and rollback, bounded by their weights.
final class KeptStatesTests: XCTestCase {
    private struct Count: StoreState, PatchDiffable {
        var n = 0
        static var initial: Count { Count() }
        func writeJSON(to w: inout JSONWriter) {
            w.beginObject()
            w.key("n"); w.write(n)
            w.endObject()
        }
        init(n: Int = 0) { self.n = n }
        init(json: JSONValue, path: String) throws(StateDecodingError) { n = try json.decodeMember("n", at: path) }
    }

    private func state(_ n: Int) -> SharedState { SharedState(Count(n: n)) }

    func testKeptStatesNeverLetGoOfTheNewestNorTheRollbackBase() {
        var states = KeptStates(byteBudget: 250)
        states.add(version: 0, state: state(0), weight: 100)
        states.add(version: 10, state: state(10), weight: 100)
        states.add(version: 20, state: state(20), weight: 100, keepingBaseOf: 5)
        XCTAssertEqual(states.states.map(\.version), [0, 20], "version 0 is where a rollback to 5 starts")
        states.add(version: 30, state: state(30), weight: 100)
        XCTAssertEqual(states.states.map(\.version), [20, 30], "without a durable version the oldest goes first")
        XCTAssertEqual(states.bytes, 200)
        XCTAssertEqual(states.nearest(atOrBefore: 25)?.state.encode(), Array(#"{"n":20}"#.utf8))
    }

    func testAddMakesTheNewestAndInsertKeepsTheNewerOnes() {
        var states = KeptStates(byteBudget: 1_000)
        for version in [0, 10, 20] { states.add(version: version, state: state(version), weight: 100) }
        states.insert(version: 15, state: state(15), weight: 100)
        XCTAssertEqual(states.states.map(\.version), [0, 10, 15, 20], "in order, 20 stays")
        states.insert(version: 15, state: state(-15), weight: 1)
        XCTAssertEqual(states.states.map(\.weight), [100, 100, 1, 100], "a second insert replaces the first")
        XCTAssertEqual(states.nearest(atOrBefore: 15)?.state.jsonValue()["n"], .int(-15))
        states.add(version: 12, state: state(12), weight: 100)
        XCTAssertEqual(states.states.map(\.version), [0, 10, 12], "add drops what is newer (a rollback reuses those versions)")
    }
}
