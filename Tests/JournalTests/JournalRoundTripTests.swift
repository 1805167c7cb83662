import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import Journal

final class JournalRoundTripTests: XCTestCase {
    func testRoundTripAcrossRestart() throws {
        let dir = makeTempDirectory(self)
        do {
            let j = try Journal(directory: dir, fsync: .always)
            XCTAssertEqual(j.recover().sessions.count, 0)
            try j.createSession(id: "alpha", meta: bytes("meta-a"))
            try j.createSession(id: "beta_2-B", meta: bytes("meta-b"))
            XCTAssertNoThrow(try appendSync(j, "alpha", [(1, "a1")]).get())
            XCTAssertNoThrow(try appendSync(j, "alpha", [(2, "a2"), (3, "a3")]).get())
            XCTAssertNoThrow(try appendSync(j, "beta_2-B", [(1, "")]).get())
            j.close()
        }
        let j = try Journal(directory: dir, fsync: .always)
        defer { j.close() }
        let r = j.recover()
        XCTAssertTrue(r.failures.isEmpty, "\(r.failures)")
        XCTAssertEqual(r.sessions.map(\.id), ["alpha", "beta_2-B"])
        XCTAssertEqual(r.session("alpha")?.meta, bytes("meta-a"))
        XCTAssertEqual(r.session("alpha")?.versions, [1, 2, 3])
        XCTAssertEqual(r.session("alpha")?.recordStrings, ["a1", "a2", "a3"])
        XCTAssertNil(r.session("alpha")?.snapshot?.version)
        XCTAssertEqual(r.session("beta_2-B")?.recordStrings, [""])
        XCTAssertEqual(r.stats.records, 4)
        // Appends continue after the recovered version.
        XCTAssertNoThrow(try appendSync(j, "alpha", [(4, "a4")]).get())
        guard case .failure(.versionOutOfOrder(_, 5, 7)) = appendSync(j, "alpha", [(7, "gap")]) else {
            return XCTFail("a gap must be refused")
        }
    }

    func testEveryPolicyRoundTrips() throws {
        for policy in FsyncPolicy.allCases {
            let dir = makeTempDirectory(self)
            do {
                let j = try openJournal(dir, fsync: policy, sessions: ["s"], meta: bytes("m"))
                for v in 1...20 { XCTAssertNoThrow(try appendSync(j, "s", [(v, "r\(v)")]).get()) }
                j.close()
                guard case .failure(.closed) = appendSync(j, "s", [(21, "late")]) else { return XCTFail("closed journal must refuse") }
            }
            XCTAssertEqual(try recoverAndClose(dir, fsync: policy).session("s")?.versions, Array(1...20), "\(policy)")
        }
    }

    func testInvalidSessionIDsTouchNothing() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .never)
        defer { j.close() }
        for id in ["", "../escape", "a/b", "a.b.c", ".a", "a.", ".", "..", "with space", "é", String(repeating: "x", count: 65), "nul\u{0}"] {
            XCTAssertThrowsError(try j.createSession(id: id, meta: [])) { error in
                XCTAssertEqual(error as? JournalError, .invalidSessionID(id))
            }
            guard case .failure(.invalidSessionID) = appendSync(j, id, [(1, "x")]) else { return XCTFail("append to \(id) accepted") }
            j.writeSnapshot(session: id, version: 1, bytes: [])
            j.deleteSession(id: id)
        }
        XCTAssertNoThrow(try j.createSession(id: String(repeating: "x", count: 64), meta: []))
        XCTAssertEqual(files(in: dir), [String(repeating: "x", count: 64) + ".00000001.log"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: (dir as NSString).deletingLastPathComponent + "/escape.00000001.log"))
    }

    func testCreateTwiceAndUnknownSession() throws {
        let dir = makeTempDirectory(self)
        do {
            let j = try openJournal(dir, fsync: .always, sessions: ["s"])
            XCTAssertThrowsError(try j.createSession(id: "s", meta: [])) { XCTAssertEqual($0 as? JournalError, .sessionExists("s")) }
            guard case .failure(.unknownSession("nope")) = appendSync(j, "nope", [(1, "x")]) else { return XCTFail() }
            j.close()
        }
        let j = try Journal(directory: dir, fsync: .always)
        defer { j.close() }
        _ = j.recover()
        XCTAssertThrowsError(try j.createSession(id: "s", meta: [])) { XCTAssertEqual($0 as? JournalError, .sessionExists("s")) }
    }

    func testSecondJournalOnSameDirectoryIsRefused() throws {
        let dir = makeTempDirectory(self)
        let j = try Journal(directory: dir, fsync: .never)
        XCTAssertThrowsError(try Journal(directory: dir, fsync: .never)) { XCTAssertEqual($0 as? JournalError, .directoryLocked(dir)) }
        j.close()
        XCTAssertNoThrow(try Journal(directory: dir, fsync: .never).close())
    }

    func testDeleteRemovesEveryFile() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, sessions: ["gone", "kept"])
        defer { j.close() }
        for v in 1...5 { _ = appendSync(j, "gone", [(v, "x")]) }
        XCTAssertTrue(j.writeSnapshot(session: "gone", version: 3, bytes: bytes("state")), "in place: the caller is told")
        j.flush()
        _ = appendSync(j, "gone", [(6, "y")])
        XCTAssertTrue(files(in: dir).contains("gone.snap"))
        j.deleteSession(id: "gone")
        XCTAssertEqual(files(in: dir), ["kept.00000001.log"])
        guard case .failure(.unknownSession) = appendSync(j, "gone", [(7, "z")]) else { return XCTFail("deleted session took an append") }
        // The id can be used again.
        XCTAssertNoThrow(try j.createSession(id: "gone", meta: []))
    }

    func testAsyncForms() async throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always)
        let created = await withCheckedContinuation { c in j.createSession(id: "s", meta: bytes("m")) { c.resume(returning: $0) } }
        XCTAssertNoThrow(try created.get())
        let again = await withCheckedContinuation { c in j.createSession(id: "s", meta: []) { c.resume(returning: $0) } }
        guard case .failure(.sessionExists("s")) = again else { return XCTFail("created twice") }
        let ok = await j.append(session: "s", records: [(version: 1, bytes: bytes("a"))])
        XCTAssertNoThrow(try ok.get())
        let refused = await j.append(session: "s", records: [(version: 3, bytes: bytes("c"))])
        XCTAssertThrowsError(try refused.get())
        j.close()
        XCTAssertEqual(try recoverAndClose(dir).session("s")?.recordStrings, ["a"])
    }

    /// Segment descriptors stay within the budget whether sessions are created or reopened, and a
    /// session whose descriptor was closed as idle takes its next append as before.
    func testDescriptorsStayWithinTheBudget() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, descriptorBudget: 4)
        let ids = (0..<20).map { "s\($0)" }
        for id in ids {
            try j.createSession(id: id, meta: [])
            XCTAssertLessThanOrEqual(j.statistics().openFiles, 4, "after creating \(id)")
        }
        for version in 1...2 {
            for id in ids { XCTAssertNoThrow(try appendSync(j, id, [(version, "\(id) \(version)")]).get()) }
            XCTAssertLessThanOrEqual(j.statistics().openFiles, 4)
        }
        j.close()
        let found = try recoverAndClose(dir)
        for id in ids { XCTAssertEqual(found.session(id)?.versions, [1, 2], id) }
    }

    /// Over the budget, the descriptors closed are those used longest ago: three sessions written
    /// between every creation keep their descriptors while sixty quiet ones come and go, and a quiet
    /// one written again is the one reopened. (Three, so that no hash order passes by luck.)
    func testTheDescriptorsClosedAsIdleAreTheLeastRecentlyUsed() throws {
        let busy = ["busy0", "busy1", "busy2"]
        let j = try openJournal(makeTempDirectory(self), fsync: .always, sessions: busy, descriptorBudget: 8)
        defer { j.close() }
        for i in 0..<60 {
            try j.createSession(id: "quiet\(i)", meta: [])
            for id in busy { XCTAssertNoThrow(try appendSync(j, id, [(i + 1, "\(id) \(i + 1)")]).get()) }
        }
        XCTAssertEqual(j.statistics().reopenedFiles, 0, "a busy session's descriptor was closed as idle")
        XCTAssertNoThrow(try appendSync(j, "quiet0", [(1, "quiet0 1")]).get())
        XCTAssertEqual(j.statistics().reopenedFiles, 1)
    }

    /// A group may touch more sessions than the budget: each is written, and the descriptors past the
    /// budget are closed once the group ends, not held until some later open.
    func testAGroupLargerThanTheBudgetIsWrittenAndLeavesTheBudget() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, descriptorBudget: 4)
        let ids = (0..<20).map { "s\($0)" }
        for id in ids { try j.createSession(id: id, meta: []) }
        let results = Mutex<[Result<Void, JournalError>]>([])
        let done = DispatchGroup()
        for id in ids {
            done.enter()
            j.append(session: id, records: [(version: 1, bytes: bytes("\(id) 1"))], commitLater: true) { r in
                results.withLock { $0.append(r) }
                done.leave()
            }
        }
        j.commit()
        done.wait()
        XCTAssertEqual(results.withLock { $0.filter { (try? $0.get()) != nil }.count }, ids.count)
        XCTAssertLessThanOrEqual(j.statistics().openFiles, 4)
        j.close()
        let found = try recoverAndClose(dir)
        for id in ids { XCTAssertEqual(found.session(id)?.versions, [1], id) }
    }

    /// Sessions deleted and created again under the same id, with descriptors closed as idle
    /// between: no descriptor escapes the budget's count, and none is left open after `close()`.
    func testDeletedAndRecreatedSessionsLeakNoDescriptors() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, sessions: ["a", "b", "c"], descriptorBudget: 2)
        for id in ["a", "b", "c"] { XCTAssertNoThrow(try appendSync(j, id, [(1, "\(id) 1")]).get()) }
        XCTAssertNoThrow(try appendSync(j, "a", [(2, "a 2")]).get())
        j.deleteSession(id: "a")
        try j.createSession(id: "a", meta: [])
        XCTAssertNoThrow(try appendSync(j, "a", [(1, "new a 1")]).get())
        j.deleteSession(id: "a")
        try j.createSession(id: "a", meta: [])
        XCTAssertLessThanOrEqual(j.statistics().openFiles, 2)
        XCTAssertLessThanOrEqual(descriptors(into: dir), 4, "the segments the budget allows, the directory and LOCK")
        j.close()
        XCTAssertEqual(descriptors(into: dir), 0, "every descriptor closed")
        let found = try recoverAndClose(dir)
        XCTAssertEqual(found.session("a")?.versions, [])
        XCTAssertEqual(found.session("b")?.versions, [1])
        XCTAssertEqual(found.session("c")?.versions, [1])
    }

    /// This process's open descriptors on `dir` or a file in it.
    private func descriptors(into dir: String) -> Int {
        let real = URL(fileURLWithPath: dir).resolvingSymlinksInPath().path
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)") else { return false }
            return target == real || target.hasPrefix(real + "/")
        }.count
    }

    /// A session's group buffer goes with its descriptor: a session closed as idle keeps no buffer,
    /// so the writer's buffers are bounded by the budget, not by the number of sessions.
    func testASessionClosedAsIdleKeepsNoBuffer() throws {
        let j = try openJournal(makeTempDirectory(self), fsync: .always, sessions: ["big"], descriptorBudget: 1)
        defer { j.close() }
        XCTAssertNoThrow(try appendSync(j, "big", [(1, String(repeating: "x", count: 6_000))]).get())
        XCTAssertGreaterThanOrEqual(j.statistics().bufferedBytes, 6_000, "kept for the session's next group")
        try j.createSession(id: "small", meta: [])  // over the budget of one: "big" is closed as idle
        XCTAssertNoThrow(try appendSync(j, "small", [(1, "small 1")]).get())
        let counts = j.statistics()
        XCTAssertEqual(counts.openFiles, 1)
        XCTAssertLessThan(counts.bufferedBytes, 1_024, "only the small session's buffer is left")
    }

    /// A snapshot's rotation reopens a segment closed as idle outside any group: closing idle
    /// descriptors to stay under the budget must not pick the one just opened for it.
    func testSnapshotsOfSessionsClosedAsIdleSucceed() throws {
        let dir = makeTempDirectory(self)
        let j = try openJournal(dir, fsync: .always, descriptorBudget: 2)
        let ids = (0..<10).map { "s\($0)" }
        for id in ids {
            try j.createSession(id: id, meta: [])
            XCTAssertNoThrow(try appendSync(j, id, [(1, "\(id) 1")]).get())
        }
        for id in ids { j.writeSnapshot(session: id, version: 1, bytes: bytes("\(id) at 1")) }
        let counts = j.statistics()
        XCTAssertEqual(counts.snapshotFailures, 0)
        XCTAssertEqual(counts.snapshots, ids.count)
        j.close()
    }

    /// The writer thread carries its name in the kernel (`top -H`, `perf`), not only in Foundation.
    func testTheWriterThreadIsNamedForTheOperatingSystem() throws {
        let j = try openJournal(makeTempDirectory(self), fsync: .batch)
        defer { j.close() }
        let deadline = Date().addingTimeInterval(5)
        var names: [String] = []
        repeat {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            names = tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            if names.contains("journal-writer\n") && names.contains("journal-sync\n") { return }
            usleep(1_000)
        } while Date() < deadline
        XCTFail("thread names: \(names)")
    }
}
