import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import Journal

/// Group-end frames: what each write claims was settled before it, and how recovery reads a bad
/// frame with them. Several of these cases came from a review of the first version of the change.
final class GroupEndTests: XCTestCase {
    private let groupEnd = Frame.size(kind: .groupEnd, payloadCount: 0)
    private let record = Frame.size(kind: .recordEnd, payloadCount: "record 1".utf8.count)
    /// The end of the creation's write (an empty meta record).
    private var created: Int { Frame.size(kind: .meta, payloadCount: 0) + groupEnd }


    /// Each record its own append, all in one group; every completion awaited.
    private func appendInOneGroup(_ j: Journal, _ id: String, _ records: [(Int, String)]) -> [Result<Void, JournalError>] {
        let results = Mutex<[Result<Void, JournalError>]>([])
        let done = DispatchGroup()
        for (v, s) in records {
            done.enter()
            j.append(session: id, records: [(version: v, bytes: bytes(s))], commitLater: true) { r in
                results.withLock { $0.append(r) }
                done.leave()
            }
        }
        j.commit()
        done.wait()
        return results.withLock { $0 }
    }

    /// A `batch` journal on `dir` holding session "s", its background syncs held at a gate.
    private func gatedBatchJournal(_ dir: String) throws -> (Journal, SyncGate) {
        let j = try openJournal(dir, fsync: .batch, sessions: ["s"])
        return (j, SyncGate(j))
    }

    /// Flips a bit of the first payload byte of the record frame at `offset` in the file at `path`;
    /// returns the file's bytes as damaged.
    @discardableResult
    private func damagePayload(ofRecordAt offset: Int, in path: String) -> [UInt8] {
        var segment = readFile(path)
        segment[offset + Frame.headerSize + 9] ^= 0x01
        writeFile(path, segment)
        return segment
    }

    /// (offset of each write's group-end frame, what it claims), in file order.
    private func claims(_ segment: [UInt8]) -> [(at: Int, settled: Int)] {
        var found: [(at: Int, settled: Int)] = []
        segment.withUnsafeBytes { buf in
            var offset = 0
            while case .success(let f) = Frame.parse(buf, at: offset) {
                if f.kind == .groupEnd { found.append((offset, f.version)) }
                offset = f.end
            }
        }
        return found
    }

    /// After a clean stop every write is claimed (`seal`), so a bit flip in the last acknowledged
    /// write is damage: the session stops, its records and files kept, rather than losing
    /// acknowledged records as a torn tail.
    func testDamageInTheLastWriteAfterACleanStopIsDamage() throws {
        for policy in [FsyncPolicy.always, .batch, .never] {
            let dir = makeTempDirectory(self)
            let j = try journalWithRecords(dir, fsync: policy, upTo: 1)
            for r in appendInOneGroup(j, "s", [(2, "record 2"), (3, "record 3"), (4, "record 4")]) { XCTAssertNoThrow(try r.get()) }
            j.close()
            let path = dir + "/" + FileNames.segment("s", 1)
            let segment = damagePayload(ofRecordAt: created + record + groupEnd, in: path)  // record 2's payload
            let found = try recoverAndClose(dir)
            XCTAssertEqual(found.failures.map(\.id), ["s"], "\(policy): recovered \(found.session("s")?.versions ?? [])")
            XCTAssertEqual(readFile(path), segment, "\(policy): files left for inspection")
        }
    }

    /// The seal also reaches sessions whose descriptors were closed to stay under the budget: their
    /// last write is claimed like any other, with no more descriptors open than the budget allows.
    func testTheSealClaimsTheLastWriteOfSessionsClosedAsIdle() throws {
        for policy in [FsyncPolicy.always, .never] {
            let dir = makeTempDirectory(self)
            let j = try openJournal(dir, fsync: policy, descriptorBudget: 2)
            let ids = ["a", "b", "c", "d", "e"]
            for id in ids {
                try j.createSession(id: id, meta: [])
                XCTAssertNoThrow(try appendSync(j, id, [(1, "record 1")]).get())
            }
            XCTAssertLessThanOrEqual(j.statistics().openFiles, 2, "\(policy): some sessions were closed as idle")
            j.close()
            let endOfRecordOne = created + record + groupEnd
            for id in ids {
                let segment = readFile(dir + "/" + FileNames.segment(id, 1))
                let last = claims(segment).last
                XCTAssertEqual(last?.at, endOfRecordOne, "\(policy) \(id): a frame after record 1's write")
                XCTAssertEqual(last?.settled, endOfRecordOne, "\(policy) \(id): claiming that write")
                XCTAssertEqual(segment.count, endOfRecordOne + groupEnd, "\(policy) \(id): no zero tail after the seal")
            }
        }
    }

    /// After a crash the last write is claimed by nothing: a bad frame with its end intact is
    /// torn or damaged, which look alike. It is cut as torn, and the bytes cut are kept beside the
    /// segment, with a warning, instead of being lost.
    func testACutWriteWhoseEndLandedIsKeptBesideTheSegment() throws {
        let dir = makeTempDirectory(self)
        let j = try journalWithRecords(dir, fsync: .always, upTo: 1)
        for r in appendInOneGroup(j, "s", [(2, "record 2"), (3, "record 3")]) { XCTAssertNoThrow(try r.get()) }
        let copy = crashCopy(of: dir, self)
        j.close()
        let start = created + record + groupEnd
        let segment = damagePayload(ofRecordAt: start, in: copy + "/" + FileNames.segment("s", 1))
        let cut = Array(segment[start..<(start + 2 * record + groupEnd)])

        let found = try recoverAndClose(copy)
        XCTAssertTrue(found.failures.isEmpty, "\(found.failures)")
        XCTAssertEqual(found.session("s")?.versions, [1])
        XCTAssertEqual(readFile(copy + "/" + FileNames.tornCopy("s", 1)), cut)
        XCTAssertTrue(found.warnings.contains { $0.id == "s" && $0.message.contains(FileNames.tornCopy("s", 1)) }, "\(found.warnings)")
        // A session delete takes the copy too.
        let again = try openJournal(copy, fsync: .always)
        again.deleteSession(id: "s")
        again.close()
        XCTAssertEqual(files(in: copy), [])
    }

    /// Keeping the cut bytes is best effort: on a full disk the torn write is still cut, and the
    /// warning says the bytes could not be kept.
    func testACutIsMadeEvenWhenItsBytesCannotBeKept() throws {
        let dir = makeTempDirectory(self)
        let j = try journalWithRecords(dir, fsync: .always, upTo: 1)
        for r in appendInOneGroup(j, "s", [(2, "record 2"), (3, "record 3")]) { XCTAssertNoThrow(try r.get()) }
        let copy = crashCopy(of: dir, self)
        j.close()
        damagePayload(ofRecordAt: created + record + groupEnd, in: copy + "/" + FileNames.segment("s", 1))

        let reopened = try Journal(directory: copy, fsync: .always)
        reopened.injectFault(.diskFull())
        let found = reopened.recover()
        reopened.injectFault(nil)
        reopened.close()
        XCTAssertTrue(found.failures.isEmpty, "\(found.failures)")
        XCTAssertEqual(found.session("s")?.versions, [1])
        XCTAssertFalse(files(in: copy).contains(FileNames.tornCopy("s", 1)))
        XCTAssertTrue(found.warnings.contains { $0.message.contains("could not be kept") }, "\(found.warnings)")
    }

    /// A creation that never returned, whose first page was lost while its group-end frame landed,
    /// is discarded like any torn creation; the bad meta record leaves the format unknown.
    func testATornCreationWhoseFirstPageIsLostIsDiscarded() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, sessions: ["s"], meta: [UInt8](repeating: 0x6D, count: 5_000))
        let copy = crashCopy(of: dir, self)
        j.close()
        let path = copy + "/" + FileNames.segment("s", 1)
        losePages(path, 0..<4_096)
        let found = try recoverAndClose(copy)
        XCTAssertTrue(found.failures.isEmpty, "\(found.failures)")
        XCTAssertNil(found.session("s"))
        XCTAssertEqual(files(in: copy), [])
    }

    /// `never`: writes after the last flush claim only what it synced, so two of them torn out of
    /// order are a torn tail.
    func testNeverClaimsOnlyWhatAFlushSynced() throws {
        let dir = makeTempDirectory(self)
        let j = try journalWithRecords(dir, fsync: .never, upTo: 1)
        j.flush()
        let start = created + record + groupEnd
        XCTAssertNoThrow(try appendSync(j, "s", [(2, String(repeating: "p", count: 5_000))]).get())
        XCTAssertNoThrow(try appendSync(j, "s", [(3, "record 3")]).get())
        let copy = crashCopy(of: dir, self)
        j.close()
        let path = copy + "/" + FileNames.segment("s", 1)
        XCTAssertEqual(claims(readFile(path)).suffix(2).map(\.settled), [start, start], "after the flush, nothing newer")
        losePages(path, start..<(start + 4_096))
        let found = try recoverAndClose(copy, fsync: .never)
        XCTAssertTrue(found.failures.isEmpty, "\(found.failures)")
        XCTAssertEqual(found.session("s")?.versions, [1])
    }

    /// A record's payload is opaque and may hold bytes that form a valid group-end frame. A claim
    /// past its own position is not believed, so a torn write stays torn.
    func testAGroupEndFrameInsideAPayloadDoesNotMakeATornWriteDamage() throws {
        let dir = makeTempDirectory(self)
        let j = try journalWithRecords(dir, fsync: .always, upTo: 1)
        let start = created + record + groupEnd
        var forged: [UInt8] = []
        Frame.append(kind: .groupEnd, version: Int(Int64.max), payload: [], to: &forged)
        let payload = [UInt8](repeating: 0x70, count: 5_000) + forged + bytes("tail")
        XCTAssertNoThrow(try appendSync(j, "s", bytes: [(2, payload)]).get())
        let copy = crashCopy(of: dir, self)
        j.close()
        let path = copy + "/" + FileNames.segment("s", 1)
        losePages(path, start..<(start + 4_096))
        let found = try recoverAndClose(copy)
        XCTAssertTrue(found.failures.isEmpty, "\(found.failures)")
        XCTAssertEqual(found.session("s")?.versions, [1])
    }

    /// `batch` claims only what a background sync that began after a write covered, and nothing
    /// written before a background sync that failed (the kernel reports a lost writeback once).
    func testBatchClaimsWhatACompletedSyncCoveredAndStopsAtAFailedOne() throws {
        let dir = makeTempDirectory(self)
        let (j, gate) = try gatedBatchJournal(dir)
        // Sync 1 covers write 1.
        XCTAssertNoThrow(try appendSync(j, "s", [(1, "record 1")]).get())
        gate.arrival()
        gate.pass()
        // Write 2, then sync 2 fails.
        XCTAssertNoThrow(try appendSync(j, "s", [(2, "record 2")]).get())
        gate.arrival()
        gate.pass(failing: true)
        // Write 3 wakes sync 3 (sync 2 has completed once it is at the gate), which succeeds and
        // covers writes 2 and 3.
        XCTAssertNoThrow(try appendSync(j, "s", [(3, "record 3")]).get())
        gate.arrival()
        gate.pass()
        // Write 4 wakes sync 4; once it is at the gate, sync 3 has completed. Write 5 then claims.
        XCTAssertNoThrow(try appendSync(j, "s", [(4, "record 4")]).get())
        gate.arrival()
        XCTAssertNoThrow(try appendSync(j, "s", [(5, "record 5")]).get())
        let segment = readFile(dir + "/" + FileNames.segment("s", 1))
        gate.open()
        j.close()
        let endOf1 = created + record + groupEnd
        let settled = claims(segment).map(\.settled)
        XCTAssertEqual(settled.count, 6)
        XCTAssertEqual(Array(settled.prefix(2)), [0, created], "the creation was synced with it")
        XCTAssertTrue(settled[2] == created || settled[2] == endOf1, "write 2 claims at most what sync 1 covered: \(settled)")
        // Sync 3 succeeded and covered writes 2 and 3 before write 5 was made, but write 2 was
        // made before sync 2 failed: no claim passes it.
        XCTAssertLessThanOrEqual(settled[5], endOf1, "\(settled)")
    }

    /// A bad frame followed by megabytes of binary records: the search for a claim checks only
    /// frames shaped like group-end frames, and random bytes hold none.
    func testNoClaimIsFoundInATornTailOfBinaryRecords() throws {
        var segment: [UInt8] = []
        Frame.append(kind: .meta, version: 0, payload: [], to: &segment)
        Frame.append(kind: .groupEnd, version: 0, payload: [], to: &segment)
        let bad = segment.count
        var generator = SystemRandomNumberGenerator()
        for v in 1...16 {
            Frame.append(kind: .recordEnd, version: v, payload: (0..<(64 << 10)).map { _ in UInt8.random(in: 0...255, using: &generator) }, to: &segment)
        }
        Frame.append(kind: .groupEnd, version: bad, payload: [], to: &segment)
        segment += [UInt8](repeating: 0, count: 256 << 10)
        segment[bad + 4] ^= 0xFF
        segment.withUnsafeBytes { buf in
            XCTAssertFalse(Frame.syncedPast(bad, in: buf))
            XCTAssertTrue(Frame.groupEndExists(in: buf, after: bad))
        }
    }

    /// The seal comes after close's sync: a power cut during that sync may land any page of the
    /// writes it covers, and a seal already there would call a torn write damage.
    func testPowerCutDuringCloseSyncKeepsATornWriteTorn() throws {
        for policy in [FsyncPolicy.never, .batch] {
            let dir = makeTempDirectory(self)
            let j = try journalWithRecords(dir, fsync: policy, upTo: 1)
            j.flush()
            let start = created + record + groupEnd
            XCTAssertNoThrow(try appendSync(j, "s", [(2, String(repeating: "p", count: 5_000))]).get())
            XCTAssertNoThrow(try appendSync(j, "s", [(3, "record 3")]).get())
            // The state of the files when close's sync begins (what a power cut during it may leave).
            let crash = makeTempDirectory(self)
            let copied = Mutex(false)
            j.disk.setSyncGate {
                copied.withLock { done in
                    if done { return }
                    done = true
                    for name in files(in: dir) { writeFile(crash + "/" + name, readFile(dir + "/" + name)) }
                }
            }
            j.close()
            XCTAssertTrue(copied.withLock { $0 })
            losePages(crash + "/" + FileNames.segment("s", 1), start..<(start + 4_096))  // write 2's first page never landed
            let found = try recoverAndClose(crash)
            XCTAssertTrue(found.failures.isEmpty, "\(policy): \(found.failures)")
            XCTAssertEqual(found.session("s")?.versions, [1], "\(policy)")
        }
    }

    /// A recovery that kept the cut bytes and crashed before its truncation reached the disk does
    /// not keep them twice.
    func testRepeatedRecoveryDoesNotKeepTheSameBytesTwice() throws {
        let dir = makeTempDirectory(self)
        let j = try journalWithRecords(dir, fsync: .always, upTo: 1)
        XCTAssertNoThrow(try appendSync(j, "s", [(2, "record 2")]).get())
        let crash = crashCopy(of: dir, self)
        j.close()
        let path = crash + "/" + FileNames.segment("s", 1)
        let start = created + record + groupEnd
        let segment = damagePayload(ofRecordAt: start, in: path)
        let cut = Array(segment[start..<(start + record + groupEnd)])
        for _ in 0..<2 {
            writeFile(path, segment)  // the truncation was lost
            _ = try recoverAndClose(crash)
        }
        XCTAssertEqual(readFile(crash + "/" + FileNames.tornCopy("s", 1)), cut)
    }

    /// A write covered by a sync that succeeded before a later one failed is on disk: the failure
    /// stops only the claims of writes made after the last good sync.
    func testASyncThatSucceededBeforeTheFailureStillCounts() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .batch, sessions: ["a", "b"])
        let gate = SyncGate(j)
        XCTAssertNoThrow(try appendSync(j, "a", [(1, "record 1")]).get())  // sync 1 covers it
        gate.arrival(); gate.pass()
        XCTAssertNoThrow(try appendSync(j, "b", [(1, "record 1")]).get())  // sync 2 fails
        gate.arrival(); gate.pass(failing: true)
        XCTAssertNoThrow(try appendSync(j, "b", [(2, "record 2")]).get())  // sync 3 succeeds
        gate.arrival(); gate.pass()
        XCTAssertNoThrow(try appendSync(j, "b", [(3, "record 3")]).get())
        gate.arrival()  // sync 3 has completed
        XCTAssertNoThrow(try appendSync(j, "a", [(2, "record 2")]).get())
        let segment = readFile(dir + "/" + FileNames.segment("a", 1))
        gate.open()
        j.close()
        XCTAssertEqual(claims(segment).last?.settled, created + record + groupEnd,
                       "a's write 1 was synced by sync 1, before sync 2 failed: \(claims(segment).map(\.settled))")
    }

    /// A failed flush stops claims like a failed background sync: a later flush that succeeds
    /// proves nothing for the writes made before the failed one.
    func testAFailedFlushStopsClaimsLikeAFailedBackgroundSync() throws {
        let dir = makeTempDirectory(self)
        let j = try journalWithRecords(dir, fsync: .never, upTo: 1)
        j.flush()
        XCTAssertNoThrow(try appendSync(j, "s", [(2, "record 2")]).get())
        j.injectFault(.syncFails(count: 1))
        j.flush()  // fails: write 2's writeback error is reported here, once
        j.injectFault(nil)
        XCTAssertNoThrow(try appendSync(j, "s", [(3, "record 3")]).get())
        j.flush()  // succeeds
        XCTAssertNoThrow(try appendSync(j, "s", [(4, "record 4")]).get())
        let segment = readFile(dir + "/" + FileNames.segment("s", 1))
        j.close()
        XCTAssertLessThanOrEqual(claims(segment).last?.settled ?? 0, created + record + groupEnd, "\(claims(segment).map(\.settled))")
    }

    /// Close's sync succeeds after a failed background sync (the kernel reports a lost writeback
    /// once): the seal does not claim the writes made before the failure.
    func testTheSealDoesNotPassAFailedBackgroundSync() throws {
        let dir = makeTempDirectory(self)
        let (j, gate) = try gatedBatchJournal(dir)
        XCTAssertNoThrow(try appendSync(j, "s", [(1, "record 1")]).get())
        gate.arrival(); gate.pass()
        XCTAssertNoThrow(try appendSync(j, "s", [(2, "record 2")]).get())
        gate.arrival(); gate.pass(failing: true)
        XCTAssertNoThrow(try appendSync(j, "s", [(3, "record 3")]).get())
        gate.arrival()
        gate.open()
        j.close()
        let segment = readFile(dir + "/" + FileNames.segment("s", 1))
        XCTAssertLessThanOrEqual(claims(segment).last?.settled ?? 0, created + record + groupEnd, "\(claims(segment).map(\.settled))")
    }
}

/// The background syncs of a `batch` journal, held at the disk's sync gate one at a time.
private struct SyncGate {
    private let journal: Journal
    private let entered = DispatchSemaphore(value: 0)
    private let proceed = DispatchSemaphore(value: 0)

    init(_ journal: Journal) {
        self.journal = journal
        let (entered, proceed) = (self.entered, self.proceed)
        journal.disk.setSyncGate {
            entered.signal()
            proceed.wait()
        }
    }

    /// Waits for the next sync to reach the gate: the one before it has completed.
    func arrival() { entered.wait() }

    /// Lets the sync at the gate run, failing it with EIO when `failing`.
    func pass(failing: Bool = false) {
        if failing { journal.injectFault(.syncFails(count: 1)) }
        proceed.signal()
    }

    /// Lets every sync through from now on, the one at the gate included.
    func open() {
        journal.disk.setSyncGate(nil)
        proceed.signal()
    }
}
