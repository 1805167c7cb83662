import Foundation
import Journal
import StorehouseServer

/// `storehouse-bench journal [DIR]`: the Journal module alone — appends/s per fsync policy at
/// 64 waiting writers, recovery of 10,000 sessions × 100 records, CRC32C throughput.
/// DIR should sit on the file system the server's data directory uses (default /tmp/journal-bench).
func runJournalBench(_ arguments: [String]) {
    let directory = arguments.first ?? NSTemporaryDirectory() + "journal-bench"
    JournalBenchmark.run(directory: directory) { line in print(line) }
}

/// `storehouse-bench recovery [DIR] [SESSIONS] [ACTIONS_PER_SESSION]`: a server restart over
/// 10,000 sessions × 100 journaled actions (1M in all) by default.
func runRecoveryBench(_ arguments: [String]) {
    let directory = arguments.first ?? NSTemporaryDirectory() + "recovery-bench"
    let sessions = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
    let actions = arguments.count > 2 ? Int(arguments[2]) ?? 100 : 100
    do {
        try RecoveryBenchmark.run(directory: directory, sessions: sessions, actionsPerSession: actions) { print($0) }
    } catch {
        print("recovery benchmark failed: \(error)")
    }
}
