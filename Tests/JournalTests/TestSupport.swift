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

/// Appends and waits for the completion.
@discardableResult
func appendSync(_ j: Journal, _ id: String, _ records: [(Int, String)]) -> Result<Void, JournalError> {
    let result = Mutex<Result<Void, JournalError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    j.append(session: id, records: records.map { (version: $0.0, bytes: bytes($0.1)) }) { r in
        result.withLock { $0 = r }
        done.signal()
    }
    done.wait()
    return result.withLock { $0 } ?? .failure(.closed)
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
