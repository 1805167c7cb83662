import XCTest
@testable import StorehouseServer

/// The kept states: starting points for time travel and rollback, bounded in bytes.
final class KeptStatesTests: XCTestCase {
    func testKeptStatesNeverLetGoOfTheNewestNorTheRollbackBase() {
        var states = KeptStates(byteBudget: 250)
        let state = [UInt8](repeating: 0x20, count: 100)
        states.add(version: 0, bytes: state)
        states.add(version: 10, bytes: state)
        states.add(version: 20, bytes: state, keepingBaseOf: 5)
        XCTAssertEqual(states.states.map(\.version), [0, 20], "version 0 is where a rollback to 5 starts")
        states.add(version: 30, bytes: state)
        XCTAssertEqual(states.states.map(\.version), [20, 30], "without a durable version the oldest goes first")
    }
}
