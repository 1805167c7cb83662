import Foundation
import XCTest
@testable import Journal

/// Under `always` the newest segment is written ahead with zeros, so a sync overwrites bytes the
/// file already has. Recovery must read such a file, as a crash leaves it, exactly like a trimmed one.
final class PreallocationTests: XCTestCase {

    private let groupEnd = Frame.size(kind: .groupEnd, payloadCount: 0)

    /// The bytes of a segment with an empty meta record and records "record 1"... one write each.
    private func written(records n: Int) -> Int {
        Frame.size(kind: .meta, payloadCount: 0) + groupEnd + n * (Frame.size(kind: .recordEnd, payloadCount: "record 1".utf8.count) + groupEnd)
    }

    func testARunningSegmentEndsInZerosAndRecoversWhole() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, sessions: ["s"], meta: bytes("meta"))
        for v in 1...20 { XCTAssertNoThrow(try appendSync(j, "s", [(v, "record \(v)")]).get()) }
        let segment = readFile(dir + "/" + FileNames.segment("s", 1))
        XCTAssertEqual(segment.count % JournalWriter.firstPreallocationStep, 0, "written ahead to a whole step")
        XCTAssertEqual(segment.last, 0)

        let copy = crashCopy(of: dir, self)
        let reopened = try Journal(directory: copy, fsync: .always)
        let found = reopened.recover()
        XCTAssertEqual(found.session("s")?.versions, Array(1...20))
        XCTAssertEqual(found.stats.tornTails, 0, "a zero tail is the end of the records, not a torn one")
        // Appends continue at the end of the records, inside the space written ahead.
        XCTAssertNoThrow(try appendSync(reopened, "s", [(21, "after the crash")]).get())
        reopened.close()
        j.close()

        XCTAssertEqual(try recoverAndClose(copy).session("s")?.recordStrings.last, "after the crash")
    }

    /// The space written ahead grows with what a session writes: a session of one small record
    /// carries a page of zeros, not a whole chunk, and a busy one reaches the chunk.
    func testTheSpaceWrittenAheadGrowsWithTheSession() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, sessions: ["small", "busy"])
        defer { j.close() }
        XCTAssertNoThrow(try appendSync(j, "small", [(1, "one")]).get())
        XCTAssertEqual(readFile(dir + "/" + FileNames.segment("small", 1)).count, JournalWriter.firstPreallocationStep)

        let record = String(repeating: "b", count: 8_000)
        for v in 1...80 { XCTAssertNoThrow(try appendSync(j, "busy", [(v, record)]).get()) }
        let busy = readFile(dir + "/" + FileNames.segment("busy", 1))
        let data = busy.count - busy.reversed().prefix { $0 == 0 }.count
        XCTAssertGreaterThan(data, 80 * 8_000)
        XCTAssertEqual(busy.count % JournalWriter.preallocationChunk, 0, "the steps grew to the whole chunk")
        XCTAssertLessThanOrEqual(busy.count, data + JournalWriter.preallocationChunk)
    }

    func testATornRecordBeforeTheZeroTailIsDropped() throws {
        let dir = makeTempDirectory(self)
        let j = try journalWithRecords(dir, fsync: .always, upTo: 3)
        let copy = crashCopy(of: dir, self)
        j.close()
        // The last record's bytes only half reached the disk: its second half is still zeros.
        let name = copy + "/" + FileNames.segment("s", 1)
        let end = written(records: 3) - groupEnd  // record 3 ends before its write's group-end frame
        let last = Frame.size(kind: .recordEnd, payloadCount: "record 3".utf8.count)
        losePages(name, (end - last / 2)..<end)

        let reopened = try Journal(directory: copy, fsync: .always)
        let found = reopened.recover()
        XCTAssertEqual(found.session("s")?.versions, [1, 2])
        XCTAssertEqual(found.stats.tornTails, 1)
        XCTAssertNoThrow(try appendSync(reopened, "s", [(3, "record 3 again")]).get())
        reopened.close()
        XCTAssertEqual(try recoverAndClose(copy).session("s")?.recordStrings, ["record 1", "record 2", "record 3 again"])
    }

    /// A power cut can land a write's pages in any order: the end of the last write (its later
    /// records and its group-end frame) reached the disk, its start did not. Nothing of that write
    /// was acknowledged (its sync never returned), so it is a torn tail, not damage in the middle.
    func testALastWriteWhoseStartDidNotReachTheDiskIsATornTail() throws {
        let dir = makeTempDirectory(self)
        let j = try journalWithRecords(dir, fsync: .always, upTo: 3)
        let lastWrite = written(records: 3)
        let page = String(repeating: "p", count: 5_000)
        XCTAssertNoThrow(try appendSync(j, "s", [(4, page), (5, page), (6, "record 6")]).get())
        let copy = crashCopy(of: dir, self)
        j.close()
        let name = copy + "/" + FileNames.segment("s", 1)
        losePages(name, lastWrite..<(lastWrite + 4_096))  // its first page never landed

        let reopened = try Journal(directory: copy, fsync: .always)
        let found = reopened.recover()
        XCTAssertTrue(found.failures.isEmpty, "\(found.failures)")
        XCTAssertEqual(found.session("s")?.versions, [1, 2, 3])
        XCTAssertEqual(found.stats.tornTails, 1)
        XCTAssertNoThrow(try appendSync(reopened, "s", [(4, "record 4 again")]).get())
        reopened.close()
        XCTAssertEqual(try recoverAndClose(copy).session("s")?.recordStrings, ["record 1", "record 2", "record 3", "record 4 again"])
    }

    /// The same bytes lost in a write that was synced (a later write followed it) are damage: the
    /// session stops for inspection instead of losing acknowledged records.
    func testAnEarlierWriteWhoseBytesAreLostIsDamage() throws {
        let dir = makeTempDirectory(self)
        let j = try journalWithRecords(dir, fsync: .always, upTo: 1)
        let start = written(records: 1)
        XCTAssertNoThrow(try appendSync(j, "s", [(2, String(repeating: "p", count: 5_000))]).get())
        XCTAssertNoThrow(try appendSync(j, "s", [(3, "record 3")]).get())
        let copy = crashCopy(of: dir, self)
        j.close()
        let name = copy + "/" + FileNames.segment("s", 1)
        losePages(name, start..<(start + 4_096))
        let damaged = readFile(name)

        let found = try recoverAndClose(copy)
        XCTAssertEqual(found.failures.map(\.id), ["s"])
        XCTAssertTrue(found.failures.first?.reason.contains("corrupt record at byte \(start)") ?? false, "\(found.failures)")
        XCTAssertEqual(readFile(name), damaged, "left for inspection")
    }

    func testCloseLeavesFilesThatEndAtTheClaimOfTheirLastWrite() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, sessions: ["s"])
        XCTAssertNoThrow(try appendSync(j, "s", [(1, "one")]).get())
        j.close()
        let segment = readFile(dir + "/" + FileNames.segment("s", 1))
        // The creation's write, the append's, and the group-end frame that claims the last one.
        XCTAssertEqual(segment.count, Frame.size(kind: .meta, payloadCount: 0) + groupEnd + Frame.size(kind: .recordEnd, payloadCount: 3) + 2 * groupEnd)
    }
}
