import Foundation
import Synchronization
import XCTest
@testable import Journal

/// `Journal.park`: a parked session keeps no writer state, reads back whole, takes appends again,
/// deletes, and recovers after a restart.
final class ParkingTests: XCTestCase {
    func testAParkedSessionHoldsNoStateReadsBackWholeAndTakesAppendsAgain() throws {
        for policy in FsyncPolicy.allCases {
            let dir = makeTempDirectory(self)
            let j = try openJournal(dir, fsync: policy, sessions: ["a", "b"], meta: bytes("m"))
            defer { j.close() }
            for v in 1...5 { XCTAssertNoThrow(try appendSync(j, "a", [(v, "r\(v)")]).get()) }
            j.writeSnapshot(session: "a", version: 3, bytes: bytes("s3"))
            j.flush()
            XCTAssertEqual(j.statistics().sessions, 2)
            let parked = j.park(sessions: ["a", "unknown"])
            XCTAssertNotNil(parked[0], "\(policy)")
            XCTAssertNil(parked[1], "an unknown session is not parked")
            XCTAssertEqual(j.statistics().sessions, 1, "the writer dropped a's state (\(policy))")
            guard case .failure(.unknownSession) = appendSync(j, "a", [(6, "r6")]) else { return XCTFail("a parked session takes no append") }

            guard let note = parked[0], case .success(let read) = j.readSession(id: "a", parked: note) else { return XCTFail("\(policy)") }
            XCTAssertEqual(read.snapshot?.version, 3)
            XCTAssertEqual(read.records.map(\.version), [4, 5])
            XCTAssertEqual(read.meta, bytes("m"))
            XCTAssertEqual(j.statistics().sessions, 2, "read back, it is open again")
            XCTAssertNoThrow(try appendSync(j, "a", [(6, "r6")]).get(), "\(policy)")
            j.close()
            let r = try recoverAndClose(dir, fsync: policy)
            XCTAssertEqual(r.session("a")?.versions, [4, 5, 6], "\(policy)")
            XCTAssertTrue(r.failures.isEmpty, "\(r.failures)")
        }
    }

    func testAParkedSessionRecoversAfterARestartAndDeletesWithItsNote() throws {
        let dir = makeTempDirectory(self)
        do {
            let j = try openJournal(dir, fsync: .batch, sessions: ["a", "b"], meta: bytes("m"))
            for v in 1...3 { XCTAssertNoThrow(try appendSync(j, "a", [(v, "r\(v)")]).get()) }
            XCTAssertNoThrow(try appendSync(j, "b", [(1, "b1")]).get())
            j.flush()
            let parked = j.park(sessions: ["a", "b"])
            XCTAssertTrue(parked.allSatisfy { $0 != nil })
            if let b = parked[1] { j.deleteSession(id: "b", parked: b) }
            XCTAssertFalse(files(in: dir).contains { $0.hasPrefix("b.") }, "\(files(in: dir))")
            j.close()
        }
        let r = try recoverAndClose(dir, fsync: .batch)
        XCTAssertEqual(r.sessions.map(\.id), ["a"])
        XCTAssertEqual(r.session("a")?.versions, [1, 2, 3])
    }

    func testASessionWithAWriteNoSyncCoversStaysOpen() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .never, sessions: ["a"], meta: bytes("m"))
        defer { j.close() }
        j.flush()
        XCTAssertNoThrow(try appendSync(j, "a", [(1, "r1")]).get())
        XCTAssertEqual(j.park(sessions: ["a"]), [nil], "under never, a write is on disk only after a flush")
        j.flush()
        XCTAssertNotNil(j.park(sessions: ["a"])[0])
    }

    func testRecoveryParksWhatTheCallerTakesAndOpensTheRest() throws {
        let dir = makeTempDirectory(self)
        do {
            let j = try openJournal(dir, fsync: .always, sessions: ["a", "b"], meta: bytes("m"))
            XCTAssertNoThrow(try appendSync(j, "a", [(1, "a1"), (2, "a2")]).get())
            XCTAssertNoThrow(try appendSync(j, "b", [(1, "b1")]).get())
            j.close()
        }
        let j = try Journal(directory: dir, fsync: .always)
        defer { j.close() }
        let notes = Mutex<[String: ParkedSession]>([:])
        _ = j.recover(expecting: { XCTAssertEqual($0, 2) }, parking: { session, parked in
            guard session.id == "a", let parked else { return false }
            notes.withLock { $0["a"] = parked }
            return true
        })
        XCTAssertEqual(j.statistics().sessions, 1, "the writer opened b alone")
        guard case .failure(.unknownSession) = appendSync(j, "a", [(3, "a3")]) else { return XCTFail("a is parked") }
        XCTAssertNoThrow(try appendSync(j, "b", [(2, "b2")]).get())
        guard let note = notes.withLock({ $0["a"] }), case .success(let a) = j.readSession(id: "a", parked: note) else {
            return XCTFail("a reads back from its note")
        }
        XCTAssertEqual(a.records.map(\.version), [1, 2])
        XCTAssertNoThrow(try appendSync(j, "a", [(3, "a3")]).get())
    }
}
