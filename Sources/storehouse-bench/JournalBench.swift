import Foundation
import Journal

/// `storehouse-bench journal [DIR]`: the Journal module alone — appends/s per fsync policy at
/// 64 waiting writers, recovery of 10,000 sessions × 100 records, CRC32C throughput.
/// DIR should sit on the file system the server's data directory uses (default /tmp/journal-bench).
func runJournalBench(_ arguments: [String]) {
    let directory = arguments.first ?? NSTemporaryDirectory() + "journal-bench"
    JournalBenchmark.run(directory: directory) { line in print(line) }
}
