import Foundation
import Glibc
import Journal
import Synchronization
@testable import StorehouseServer

/// A log that keeps appends waiting until the test releases them, as a journal whose sync is slow:
/// the head then runs ahead of what is durable for as long as the test likes.
final class HeldLog: SessionLog, @unchecked Sendable {  // `held` is only touched under `lock`
    private let lock = NSLock()
    private var held: [any JournalAppendListener] = []

    /// Signaled once per append that arrives.
    let appended = DispatchSemaphore(value: 0)

    var completesInline: Bool { false }

    func create(sessionID: String, meta: [UInt8], completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        completion(.success(()))
    }

    func append(sessionID: String, records: [(version: Int, bytes: [UInt8])], committer: Committer,
                listener: any JournalAppendListener) {
        lock.withLock { held.append(listener) }
        appended.signal()
    }

    /// Makes every held append durable, in order, on the calling thread.
    func release() {
        for listener in takeHeld() { listener.appendCompleted(.success(())) }
    }

    /// Refuses every held append, as a journal whose disk failed.
    func fail() {
        for listener in takeHeld() { listener.appendCompleted(.failure(.io(operation: "fdatasync", path: "held", errno: EIO))) }
    }

    private func takeHeld() -> [any JournalAppendListener] {
        lock.withLock {
            defer { held = [] }
            return held
        }
    }

    func commit(loop: Int) {}
    /// How many snapshots the session handed over.
    let snapshots = Atomic<Int>(0)

    func snapshot(sessionID: String, version: Int, bytes: [UInt8]) -> Bool {
        snapshots.add(1, ordering: .relaxed)
        return true
    }
    func delete(sessionID: String, completion: @escaping @Sendable () -> Void) { completion() }
    func close() {}
}
