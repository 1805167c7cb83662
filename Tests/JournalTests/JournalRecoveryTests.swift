import Foundation
import XCTest
@testable import Journal

final class JournalRecoveryTests: XCTestCase {
    /// A session "s" with meta "m" and records 1...n ("r1", "r2", ...), one append each; returns the segment path.
    private func makeSession(_ dir: String, id: String = "s", records n: Int, batches: [[Int]] = []) throws -> String {
        let j = try openJournal(dir, fsync: .never, sessions: [id], meta: bytes("m"))
        for v in 1...max(1, n) where n > 0 { XCTAssertNoThrow(try appendSync(j, id, [(v, "r\(v)")]).get()) }
        for batch in batches { XCTAssertNoThrow(try appendSync(j, id, batch.map { ($0, "r\($0)") }).get()) }
        j.close()
        return dir + "/" + FileNames.segment(id, 1)
    }

    /// The segment as a crash would have left it: without the group-end frame that `close()`
    /// writes after the last write to claim it (`seal`).
    private func unsealed(_ path: String) -> [UInt8] {
        let content = readFile(path)
        XCTAssertEqual(content.withUnsafeBytes { buf -> Frame.Kind? in
            guard case .success(let f) = Frame.parse(buf, at: content.count - groupEndSize) else { return nil }
            return f.kind
        }, .groupEnd, "close() sealed the last write")
        return Array(content.dropLast(groupEndSize))
    }

    private func reopen(_ dir: String) throws -> (Journal, JournalRecovery) {
        let j = try Journal(directory: dir, fsync: .always)
        return (j, j.recover())
    }

    private let metaSize = Frame.size(kind: .meta, payloadCount: 1)
    private func recordSize(_ v: Int) -> Int { Frame.size(kind: .recordEnd, payloadCount: "r\(v)".utf8.count) }
    /// Every write of the writer (a creation, an append) ends with one.
    private let groupEndSize = Frame.size(kind: .groupEnd, payloadCount: 0)
    /// The bytes up to the end of record `v` written one append each, group-end frames included.
    private func sizeThrough(_ v: Int) -> Int {
        (1...v).reduce(metaSize + groupEndSize) { $0 + recordSize($1) + groupEndSize }
    }

    func testTornTailIsDroppedAndFileTruncated() throws {
        for cut in [1, 5, 8, 12] {
            let dir = makeTempDirectory(self)
            let path = try makeSession(dir, records: 3)
            let full = unsealed(path)
            XCTAssertEqual(full.count, sizeThrough(3))
            writeFile(path, Array(full.dropLast(groupEndSize + cut)))  // into record 3
            let (j, r) = try reopen(dir)
            XCTAssertTrue(r.failures.isEmpty, "\(r.failures)")
            XCTAssertEqual(r.session("s")?.versions, [1, 2], "cut \(cut)")
            XCTAssertEqual(r.stats.tornTails, 1)
            XCTAssertEqual(readFile(path).count, sizeThrough(2), "truncated to the last good record")
            // The lost version is written again, then everything recovers once.
            XCTAssertNoThrow(try appendSync(j, "s", [(3, "r3-again")]).get())
            j.close()
            let (j2, r2) = try reopen(dir)
            XCTAssertEqual(r2.session("s")?.recordStrings, ["r1", "r2", "r3-again"])
            j2.close()
        }
    }

    func testTailWithChecksumMismatchOrZerosIsTorn() throws {
        let dir = makeTempDirectory(self)
        let path = try makeSession(dir, records: 3)
        var content = unsealed(path)
        content[content.count - 1 - groupEndSize] ^= 0x40  // last record's payload damaged
        content += [UInt8](repeating: 0, count: 4096) // and a preallocated-looking zero tail
        writeFile(path, content)
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertTrue(r.failures.isEmpty, "\(r.failures)")
        XCTAssertEqual(r.session("s")?.versions, [1, 2])
    }

    func testInterruptedBatchIsDroppedWhole() throws {
        let dir = makeTempDirectory(self)
        let path = try makeSession(dir, records: 2, batches: [[3, 4, 5]])
        let full = unsealed(path)
        writeFile(path, Array(full.dropLast(groupEndSize + recordSize(5) + 2)))  // records 3 complete, 4 torn, 5 missing
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertEqual(r.session("s")?.versions, [1, 2], "a batch is recovered whole or not at all")
        XCTAssertEqual(readFile(path).count, sizeThrough(2))
    }

    func testCorruptMiddleRecordStopsOnlyThatSession() throws {
        let dir = makeTempDirectory(self)
        let path = try makeSession(dir, id: "bad", records: 4)
        _ = try makeSession(dir, id: "good", records: 4)
        var content = readFile(path)
        let secondPayload = sizeThrough(1) + 8 + 9
        content[secondPayload] ^= 0x01
        writeFile(path, content)
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertEqual(r.sessions.map(\.id), ["good"])
        XCTAssertEqual(r.session("good")?.versions, [1, 2, 3, 4])
        XCTAssertEqual(r.failures.map(\.id), ["bad"])
        let reason = r.failures.first?.reason ?? ""
        XCTAssertTrue(reason.contains("corrupt record at byte \(sizeThrough(1))"), reason)
        XCTAssertTrue(reason.contains("CRC32C"), reason)
        XCTAssertEqual(readFile(path), content, "files of a failed session are left for inspection")
        guard case .failure(.sessionFailed("bad", _)) = appendSync(j, "bad", [(5, "x")]) else { return XCTFail("failed session took an append") }
        XCTAssertThrowsError(try j.createSession(id: "bad", meta: []))
        XCTAssertEqual(readFile(path), content)
        j.deleteSession(id: "bad")
        XCTAssertFalse(files(in: dir).contains { $0.hasPrefix("bad.") })
    }

    /// A segment as `batch` writes it: each write's group-end frame says how far the segment was
    /// synced before it. Record 2 is damaged; whether that is a torn write or damage depends only
    /// on whether a later group-end frame claims its bytes were synced.
    func testADamagedRecordIsTornUnlessALaterWriteSaysItWasSynced() throws {
        for claimsSynced in [false, true] {
            let dir = makeTempDirectory(self)
            var segment: [UInt8] = []
            Frame.append(kind: .meta, version: 0, payload: bytes("m"), to: &segment)
            Frame.append(kind: .groupEnd, version: 0, payload: [], to: &segment)
            Frame.append(kind: .recordEnd, version: 1, payload: bytes("r1"), to: &segment)
            Frame.append(kind: .groupEnd, version: 0, payload: [], to: &segment)
            let synced = segment.count  // a background sync covered everything up to here
            Frame.append(kind: .recordEnd, version: 2, payload: bytes("r2"), to: &segment)
            Frame.append(kind: .groupEnd, version: synced, payload: [], to: &segment)
            let damaged = segment.count - groupEndSize - 1
            Frame.append(kind: .recordEnd, version: 3, payload: bytes("r3"), to: &segment)
            Frame.append(kind: .groupEnd, version: claimsSynced ? segment.count : synced, payload: [], to: &segment)
            segment[damaged] ^= 0x01
            let path = dir + "/" + FileNames.segment("s", 1)
            writeFile(path, segment)

            let (j, r) = try reopen(dir)
            if claimsSynced {
                XCTAssertEqual(r.failures.map(\.id), ["s"], "synced bytes that fail their checksum are damage")
                XCTAssertEqual(readFile(path), segment, "left for inspection")
            } else {
                XCTAssertTrue(r.failures.isEmpty, "\(r.failures)")
                XCTAssertEqual(r.session("s")?.versions, [1], "the writes after the last sync are a torn tail, valid frames or not")
                XCTAssertEqual(r.stats.tornTails, 1)
                XCTAssertEqual(readFile(path).count, synced)
            }
            j.close()
        }
    }

    /// Segments written before group-end frames (format 1) keep the old rule: a bad frame with a
    /// valid one after it is damage, one with nothing valid after it a torn tail.
    func testAFormatOneSegmentTellsTornFromDamageByWhatFollows() throws {
        var meta: [UInt8] = []
        Frame.append(kind: .meta, version: 0, payload: bytes("m"), to: &meta)
        meta[Frame.headerSize + 1] = 1  // the format byte, then the checksum over length and body
        let crc = meta.withUnsafeBytes { raw in
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[Frame.headerSize...]),
                            continuing: CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<4])))
        }
        for i in 0..<4 { meta[4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        for recordAfter in [false, true] {
            let dir = makeTempDirectory(self)
            var segment = meta
            for v in 1...2 { Frame.append(kind: .recordEnd, version: v, payload: bytes("r\(v)"), to: &segment) }
            segment[segment.count - 1] ^= 0x01
            if recordAfter { Frame.append(kind: .recordEnd, version: 3, payload: bytes("r3"), to: &segment) }
            writeFile(dir + "/" + FileNames.segment("s", 1), segment)
            let (j, r) = try reopen(dir)
            if recordAfter {
                XCTAssertEqual(r.failures.map(\.id), ["s"])
            } else {
                XCTAssertEqual(r.session("s")?.versions, [1])
                XCTAssertEqual(r.stats.tornTails, 1)
            }
            j.close()
        }
    }

    /// Under `batch` a write's group-end frame claims what a completed sync covered: never its own
    /// bytes, and everything a flush synced.
    func testBatchGroupEndFramesClaimWhatASyncCovered() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .batch, sessions: ["s"], meta: bytes("m"))
        for v in 1...3 { XCTAssertNoThrow(try appendSync(j, "s", [(v, "r\(v)")]).get()) }
        j.flush()
        XCTAssertNoThrow(try appendSync(j, "s", [(4, "r4")]).get())
        let segment = readFile(dir + "/" + FileNames.segment("s", 1))
        j.close()
        var claims: [(start: Int, settled: Int)] = []
        var start = 0
        segment.withUnsafeBytes { buf in
            var offset = 0
            while case .success(let f) = Frame.parse(buf, at: offset) {
                if f.kind == .groupEnd {
                    claims.append((start, f.version))
                    start = f.end
                }
                offset = f.end
            }
        }
        XCTAssertEqual(claims.count, 5, "the creation and four appends")
        for (claim, next) in zip(claims, claims.dropFirst()) { XCTAssertLessThanOrEqual(claim.settled, next.settled) }
        for claim in claims { XCTAssertLessThanOrEqual(claim.settled, claim.start, "a write never claims its own bytes") }
        XCTAssertEqual(claims.last?.settled, claims.last?.start, "the flush synced everything before the last write")
    }

    func testCorruptLengthInTheMiddleIsNotMistakenForATornTail() throws {
        let dir = makeTempDirectory(self)
        let path = try makeSession(dir, records: 4)
        var content = readFile(path)
        content[sizeThrough(1) + 3] = 0x7F  // record 2 claims ~2 GB
        writeFile(path, content)
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertEqual(r.failures.map(\.id), ["s"])
        XCTAssertEqual(readFile(path), content)
    }

    func testCreationThatNeverBecameDurableIsDiscarded() throws {
        let dir = makeTempDirectory(self)
        let path = try makeSession(dir, records: 0)
        writeFile(path, Array(readFile(path).prefix(5)))
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertTrue(r.sessions.isEmpty)
        XCTAssertTrue(r.failures.isEmpty)
        XCTAssertEqual(r.stats.discardedSessions, 1)
        XCTAssertEqual(files(in: dir), [])
    }

    /// `rotate` creates the next segment, then writes its meta record: a crash in between leaves
    /// an empty file (or one of zeros). It must go, as a torn meta record does, or the appends
    /// after the restart land behind no meta record and the next recovery fails the session.
    func testANewSegmentWithNothingWrittenIsDropped() throws {
        for content in [[], [UInt8](repeating: 0, count: 4096)] {
            let dir = makeTempDirectory(self)
            _ = try makeSession(dir, records: 3)
            let next = dir + "/" + FileNames.segment("s", 2)
            writeFile(next, content)
            do {
                let (j, r) = try reopen(dir)
                XCTAssertTrue(r.failures.isEmpty, "\(r.failures)")
                XCTAssertEqual(r.session("s")?.versions, [1, 2, 3])
                XCTAssertFalse(FileManager.default.fileExists(atPath: next), "the empty segment is removed")
                XCTAssertNoThrow(try appendSync(j, "s", [(4, "r4")]).get())
                j.close()
            }
            let (j, r) = try reopen(dir)
            XCTAssertTrue(r.failures.isEmpty, "\(r.failures)")
            XCTAssertEqual(r.session("s")?.recordStrings, ["r1", "r2", "r3", "r4"])
            j.close()
        }
    }

    func testAnEmptySegmentBeforeTheNewestFailsTheSession() throws {
        let dir = makeTempDirectory(self)
        _ = try makeSession(dir, records: 1)
        writeFile(dir + "/" + FileNames.segment("s", 2), [])
        let third = readFile(dir + "/" + FileNames.segment("s", 1))
        writeFile(dir + "/" + FileNames.segment("s", 3), third)
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertEqual(r.failures.map(\.id), ["s"])
    }

    func testSnapshotCompactsCoveredSegments() throws {
        let dir = makeTempDirectory(self)
        do {
            let j = try Journal(directory: dir, fsync: .always, snapshotEvery: 5)
            _ = j.recover()
            try j.createSession(id: "s", meta: bytes("m"))
            for v in 1...10 { _ = appendSync(j, "s", [(v, "r\(v)")]) }
            j.writeSnapshot(session: "s", version: 8, bytes: bytes("state@8"))
            j.flush()  // snapshots are asynchronous; flush waits for them
            _ = appendSync(j, "s", [(11, "r11")])
            // Segment 1 still holds 9 and 10, so it stays; appends go to segment 2.
            XCTAssertEqual(files(in: dir), ["s.00000001.log", "s.00000002.log", "s.snap"])
            j.close()
        }
        do {
            let (j, r) = try reopen(dir)
            let s = try XCTUnwrap(r.session("s"))
            XCTAssertEqual(s.snapshot?.version, 8)
            XCTAssertEqual(s.snapshot.map { String(decoding: $0.bytes, as: UTF8.self) }, "state@8")
            XCTAssertEqual(s.versions, [9, 10, 11])
            XCTAssertEqual(s.meta, bytes("m"))
            j.writeSnapshot(session: "s", version: 11, bytes: bytes("state@11"))
            j.flush()
            // The snapshot at 8 becomes `.prev`: segment 1 (9 and 10) and 2 (11) are its way forward.
            XCTAssertEqual(files(in: dir), ["s.00000001.log", "s.00000002.log", "s.00000003.log", "s.snap", "s.snap.prev"])
            _ = appendSync(j, "s", [(12, "r12")])
            j.writeSnapshot(session: "s", version: 12, bytes: bytes("state@12"))
            j.flush()
            XCTAssertEqual(files(in: dir), ["s.00000003.log", "s.00000004.log", "s.snap", "s.snap.prev"],
                           "segments 1 and 2 (up to 11) are covered by both snapshots, 11 and 12")
            XCTAssertEqual(j.statistics().snapshots, 2)
            j.close()
        }
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertEqual(r.session("s")?.snapshot?.version, 12)
        XCTAssertEqual(r.session("s")?.versions, [])
        XCTAssertEqual(r.session("s")?.meta, bytes("m"), "every segment starts with the meta record")
        XCTAssertTrue(r.warnings.isEmpty)
        XCTAssertNoThrow(try appendSync(j, "s", [(13, "r13")]).get())
    }

    func testSnapshotOfFreshSessionSetsTheNextVersion() throws {
        let dir = makeTempDirectory(self)
        do {
            let j = try openJournal(dir, fsync: .always, sessions: ["s"])
            j.writeSnapshot(session: "s", version: 0, bytes: bytes("{}"))
            j.flush()
            guard case .failure(.versionOutOfOrder(_, 1, 5)) = appendSync(j, "s", [(5, "x")]) else { return XCTFail() }
            XCTAssertNoThrow(try appendSync(j, "s", [(1, "x")]).get())
            j.close()
        }
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertEqual(r.session("s")?.snapshot?.version, 0)
        XCTAssertEqual(r.session("s")?.versions, [1])
    }

    /// Two snapshots (at 4 and 8) over records 1...10, then the journal closed.
    func makeTwoSnapshots(_ dir: String) throws {
        let j = try openJournal(dir, fsync: .always, sessions: ["s"], meta: bytes("m"))
        for v in 1...6 { _ = appendSync(j, "s", [(v, "r\(v)")]) }
        j.writeSnapshot(session: "s", version: 4, bytes: bytes("state@4"))
        j.flush()
        for v in 7...10 { _ = appendSync(j, "s", [(v, "r\(v)")]) }
        j.writeSnapshot(session: "s", version: 8, bytes: bytes("state@8"))
        j.close()
    }

    func corrupt(_ path: String) -> [UInt8] {
        var content = readFile(path)
        content[content.count - 1] ^= 0xFF
        writeFile(path, content)
        return content
    }

    func testACorruptSnapshotFallsBackToThePreviousOne() throws {
        let dir = makeTempDirectory(self)
        try makeTwoSnapshots(dir)
        let damaged = corrupt(dir + "/s.snap")
        writeFile(dir + "/s.snap.tmp", bytes("half-written"))
        do {
            let (j, r) = try reopen(dir)
            XCTAssertTrue(r.failures.isEmpty, "\(r.failures)")
            let s = try XCTUnwrap(r.session("s"))
            XCTAssertEqual(s.snapshot?.version, 4)
            XCTAssertEqual(s.snapshot.map { String(decoding: $0.bytes, as: UTF8.self) }, "state@4")
            XCTAssertEqual(s.versions, Array(5...10), "every record after the previous snapshot is still there")
            XCTAssertEqual(r.warnings.map(\.id), ["s"])
            XCTAssertTrue(r.warnings.first?.message.contains("previous snapshot (version 4)") ?? false, "\(r.warnings)")
            XCTAssertEqual(readFile(dir + "/s.snap.corrupt"), damaged, "kept for inspection, byte for byte")
            XCTAssertFalse(files(in: dir).contains("s.snap.tmp"), "a leftover temp snapshot is never the newest one")
            // The next snapshot does not take the damaged one for its previous.
            _ = appendSync(j, "s", [(11, "r11")])
            j.writeSnapshot(session: "s", version: 11, bytes: bytes("state@11"))
            j.close()
        }
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertEqual(r.session("s")?.snapshot?.version, 11)
        _ = corrupt(dir + "/s.snap")
        j.close()
        let (again, fallback) = try reopen(dir)
        defer { again.close() }
        XCTAssertEqual(fallback.session("s")?.snapshot?.version, 4, "state@4 is still the way back")
        XCTAssertEqual(fallback.session("s")?.versions, Array(5...11))
    }

    func testASnapshotOrSegmentThatCannotBeReadFailsTheSessionAndTouchesNothing() throws {
        // A read error is not damage: the file may be fine once the disk is, so recovery neither
        // falls back to an older snapshot (which would quietly lose nothing now but hide the
        // error) nor renames, truncates or unlinks anything.
        for file in ["s.snap", "s.snap.prev", "s.00000002.log"] {
            let dir = makeTempDirectory(self)
            try makeTwoSnapshots(dir)
            if file == "s.snap.prev" { _ = corrupt(dir + "/s.snap") }  // so that recovery reads .prev
            do {
                let j = try Journal(directory: dir, fsync: .always)
                try j.createSession(id: "other", meta: [])
                _ = appendSync(j, "other", [(1, "o1")])
                j.close()
            }
            let before = contents(dir)
            do {
                let j = try Journal(directory: dir, fsync: .always)
                defer { j.close() }
                j.injectFault(.readFails(file: file))
                let r = j.recover()
                XCTAssertEqual(r.failures.map(\.id), ["s"], file)
                XCTAssertTrue(r.failures.first?.reason.contains("read") ?? false, "\(file): \(r.failures)")
                XCTAssertTrue(r.failures.first?.reason.contains(file) ?? false, "\(file): \(r.failures)")
                XCTAssertEqual(r.session("other")?.versions, [1], "\(file): the other session recovers")
                XCTAssertEqual(contents(dir), before, "\(file): the files are left as they were")
            }
            if file != "s.snap.prev" {  // once the disk reads again, so does the session
                let (j, r) = try reopen(dir)
                defer { j.close() }
                XCTAssertEqual(r.session("s")?.snapshot?.version, 8, file)
                XCTAssertEqual(r.session("s")?.versions, [9, 10], file)
            }
        }
    }

    func testACrashBetweenTheRenamesRecoversFromThePreviousSnapshot() throws {
        let dir = makeTempDirectory(self)
        try makeTwoSnapshots(dir)
        // As if the process died after `.snap` became `.prev` and before the new one was renamed in.
        let newest = readFile(dir + "/s.snap")
        try FileManager.default.removeItem(atPath: dir + "/s.snap")
        writeFile(dir + "/s.snap.tmp", newest)
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertEqual(r.session("s")?.snapshot?.version, 4)
        XCTAssertEqual(r.session("s")?.versions, Array(5...10))
        XCTAssertTrue(r.warnings.isEmpty, "nothing was damaged")
        XCTAssertNoThrow(try appendSync(j, "s", [(11, "r11")]).get())
    }

    func testAFirstSnapshotThatIsCorruptFallsBackToTheRecords() throws {
        let dir = makeTempDirectory(self)
        do {
            let j = try openJournal(dir, fsync: .always, sessions: ["s"])
            _ = appendSync(j, "s", [(1, "x")])
            j.writeSnapshot(session: "s", version: 1, bytes: bytes("state"))
            j.close()
        }
        _ = corrupt(dir + "/s.snap")
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertTrue(r.failures.isEmpty)
        XCTAssertNil(r.session("s")?.snapshot)
        XCTAssertEqual(r.session("s")?.versions, [1], "nothing was compacted yet: the records reach back to the first")
        XCTAssertTrue(r.warnings.first?.message.contains("first record") ?? false, "\(r.warnings)")
    }

    func testCorruptSnapshotsWithTheRecordsCompactedFailTheSession() throws {
        let dir = makeTempDirectory(self)
        try makeTwoSnapshots(dir)
        do {  // a third snapshot compacts segment 1 (records 1...6, covered by 4 and 8)
            let (j, _) = try reopen(dir)
            _ = appendSync(j, "s", [(11, "r11")])
            j.writeSnapshot(session: "s", version: 11, bytes: bytes("state@11"))
            j.close()
        }
        XCTAssertFalse(files(in: dir).contains("s.00000001.log"))
        _ = corrupt(dir + "/s.snap")
        _ = corrupt(dir + "/s.snap.prev")
        writeFile(dir + "/s.snap.tmp", bytes("half-written"))
        let before = contents(dir)
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertEqual(r.failures.map(\.id), ["s"])
        XCTAssertTrue(r.failures.first?.reason.contains("compacted") ?? false, "\(r.failures)")
        XCTAssertEqual(r.failedMeta["s"], bytes("m"), "read from the newest segment, though recovery stopped before the segments")
        XCTAssertEqual(contents(dir), before, "the files are left as they were, names and bytes")
        guard case .failure = appendSync(j, "s", [(12, "x")]) else { return XCTFail("appends are refused") }
    }

    func testWithoutSnapshotsTheSegmentsMustReachBackUnbroken() throws {
        // A compaction's unlinks can reach the disk in any order: segment 1 may outlive segment 2.
        let dir = makeTempDirectory(self)
        try makeTwoSnapshots(dir)  // segment 1: 1...6, segment 2: 7...10, segment 3: meta only
        try FileManager.default.removeItem(atPath: dir + "/s.00000002.log")
        _ = corrupt(dir + "/s.snap")
        _ = corrupt(dir + "/s.snap.prev")
        let (j, r) = try reopen(dir)
        defer { j.close() }
        XCTAssertEqual(r.failures.map(\.id), ["s"], "recovering 1...6 alone would silently lose 7...10")
        XCTAssertNil(r.session("s"))
    }

    func contents(_ dir: String) -> [String: [UInt8]] {
        Dictionary(uniqueKeysWithValues: files(in: dir).map { ($0, readFile(dir + "/" + $0)) })
    }

    func testTenThousandSessionsRestart() throws {
        let dir = makeTempDirectory(self)
        let count = 10_000
        let ids = (0..<count).map { "session-\($0)" }
        do {
            let j = try Journal(directory: dir, fsync: .never)
            _ = j.recover()
            for id in ids { try j.createSession(id: id, meta: bytes(id)) }
            let done = DispatchSemaphore(value: 0)
            for id in ids {
                j.append(session: id, records: [(version: 1, bytes: bytes("a")), (version: 2, bytes: bytes("b"))]) { _ in done.signal() }
            }
            for _ in ids { done.wait() }
            j.close()
        }
        let started = Date()
        let (j, r) = try reopen(dir)
        defer { j.close() }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(r.sessions.count, count)
        XCTAssertTrue(r.failures.isEmpty)
        XCTAssertEqual(r.stats.records, 2 * count)
        XCTAssertTrue(r.sessions.allSatisfy { $0.versions == [1, 2] && $0.meta == bytes($0.id) })
        XCTAssertEqual(j.statistics().sessions, count)
        XCTAssertNoThrow(try appendSync(j, "session-9999", [(3, "c")]).get())
        print("recovered \(count) sessions in \(elapsed) s (debug build)")
    }
}
