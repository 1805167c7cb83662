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

    /// A big state's next snapshot waits until the actions since weigh half the last one.
    func testABigStateWaitsForHalfItsSizeInActions() {
        let machine = TestMachine(snapshots: .init(every: 1, bytes: 1_000))
        machine.applyInMemory(1, 1...1, weight: 199)
        machine.send(.snapshotBase(1, droppedBytes: 0, byteLimit: 1_000, lastSnapshotBytes: 400), [])
        machine.applyInMemory(2, 2...2, weight: 1)
        machine.send(.snapshotBase(1, droppedBytes: 0, byteLimit: 1_000, lastSnapshotBytes: 400), [.writeSnapshot(version: 1)]) {
            $0.snapshot = 1
            $0.bytesSinceSnapshot = 0
        }
    }

    /// `isDue` says what `take` would, without taking; and a base not due says every earlier one
    /// is not either, so a host asks with the latest base it could find before looking for one.
    func testIsDueAnswersAsTakeWouldAndNeverForAnEarlierBaseThanOneNotDue() {
        var schedule = SnapshotSchedule(every: 10, bytes: 500)
        schedule.applied(weight: 300)
        for dropped in [0, 499, 500, 900] {
            for lastBytes in [0, 600, 601] {
                var dueBefore = false
                for base in 0...25 {
                    let due = schedule.isDue(base: base, droppedBytes: dropped, byteLimit: 10_000, lastSnapshotBytes: lastBytes)
                    var taking = schedule
                    XCTAssertEqual(due, taking.take(base: base, droppedBytes: dropped, byteLimit: 10_000, lastSnapshotBytes: lastBytes),
                                   "base \(base), dropped \(dropped), last snapshot \(lastBytes) bytes")
                    XCTAssertFalse(dueBefore && !due, "due at \(base - 1), not at \(base)")
                    dueBefore = due
                }
            }
        }
        XCTAssertTrue(schedule.isDue(base: 10, droppedBytes: 0, byteLimit: 10_000, lastSnapshotBytes: 0))
        XCTAssertFalse(schedule.isDue(base: 9, droppedBytes: 0, byteLimit: 10_000, lastSnapshotBytes: 0))
    }

    /// A session that grows by `growth` bytes of state and logs `weight` bytes per action: the
    /// snapshots' bytes stay within twice the bytes logged (plus the last state), at any size.
    func testSnapshotBytesAreAmortizedOverTheBytesLogged() {
        for (growth, weight) in [(72, 200), (0, 140), (500, 100), (5, 5_000)] {
            var schedule = SnapshotSchedule(every: 1_000, bytes: 64 << 20)
            var stateBytes = 1_000, lastBytes = 0, logged = 0, written = 0, snapshots = 0
            for version in 1...2_000_000 {
                stateBytes += growth
                logged += weight
                schedule.applied(weight: weight)
                if schedule.take(base: version, droppedBytes: 0, byteLimit: 64 << 20, lastSnapshotBytes: lastBytes) {
                    lastBytes = stateBytes
                    written += stateBytes
                    snapshots += 1
                }
            }
            XCTAssertGreaterThan(snapshots, 0)
            XCTAssertLessThanOrEqual(written, logged * SnapshotSchedule.logShare + stateBytes,
                                     "growth \(growth), weight \(weight): \(snapshots) snapshots, \(written) bytes")
        }
    }
}
