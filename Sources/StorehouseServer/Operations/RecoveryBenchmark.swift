import Dispatch
import Foundation
import Journal
import StoreCore

/// `storehouse-bench recovery`: how long a restart takes to rebuild many sessions.
///
/// Writes `sessions` counter sessions with `actionsPerSession` journaled actions each, in the
/// exact bytes the server writes, then starts a server on that directory and times `start()`
/// (bind, read every journal, replay every action) until it is ready.
public enum RecoveryBenchmark {
    public static func run(directory: String, sessions: Int = 10_000, actionsPerSession: Int = 100,
                           output: (String) -> Void) throws {
        try? FileManager.default.removeItem(atPath: directory)
        let seedStarted = ContinuousClock.now
        let journal = try Journal(directory: directory, fsync: .never)
        _ = journal.recover()
        let now = SessionContext.wallClock()
        let group = DispatchGroup()
        for index in 0..<sessions {
            let id = Secrets.randomBase64URL(bytes: 16)
            let hash = SHA256.hash(Array("token-\(index)".utf8))
            try journal.createSession(id: id, meta: SnapshotCoding.meta(id: id, kind: "counter", createdAt: now, tokenHash: hash, state: nil))
            let records = (1...actionsPerSession).map { version in
                (version: version, bytes: RecordCoding.journalRecord(
                    ActionRecord(type: version % 3 == 0 ? "counter/decrTapped" : "counter/incrTapped", at: now + Int64(version), source: .client),
                    mark: nil))
            }
            group.enter()
            journal.append(session: id, records: records) { _ in group.leave() }
        }
        group.wait()
        journal.close()
        let diskBytes = directorySize(directory)
        let total = sessions * actionsPerSession
        output("RESULT recovery-seed sessions=\(sessions) actions=\(total) seconds=\(seconds(ContinuousClock.now - seedStarted)) disk_bytes=\(diskBytes) bytes_per_action=\(String(format: "%.1f", Double(diskBytes) / Double(total)))")

        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.accessLog = false
        let started = ContinuousClock.now
        let server = try Storehouse(configuration: configuration)
        try server.start()
        let elapsedDuration = ContinuousClock.now - started
        let recovered = server.registry.count
        server.shutdown()
        output("RESULT recovery sessions=\(recovered) actions=\(total) seconds=\(seconds(elapsedDuration)) actions_per_second=\(Int(Double(total) / max(elapsedDuration / .seconds(1), 1e-9)))")
    }

    private static func seconds(_ d: Duration) -> String {
        String(format: "%.3f", Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }

    private static func directorySize(_ path: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + "/" + name)[.size] as? Int) ?? 0)
        }
    }
}
