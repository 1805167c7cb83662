import Dispatch
import Foundation
import Glibc
import Synchronization
import XCTest
@testable import Journal

/// Process-crash test of the journal alone: a child process (this test binary, running
/// `testChildWriter`) appends from several threads under `always`, with snapshots, and prints each
/// acknowledged version; the parent SIGKILLs it at a random moment, recovers, and checks that every
/// acknowledged record is there, in order, exactly once. `JOURNAL_CRASH_ROUNDS` (default 5) sets the rounds.
final class JournalCrashTests: XCTestCase {
    static let sessions = 6

    func testAcknowledgedAppendsSurviveSIGKILL() throws {
        let rounds = Int(ProcessInfo.processInfo.environment["JOURNAL_CRASH_ROUNDS"] ?? "") ?? 5
        let dir = makeTempDirectory(self)
        var acked = [Int](repeating: 0, count: Self.sessions)
        var tornTails = 0
        for round in 0..<rounds {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            child.arguments = ["JournalTests.JournalCrashTests/testChildWriter"]
            var env = ProcessInfo.processInfo.environment
            env["JOURNAL_CRASH_CHILD_DIR"] = dir
            child.environment = env
            let out = Pipe()
            child.standardOutput = out
            child.standardError = FileHandle.nullDevice
            try child.run()
            let output = Mutex<[UInt8]>([])
            let reader = DispatchGroup()
            reader.enter()
            Thread.detachNewThread {
                let handle = out.fileHandleForReading
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    output.withLock { $0 += chunk }
                }
                reader.leave()
            }
            // Wait until the child is appending (it prints READY), then kill it after a random delay.
            let deadline = Date().addingTimeInterval(20)
            while !output.withLock({ String(decoding: $0, as: UTF8.self).contains("READY") }), Date() < deadline, child.isRunning {
                usleep(2_000)
            }
            usleep(UInt32.random(in: 20_000...250_000))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            reader.wait()

            let text = String(decoding: output.withLock { $0 }, as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("ACK ") {
                let parts = line.split(separator: " ")
                guard parts.count == 3, let s = Int(parts[1]), let v = Int(parts[2]), s < Self.sessions else { continue }
                acked[s] = max(acked[s], v)
            }
            let r = try recoverAndClose(dir)
            tornTails += r.stats.tornTails
            XCTAssertTrue(r.failures.isEmpty, "round \(round): \(r.failures)")
            XCTAssertTrue(text.contains("READY"), "round \(round): child never started")
            for s in 0..<Self.sessions {
                guard let rec = r.session("c\(s)") else { XCTFail("round \(round): session c\(s) lost"); continue }
                let base = rec.snapshot?.version ?? 0
                if let snap = rec.snapshot {
                    XCTAssertEqual(String(decoding: snap.bytes, as: UTF8.self), "upto\(snap.version)", "round \(round)")
                }
                XCTAssertEqual(rec.versions, Array(stride(from: base + 1, through: base + rec.records.count, by: 1)), "round \(round)")
                XCTAssertEqual(rec.recordStrings, rec.versions.map { "v\($0)" }, "round \(round)")
                let recovered = base + rec.records.count
                XCTAssertGreaterThanOrEqual(recovered, acked[s], "round \(round): session \(s) lost acknowledged versions")
            }
        }
        XCTAssertGreaterThan(acked.reduce(0, +), 0, "no append was ever acknowledged")
        print("crash test: \(rounds) SIGKILL rounds, acknowledged versions per session \(acked), torn tails dropped \(tornTails)")
    }

    /// The child side; skipped unless started by the test above.
    func testChildWriter() throws {
        guard let dir = ProcessInfo.processInfo.environment["JOURNAL_CRASH_CHILD_DIR"] else {
            throw XCTSkip("child process of testAcknowledgedAppendsSurviveSIGKILL")
        }
        let j = try Journal(directory: dir, fsync: .always, snapshotEvery: 40)
        let r = j.recover()
        var next = [Int](repeating: 1, count: Self.sessions)
        for s in 0..<Self.sessions {
            if let rec = r.session("c\(s)") {
                next[s] = (rec.records.last?.version ?? rec.snapshot?.version ?? 0) + 1
            } else {
                try j.createSession(id: "c\(s)", meta: bytes("child"))
            }
        }
        @Sendable func say(_ line: String) {
            let data = Array((line + "\n").utf8)
            data.withUnsafeBytes { _ = Glibc.write(1, $0.baseAddress, $0.count) }
        }
        say("READY")
        let group = DispatchGroup()
        for s in 0..<Self.sessions {
            group.enter()
            let start = next[s]
            Thread.detachNewThread {
                var v = start
                while true {
                    // Batches of 1-3 records: recovered whole or not at all.
                    let n = 1 + v % 3
                    let records = (v..<v + n).map { (version: $0, bytes: Array("v\($0)".utf8)) }
                    if case .success = appendSync(j, "c\(s)", records.map { ($0.version, String(decoding: $0.bytes, as: UTF8.self)) }) {
                        say("ACK \(s) \(v + n - 1)")
                        if (v + n - 1) / 40 != (v - 1) / 40 {
                            j.writeSnapshot(session: "c\(s)", version: v + n - 1, bytes: Array("upto\(v + n - 1)".utf8))
                        }
                        v += n
                    }
                }
            }
        }
        group.wait()
    }
}
