import Foundation
import XCTest
@testable import Journal

/// Under `always` the newest segment is written ahead with zeros, so a sync overwrites bytes the
/// file already has. Recovery must read such a file, as a crash leaves it, exactly like a trimmed one.
final class PreallocationTests: XCTestCase {
    /// The files of a running journal, copied as a crash would leave them (nothing closed or trimmed).
    private func crashCopy(of dir: String) -> String {
        let copy = makeTempDirectory(self)
        for name in files(in: dir) { writeFile(copy + "/" + name, readFile(dir + "/" + name)) }
        return copy
    }

    func testARunningSegmentEndsInZerosAndRecoversWhole() throws {
        let dir = makeTempDirectory(self)
        let j = try Journal(directory: dir, fsync: .always)
        _ = j.recover()
        try j.createSession(id: "s", meta: bytes("meta"))
        for v in 1...20 { XCTAssertNoThrow(try appendSync(j, "s", [(v, "record \(v)")]).get()) }
        let segment = readFile(dir + "/" + FileNames.segment("s", 1))
        XCTAssertEqual(segment.count % JournalWriter.preallocationChunk, 0, "written ahead to a whole chunk")
        XCTAssertEqual(segment.last, 0)

        let copy = crashCopy(of: dir)
        let reopened = try Journal(directory: copy, fsync: .always)
        let found = reopened.recover()
        XCTAssertEqual(found.session("s")?.versions, Array(1...20))
        XCTAssertEqual(found.stats.tornTails, 0, "a zero tail is the end of the records, not a torn one")
        // Appends continue at the end of the records, inside the space written ahead.
        XCTAssertNoThrow(try appendSync(reopened, "s", [(21, "after the crash")]).get())
        reopened.close()
        j.close()

        let again = try Journal(directory: copy, fsync: .always)
        XCTAssertEqual(again.recover().session("s")?.recordStrings.last, "after the crash")
        again.close()
    }

    func testATornRecordBeforeTheZeroTailIsDropped() throws {
        let dir = makeTempDirectory(self)
        let j = try Journal(directory: dir, fsync: .always)
        _ = j.recover()
        try j.createSession(id: "s", meta: [])
        for v in 1...3 { XCTAssertNoThrow(try appendSync(j, "s", [(v, "record \(v)")]).get()) }
        let copy = crashCopy(of: dir)
        j.close()
        // The last record's bytes only half reached the disk: its second half is still zeros.
        let name = copy + "/" + FileNames.segment("s", 1)
        var segment = readFile(name)
        let end = try XCTUnwrap(segment.lastIndex { $0 != 0 }) + 1
        let last = Frame.size(kind: .recordEnd, payloadCount: "record 3".utf8.count)
        for i in (end - last / 2)..<end { segment[i] = 0 }
        writeFile(name, segment)

        let reopened = try Journal(directory: copy, fsync: .always)
        let found = reopened.recover()
        XCTAssertEqual(found.session("s")?.versions, [1, 2])
        XCTAssertEqual(found.stats.tornTails, 1)
        XCTAssertNoThrow(try appendSync(reopened, "s", [(3, "record 3 again")]).get())
        reopened.close()
        let again = try Journal(directory: copy, fsync: .always)
        XCTAssertEqual(again.recover().session("s")?.recordStrings, ["record 1", "record 2", "record 3 again"])
        again.close()
    }

    func testCloseLeavesFilesThatEndAtTheirLastRecord() throws {
        let dir = makeTempDirectory(self)
        let j = try Journal(directory: dir, fsync: .always)
        _ = j.recover()
        try j.createSession(id: "s", meta: [])
        XCTAssertNoThrow(try appendSync(j, "s", [(1, "one")]).get())
        j.close()
        let segment = readFile(dir + "/" + FileNames.segment("s", 1))
        XCTAssertEqual(segment.count, Frame.size(kind: .meta, payloadCount: 0) + Frame.size(kind: .recordEnd, payloadCount: 3))
    }
}
