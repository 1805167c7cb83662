import Foundation
import Glibc
import Synchronization
import XCTest
@testable import Journal

final class JournalFaultTests: XCTestCase {
    func testDiskFullRefusesTheAppendAndLeavesNoTrace() throws {
        let dir = makeTempDirectory(self)
        do {
            let j = try openJournal(dir, fsync: .always, sessions: ["s"])
            XCTAssertNoThrow(try appendSync(j, "s", [(1, "one")]).get())
            j.injectFault(.diskFull())
            for _ in 0..<3 {
                guard case .failure(.io("write", _, ENOSPC)) = appendSync(j, "s", [(2, "two")]) else { return XCTFail("append must fail") }
            }
            XCTAssertThrowsError(try j.createSession(id: "t", meta: []))
            XCTAssertFalse(files(in: dir).contains { $0.hasPrefix("t.") }, "a refused creation leaves no file")
            j.injectFault(nil)
            XCTAssertNoThrow(try appendSync(j, "s", [(2, "two")]).get(), "the disk recovered")
            XCTAssertEqual(j.statistics().failedWrites, 4, "three appends and one creation")
            j.close()
        }
        XCTAssertEqual(try recoverAndClose(dir).session("s")?.recordStrings, ["one", "two"])
    }

    func testAFaultAimedAtOneFileFailsOnlyThatFile() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, sessions: ["a", "b"])
        defer { j.close() }
        // The writer names a segment only when a fault asks which file it is.
        j.injectFault(JournalFault(operation: .write, errno: EIO, file: "b.00000001.log"))
        XCTAssertNoThrow(try appendSync(j, "a", [(1, "one")]).get(), "a fault aimed at another file")
        guard case .failure(.io("write", let path, EIO)) = appendSync(j, "b", [(1, "one")]) else { return XCTFail("append must fail") }
        XCTAssertTrue(path.hasSuffix("/b.00000001.log"), path)
        j.injectFault(JournalFault(operation: .sync, errno: EIO, count: 1, file: "a.00000001.log"))
        guard case .failure(.io("fdatasync", let syncPath, EIO)) = appendSync(j, "a", [(2, "two")]) else { return XCTFail("sync must fail") }
        XCTAssertTrue(syncPath.hasSuffix("/a.00000001.log"), syncPath)
    }

    /// A new session's first append refused: the version it took is free again, and an append
    /// that follows it (version 2, queued behind it by the session) is refused as out of order,
    /// not written after the gap, where it made the session refuse every later append and fail
    /// its recovery.
    func testARefusedFirstAppendLeavesVersionOneToComeFirst() throws {
        let dir = makeTempDirectory(self)
        do {
            let j = try openJournal(dir, fsync: .always, sessions: ["s"])
            j.injectFault(.syncFails(count: 1))
            guard case .failure(.io(_, _, EIO)) = appendSync(j, "s", [(1, "refused")]) else { return XCTFail("append must fail") }
            guard case .failure(.versionOutOfOrder(_, expected: 1, got: 2)) = appendSync(j, "s", [(2, "after the gap")]) else {
                return XCTFail("version 2 cannot follow nothing")
            }
            XCTAssertNoThrow(try appendSync(j, "s", [(1, "one")]).get())
            XCTAssertNoThrow(try appendSync(j, "s", [(2, "two")]).get())
            j.close()
        }
        XCTAssertEqual(try recoverAndClose(dir).session("s")?.recordStrings, ["one", "two"])
    }

    /// A snapshot queued in the group of a creation the disk refuses writes nothing: the session
    /// does not exist, and a `<id>.snap` left behind would be read as the state of a later session
    /// created with that id.
    func testASnapshotInTheGroupOfARefusedCreationWritesNothing() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always)
        defer { j.close() }
        j.injectFault(.syncFails(count: 1))
        let result = Mutex<Result<Void, JournalError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        // Queued without waking the writer, so both go in one group.
        j.writer.submit(.create(id: "x", meta: [], done: { r in result.withLock { $0 = r }; done.signal() }), wake: false)
        j.writer.submit(.snapshot(id: "x", version: 0, bytes: bytes("state")), wake: false)
        j.commit()
        done.wait()
        guard case .failure = result.withLock({ $0 }) else { return XCTFail("the creation must be refused") }
        j.flush()
        XCTAssertEqual(files(in: dir).filter { $0.hasPrefix("x.") }, [], "nothing of x is left")
    }

    func testFailedSyncIsUndoneSoTheRefusedRecordNeverReappears() throws {
        let dir = makeTempDirectory(self)
        do {
            let j = try openJournal(dir, fsync: .always, sessions: ["s"])
            XCTAssertNoThrow(try appendSync(j, "s", [(1, "one")]).get())
            j.injectFault(.syncFails(count: 1))
            guard case .failure(.io(_, _, EIO)) = appendSync(j, "s", [(2, "refused")]) else { return XCTFail("append must fail") }
            XCTAssertNoThrow(try appendSync(j, "s", [(2, "two")]).get())
            j.close()
        }
        XCTAssertEqual(try recoverAndClose(dir).session("s")?.recordStrings, ["one", "two"])
    }

    func testOtherSessionsInTheSameGroupAreUnaffectedByOneFailure() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .never, sessions: ["a", "b"])
        defer { j.close() }
        j.injectFault(JournalFault(operation: .write, errno: EIO, count: 1))
        let results = Mutex<[String: Result<Void, JournalError>]>([:])
        let done = DispatchSemaphore(value: 0)
        j.flush()
        for id in ["a", "b"] {
            j.append(session: id, records: [(version: 1, bytes: bytes(id))]) { r in
                results.withLock { $0[id] = r }
                done.signal()
            }
        }
        done.wait()
        done.wait()
        let failed = results.withLock { $0.values.filter { if case .failure = $0 { return true } else { return false } }.count }
        XCTAssertEqual(failed, 1, "exactly one write was failed by the injected fault")
    }

    func testSnapshotFailureKeepsTheRecords() throws {
        let dir = makeTempDirectory(self)
        do {
            let j = try openJournal(dir, fsync: .always, sessions: ["s"])
            for v in 1...3 { _ = appendSync(j, "s", [(v, "r\(v)")]) }
            j.injectFault(.syncFails(count: 1))
            XCTAssertFalse(j.writeSnapshot(session: "s", version: 3, bytes: bytes("state")), "the caller hears of the failure")
            let stats = j.statistics()
            XCTAssertEqual(stats.snapshotFailures, 1)
            XCTAssertEqual(files(in: dir), ["s.00000001.log"])
            j.close()
        }
        XCTAssertEqual(try recoverAndClose(dir).session("s")?.versions, [1, 2, 3])
    }
}
