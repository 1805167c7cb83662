import SessionCore
import XCTest

/// When the journal gets a snapshot: every command and change of state, event by event.
final class SnapshotScheduleTests: XCTestCase {
    /// A snapshot is of the kept state at the window's start once it is `every` versions past the
    /// last one; never twice of the same version, never on a deleted session.
    func testASnapshotIsDueEveryIntervalPastTheLastOne() {
        let machine = TestMachine(snapshots: .init(every: 10, bytes: 1_000))
        machine.applyInMemory(1, 1...12, weight: 5)
        machine.send(.snapshotBase(nil, droppedBytes: 0, byteLimit: 1_000, lastSnapshotBytes: 0), [])
        machine.send(.snapshotBase(9, droppedBytes: 0, byteLimit: 1_000, lastSnapshotBytes: 0), [])
        machine.send(.snapshotBase(10, droppedBytes: 0, byteLimit: 1_000, lastSnapshotBytes: 0), [.writeSnapshot(version: 10)]) {
            $0.snapshot = 10
            $0.bytesSinceSnapshot = 0
        }
        machine.send(.snapshotBase(10, droppedBytes: 0, byteLimit: 1_000, lastSnapshotBytes: 0), [])
        machine.send(.wroteSnapshot(at: 15), []) { $0.snapshot = 15 }
        machine.send(.snapshotBase(24, droppedBytes: 0, byteLimit: 1_000, lastSnapshotBytes: 0), [])
        machine.send(.delete(now: 0), []) { $0.deleted = true }
        machine.send(.snapshotBase(25, droppedBytes: 0, byteLimit: 1_000, lastSnapshotBytes: 0), [])
    }

    /// Actions leaving the window make a snapshot due sooner: `bytes` of them, or the window's
    /// whole byte budget when that is smaller.
    func testBytesLeavingTheWindowMakeASnapshotDueSooner() {
        let machine = TestMachine(snapshots: .init(every: 1_000, bytes: 500))
        machine.send(.snapshotBase(3, droppedBytes: 499, byteLimit: 10_000, lastSnapshotBytes: 0), [])
        machine.send(.snapshotBase(3, droppedBytes: 500, byteLimit: 10_000, lastSnapshotBytes: 0), [.writeSnapshot(version: 3)]) {
            $0.snapshot = 3
            $0.droppedAtSnapshot = 500
        }
        machine.send(.snapshotBase(4, droppedBytes: 799, byteLimit: 300, lastSnapshotBytes: 0), [])
        machine.send(.snapshotBase(4, droppedBytes: 800, byteLimit: 300, lastSnapshotBytes: 0), [.writeSnapshot(version: 4)]) {
            $0.snapshot = 4
            $0.droppedAtSnapshot = 800
        }
    }

    /// A big state's next snapshot waits until the actions since weigh a quarter of the last one.
    func testABigStateWaitsForAQuarterOfItsSizeInActions() {
        let machine = TestMachine(snapshots: .init(every: 1, bytes: 1_000))
        machine.applyInMemory(1, 1...1, weight: 99)
        machine.send(.snapshotBase(1, droppedBytes: 0, byteLimit: 1_000, lastSnapshotBytes: 400), [])
        machine.applyInMemory(2, 2...2, weight: 1)
        machine.send(.snapshotBase(1, droppedBytes: 0, byteLimit: 1_000, lastSnapshotBytes: 400), [.writeSnapshot(version: 1)]) {
            $0.snapshot = 1
            $0.bytesSinceSnapshot = 0
        }
    }
}
