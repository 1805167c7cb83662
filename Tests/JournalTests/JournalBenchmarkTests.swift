import Foundation
import XCTest
import Journal

/// `JOURNAL_BENCH=1 swift test -c release -Xswiftc -enable-testing --scratch-path .build-journal --filter JournalBenchmarkTests`
/// (optional: JOURNAL_BENCH_DIR, JOURNAL_BENCH_SECONDS, JOURNAL_BENCH_PARTS=append,crc,recovery). Skipped otherwise: it takes a minute and measures the disk.
final class JournalBenchmarkTests: XCTestCase {
    func testBenchmark() throws {
        let env = ProcessInfo.processInfo.environment
        try XCTSkipUnless(env["JOURNAL_BENCH"] == "1", "set JOURNAL_BENCH=1 to run the journal benchmark")
        let dir = env["JOURNAL_BENCH_DIR"] ?? "/tmp/journal-bench"
        let seconds = Double(env["JOURNAL_BENCH_SECONDS"] ?? "") ?? 5
        var lines: [String] = []
        let parts = Set((env["JOURNAL_BENCH_PARTS"] ?? "append,crc,recovery").split(separator: ",").map(String.init))
        JournalBenchmark.run(directory: dir, seconds: seconds, parts: parts) { line in
            print(line)
            lines.append(line)
        }
        try? FileManager.default.removeItem(atPath: dir)
        XCTAssertFalse(lines.contains { $0.contains("error=") }, lines.joined(separator: "\n"))
    }
}
