import Dispatch
import Foundation
import Glibc
import Synchronization

/// In-process journal benchmarks (BENCHMARKS.md, "Journal alone"): append throughput per policy at
/// N waiting writers, recovery time of many sessions, bytes on disk per record.
///
///     JournalBenchmark.run(directory: "/tmp/jb", seconds: 5) { print($0) }
public enum JournalBenchmark {
    /// Runs every part under `directory` (created, then emptied), printing `RESULT key=value` lines.
    public static func run(directory: String, seconds: Double = 5, writers: Int = 64, recoverySessions: Int = 10_000,
                           recordsPerSession: Int = 100, recordBytes: Int = 100, parts: Set<String> = ["append", "crc", "recovery"],
                           output: (String) -> Void) {
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let configs: [(String, FsyncPolicy, JournalWriter.SyncMode)] = [
            ("always", .always, .syncfs(threshold: 4)),
            ("always-fdatasync-each", .always, .perFile),
            ("batch", .batch, .syncfs(threshold: 4)),
            ("never", .never, .syncfs(threshold: 4)),
        ]
        for (label, policy, mode) in configs where parts.contains("append") {
            let dir = directory + "/append-" + label
            output(appendThroughput(directory: dir, label: label, policy: policy, mode: mode, writers: writers,
                                    seconds: seconds, recordBytes: recordBytes))
            try? FileManager.default.removeItem(atPath: dir)
        }
        if parts.contains("crc") {
            let buffer = [UInt8](repeating: 0xA5, count: 64 << 20)
            let t0 = DispatchTime.now().uptimeNanoseconds
            var crc: UInt32 = 0
            for _ in 0..<4 { crc = CRC32C.checksum(buffer, continuing: crc) }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
            output("RESULT workload=crc32c gb_s=\(String(format: "%.2f", Double(4 * buffer.count) / seconds / 1e9)) crc=\(crc)")
        }
        if parts.contains("recovery") {
            recovery(directory: directory + "/recovery", sessions: recoverySessions, recordsPerSession: recordsPerSession,
                     recordBytes: recordBytes, output: output)
        }
        try? FileManager.default.removeItem(atPath: directory + "/recovery")
    }

    static func payload(_ n: Int) -> [UInt8] {
        // Shaped like an ActionRecord line: {"type":"increment","payload":{"by":1},"at":...,"source":"client"} padded.
        let base = Array(#"{"type":"increment","payload":{"by":1},"at":1763755301123,"source":"client","key":""#.utf8)
        var p = base
        while p.count < n - 2 { p.append(UInt8(ascii: "k")) }
        p += Array(#""}"#.utf8)
        return Array(p.prefix(max(n, 0)))
    }

    /// `writers` threads, one session each, one append in flight each (like HTTP clients waiting for their 2xx).
    static func appendThroughput(directory: String, label: String, policy: FsyncPolicy, mode: JournalWriter.SyncMode,
                                 writers: Int, seconds: Double, recordBytes: Int) -> String {
        try? FileManager.default.removeItem(atPath: directory)
        let journal: Journal
        do {
            journal = try Journal(directory: directory, fsync: policy, snapshotEvery: 1_000, syncMode: mode)
        } catch {
            return "RESULT workload=journal-append config=\(label) error=\"\(error)\""
        }
        defer { journal.close() }
        _ = journal.recover()
        for w in 0..<writers { try? journal.createSession(id: "w\(w)", meta: payload(64)) }
        let record = payload(recordBytes)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let latencies = Mutex<[UInt64]>([])
        let errors = Mutex(0)
        let before = journal.statistics()
        let group = DispatchGroup()
        let started = DispatchTime.now().uptimeNanoseconds
        for w in 0..<writers {
            group.enter()
            Thread.detachNewThread {
                var mine: [UInt64] = []
                mine.reserveCapacity(100_000)
                var version = 1
                let done = DispatchSemaphore(value: 0)
                let failed = Mutex(false)
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    journal.append(session: "w\(w)", records: [(version: version, bytes: record)]) { r in
                        if case .failure = r { failed.withLock { $0 = true } }
                        done.signal()
                    }
                    done.wait()
                    mine.append(DispatchTime.now().uptimeNanoseconds - t0)
                    if failed.withLock({ $0 }) { errors.withLock { $0 += 1 }; break }
                    version += 1
                }
                latencies.withLock { $0 += mine }
                group.leave()
            }
        }
        group.wait()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let after = journal.statistics()
        var all = latencies.withLock { $0 }
        all.sort()
        func pct(_ p: Double) -> String {
            guard !all.isEmpty else { return "?" }
            let v = all[min(all.count - 1, Int(Double(all.count) * p))]
            return String(format: "%.2f", Double(v) / 1e6)
        }
        let appends = after.appends - before.appends
        let groups = max(1, after.groups - before.groups)
        let syncs = after.syncCalls - before.syncCalls
        return "RESULT workload=journal-append config=\(label) writers=\(writers) appends_s=\(Int(Double(appends) / elapsed))"
            + " p50_ms=\(pct(0.5)) p99_ms=\(pct(0.99)) appends_per_group=\(String(format: "%.1f", Double(appends) / Double(groups)))"
            + " syncs_s=\(Int(Double(syncs) / elapsed)) errors=\(errors.withLock { $0 })"
    }

    /// Builds `sessions` x `recordsPerSession` records, closes, and times `recover()` on a fresh journal.
    static func recovery(directory: String, sessions: Int, recordsPerSession: Int, recordBytes: Int, output: (String) -> Void) {
        try? FileManager.default.removeItem(atPath: directory)
        let record = payload(recordBytes)
        let buildStart = DispatchTime.now().uptimeNanoseconds
        do {
            let journal = try Journal(directory: directory, fsync: .never)
            _ = journal.recover()
            let pending = DispatchSemaphore(value: 0)
            var submitted = 0
            for s in 0..<sessions {
                try journal.createSession(id: "session-\(s)", meta: payload(64))
                // Ten records per append: the frames are the same as single-record appends.
                var v = 1
                while v <= recordsPerSession {
                    let n = min(10, recordsPerSession - v + 1)
                    journal.append(session: "session-\(s)", records: (v..<v + n).map { (version: $0, bytes: record) }) { _ in pending.signal() }
                    submitted += 1
                    v += n
                }
            }
            for _ in 0..<submitted { pending.wait() }
            journal.close()
        } catch {
            return output("RESULT workload=journal-recovery error=\"\(error)\"")
        }
        let buildSeconds = Double(DispatchTime.now().uptimeNanoseconds - buildStart) / 1e9
        for attempt in ["cold", "warm"] {
            // A cold page cache needs root (drop_caches); without it both runs are warm-cache.
            let cold = attempt == "cold" && (try? "3\n".write(toFile: "/proc/sys/vm/drop_caches", atomically: false, encoding: .utf8)) != nil
            let journal: Journal
            do { journal = try Journal(directory: directory, fsync: .always) } catch {
                return output("RESULT workload=journal-recovery error=\"\(error)\"")
            }
            let t0 = DispatchTime.now().uptimeNanoseconds
            let r = journal.recover()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
            journal.close()
            let records = r.stats.records
            output("RESULT workload=journal-recovery sessions=\(r.sessions.count) records=\(records) failures=\(r.failures.count)"
                + " recover_s=\(String(format: "%.3f", seconds)) records_s=\(Int(Double(records) / max(seconds, 1e-9)))"
                + " disk_bytes=\(r.stats.bytes) bytes_per_record=\(String(format: "%.1f", Double(r.stats.bytes) / Double(max(records, 1))))"
                + " payload_bytes=\(recordBytes) cache=\(cold ? "cold" : "warm") build_s=\(String(format: "%.1f", buildSeconds))")
        }
    }
}
