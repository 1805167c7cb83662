import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import Journal

/// A fresh directory under /tmp, removed by the test's teardown.
func makeTempDirectory(_ test: XCTestCase) -> String {
    let path = "/tmp/journal-test-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// A journal opened on `dir`, its recovery run (and what it found dropped), holding a new session
/// for each of `ids`, created in order with `meta`; `descriptorBudget` as the writer's. The caller
/// closes it.
func openJournal(_ dir: String, fsync: FsyncPolicy, sessions ids: [String] = [], meta: [UInt8] = [],
                 descriptorBudget: Int? = nil) throws -> Journal {
    let j = try Journal(directory: dir, fsync: fsync, snapshotEvery: 1_000, syncMode: .syncfs(threshold: 4),
                        descriptorBudget: descriptorBudget)
    _ = j.recover()
    do {
        for id in ids { try j.createSession(id: id, meta: meta) }
    } catch {
        j.close()
        throw error
    }
    return j
}

/// A journal opened on `dir` holding session "s" (an empty meta record) and its records 1...`n`,
/// "record 1", "record 2"..., one append (one write) each. The caller closes it.
func journalWithRecords(_ dir: String, fsync: FsyncPolicy, upTo n: Int,
                        file: StaticString = #filePath, line: UInt = #line) throws -> Journal {
    let j = try openJournal(dir, fsync: fsync, sessions: ["s"])
    for v in 1...n { XCTAssertNoThrow(try appendSync(j, "s", [(v, "record \(v)")]).get(), file: file, line: line) }
    return j
}

/// Appends and waits for the completion.
@discardableResult
func appendSync(_ j: Journal, _ id: String, _ records: [(Int, String)]) -> Result<Void, JournalError> {
    appendSync(j, id, bytes: records.map { ($0.0, bytes($0.1)) })
}

/// Appends records of any bytes and waits for the completion.
@discardableResult
func appendSync(_ j: Journal, _ id: String, bytes records: [(Int, [UInt8])]) -> Result<Void, JournalError> {
    let result = Mutex<Result<Void, JournalError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    j.append(session: id, records: records.map { (version: $0.0, bytes: $0.1) }) { r in
        result.withLock { $0 = r }
        done.signal()
    }
    done.wait()
    return result.withLock { $0 } ?? .failure(.closed)
}

/// The files of a running journal, as a crash of the machine would leave them had every page
/// reached the disk (nothing closed, trimmed or sealed).
func crashCopy(of dir: String, _ test: XCTestCase) -> String {
    let copy = makeTempDirectory(test)
    for name in files(in: dir) { writeFile(copy + "/" + name, readFile(dir + "/" + name)) }
    return copy
}

/// Zeros `range` of a file: pages of a write that never reached the disk.
func losePages(_ path: String, _ range: Range<Int>) {
    var content = readFile(path)
    for i in range { content[i] = 0 }
    writeFile(path, content)
}

/// What a journal opened on `dir` recovers (it is closed again).
func recoverAndClose(_ dir: String, fsync: FsyncPolicy = .always) throws -> JournalRecovery {
    let j = try Journal(directory: dir, fsync: fsync)
    defer { j.close() }
    return j.recover()
}

func files(in dir: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0 != "LOCK" }.sorted()
}

func readFile(_ path: String) -> [UInt8] {
    (try? Data(contentsOf: URL(fileURLWithPath: path))).map { [UInt8]($0) } ?? []
}

func writeFile(_ path: String, _ content: [UInt8]) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(content))
}

extension RecoveredSession {
    var recordStrings: [String] { records.map { String(decoding: $0.bytes, as: UTF8.self) } }
    var versions: [Int] { records.map(\.version) }
}

extension JournalRecovery {
    func session(_ id: String) -> RecoveredSession? { sessions.first { $0.id == id } }
}
