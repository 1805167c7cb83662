import XCTest
@testable import SessionCore

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

    func testAddMakesTheNewestAndInsertKeepsTheNewerOnes() {
        var states = KeptStates(byteBudget: 1_000)
        let state = [UInt8](repeating: 0x20, count: 100)
        for version in [0, 10, 20] { states.add(version: version, bytes: state) }
        states.insert(version: 15, bytes: state)
        XCTAssertEqual(states.states.map(\.version), [0, 10, 15, 20], "in order, 20 stays")
        states.insert(version: 15, bytes: [1])
        XCTAssertEqual(states.states.map(\.bytes.count), [100, 100, 1, 100], "a second insert replaces the first")
        states.add(version: 12, bytes: state)
        XCTAssertEqual(states.states.map(\.version), [0, 10, 12], "add drops what is newer (a rollback reuses those versions)")
    }
}
