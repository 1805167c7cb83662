import Dispatch
import Foundation
import Glibc
import Synchronization

/// The durable journal of every session: append-only records, periodic snapshots, crash recovery.
///
/// Records and snapshots are opaque bytes; the journal only frames, checksums, orders and syncs them.
///
///     let journal = try Journal(directory: "data", fsync: .always)
///     let found = journal.recover()                       // once, before anything else
///     try journal.createSession(id: "abc", meta: metaBytes)
///     journal.append(session: "abc", records: [(version: 1, bytes: actionBytes)]) { result in
///         // .success: durable as the policy promises -> answer 2xx; .failure -> 503
///     }
///
/// Completions run on the thread that processes their group (the writer thread, or under `.batch`
/// and `.never` a caller of `commit()`), in call order per session: they must not block.
/// From a completion, `createSession` throws `.calledFromCompletion`, `deleteSession` and `close`
/// are queued without waiting, `flush` and `statistics` do nothing.
public final class Journal: Sendable {
    public let directory: String
    public let policy: FsyncPolicy
    /// The server calls `writeSnapshot` once this many records were appended since the last one.
    public let snapshotEvery: Int
    /// Longest time an appended record stays unsynced under `.batch`.
    public static let batchInterval: Duration = .milliseconds(5)

    let disk: Disk
    let writer: JournalWriter
    private let lockFD: Int32
    /// Held while a snapshot's temp file is written and installed (see `writeSnapshot`).
    private let snapshotWrites = NSLock()
    private let state = Mutex(State())

    private struct State {
        var recovered = false
        var closed = false
    }

    /// Opens (creating it if needed) and locks `directory`, and starts the writer thread.
    public convenience init(directory: String, fsync: FsyncPolicy, snapshotEvery: Int = 1_000) throws(JournalError) {
        try self.init(directory: directory, fsync: fsync, snapshotEvery: snapshotEvery, syncMode: .syncfs(threshold: 4))
    }

    init(directory: String, fsync: FsyncPolicy, snapshotEvery: Int, syncMode: JournalWriter.SyncMode, descriptorBudget: Int? = nil) throws(JournalError) {
        self.directory = directory
        self.policy = fsync
        self.snapshotEvery = max(1, snapshotEvery)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .io(operation: "mkdir", path: directory, errno: EACCES)
        }
        let disk = Disk(directory: directory)
        let lockFD = open(disk.path(FileNames.lock), O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if lockFD < 0 { throw .io(operation: "open", path: disk.path(FileNames.lock), errno: errno) }
        if flock(lockFD, LOCK_EX | LOCK_NB) != 0 {
            Glibc.close(lockFD)
            throw .directoryLocked(directory)
        }
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD < 0 {
            let e = errno
            Glibc.close(lockFD)
            throw .io(operation: "open", path: directory, errno: e)
        }
        self.disk = disk
        self.lockFD = lockFD
        self.writer = JournalWriter(disk: disk, dirFD: dirFD, policy: fsync, syncMode: syncMode, batchInterval: Journal.batchInterval,
                                   descriptorBudget: descriptorBudget)
        writer.start()
    }

    deinit {
        close()
    }

    /// Creates a session: its first segment holds `meta`, durable (unless `.never`) before this returns.
    public func createSession(id: String, meta: [UInt8]) throws(JournalError) {
        guard FileNames.isValidSessionID(id) else { throw .invalidSessionID(id) }
        if writer.isCurrentThread { throw .calledFromCompletion }
        let result = Mutex<Result<Void, JournalError>>(.failure(.closed))
        let done = DispatchSemaphore(value: 0)
        guard writer.submit(.create(id: id, meta: meta, done: { r in
            result.withLock { $0 = r }
            done.signal()
        })) else { throw .closed }
        done.wait()
        try result.withLock { $0 }.get()
    }

    /// Appends `records` (consecutive versions, following the session's last record) as one unit:
    /// after a crash either all of them are recovered or none. `completion` runs once, when the records
    /// are as durable as the policy promises, or with the reason they were refused (nothing written).
    /// A refusal because the journal is closed comes after the completions of every earlier append.
    ///
    /// `completion` never runs inside this call, a refusal included: a caller may hold a lock its
    /// completion takes.
    ///
    /// With `commitLater: true` the writer thread is not woken: the caller calls ``commit()`` before
    /// it waits for more work (an event loop at the end of an iteration).
    public func append(session: String, records: [(version: Int, bytes: [UInt8])], commitLater: Bool = false,
                       completion: @escaping @Sendable (Result<Void, JournalError>) -> Void) {
        append(session: session, records: records, commitLater: commitLater, done: .typed(completion))
    }

    /// ``append(session:records:commitLater:completion:)`` for a caller that hears every append's
    /// outcome through one object (a session): it is retained per append, no closure allocated.
    ///
    ///     journal.append(session: "abc", records: [(version: 1, bytes: line)], listener: session)
    public func append(session: String, records: [(version: Int, bytes: [UInt8])], commitLater: Bool = false,
                       listener: any JournalAppendListener) {
        append(session: session, records: records, commitLater: commitLater, done: .listener(listener))
    }

    /// ``append(session:records:commitLater:listener:)`` of one record, with no array around it.
    ///
    ///     journal.append(session: "abc", record: (version: 1, bytes: line), listener: session)
    public func append(session: String, record: (version: Int, bytes: [UInt8]), commitLater: Bool = false,
                       listener: any JournalAppendListener) {
        let done = JournalWriter.Done.listener(listener)
        submit(.appendOne(id: session, record: record, done: done), commitLater: commitLater, done: done)
    }

    private func append(session: String, records: [(version: Int, bytes: [UInt8])], commitLater: Bool, done: JournalWriter.Done) {
        submit(.append(id: session, records: records, done: done), commitLater: commitLater, done: done)
    }

    /// Queues an append (`done` is its completion).
    private func submit(_ append: consuming JournalWriter.Op, commitLater: Bool, done: JournalWriter.Done) {
        // The id is checked by the writer, for an append it holds no session for (every session
        // it holds has a checked id): not once per append on the caller's thread.
        if !writer.submit(append, wake: !commitLater) {
            // Answered once the writer has run its last completions, never before: an append of
            // this session still in flight is answered first, so the caller settles its versions in
            // order (settled first, this refusal rolled back an earlier append that became durable).
            let writer = self.writer
            DispatchQueue.global().async {
                writer.waitUntilStopped()
                done(.failure(.closed))
            }
        }
    }

    /// From a completion, runs `body` on the same thread once every completion of its group has
    /// run: a caller with many appends in one group can settle them together (one lock, not one
    /// per append). Anywhere else `body` runs at once.
    ///
    ///     journal.append(session: "abc", records: records) { result in
    ///         answered.append(result)
    ///         if answered.count == 1 { journal.afterGroupCompletes { settle(answered) } }
    ///     }
    public func afterGroupCompletes(_ body: @escaping @Sendable () -> Void) {
        if !writer.deferUntilGroupEnds(.body(body)) { body() }
    }

    /// ``afterGroupCompletes(_:)`` for a listener: its `groupCompleted()` runs then, with no
    /// closure allocated per group.
    ///
    ///     func appendCompleted(_ result: Result<Void, JournalError>) {
    ///         if answered.add(result) { journal.afterGroupCompletes(notify: self) }  // the first
    ///     }
    public func afterGroupCompletes(notify listener: any JournalAppendListener) {
        if !writer.deferUntilGroupEnds(.listener(listener)) { listener.groupCompleted() }
    }

    /// Commits what was appended with `commitLater: true` as one group.
    ///
    /// Under `.always` the writer thread writes and syncs it, and runs its completions, while the
    /// caller goes on: this never waits for the disk. Under `.batch` and `.never` the group is
    /// written and completed on the calling thread inside this call (no sync to wait for); it
    /// blocks while another thread processes a group.
    public func commit() {
        writer.commit()
    }

    /// Stores `bytes` as the session's state at `version`; the snapshot it replaces is kept as the
    /// fallback, and the records that one covers are deleted. Best effort: a failed snapshot
    /// leaves the records in place; one at or below the current snapshot's version is ignored.
    ///
    /// The file is written and synced on the calling thread, which returns once the writer has
    /// renamed it into place: a large state's bytes never hold up the group that carries every
    /// session's appends. From the writer's own thread (a completion) the whole snapshot is queued.
    ///
    /// Returns whether the snapshot is in place and synced (one at the current snapshot's version
    /// already is); false when a write, sync or rename failed, or the session is unknown. A
    /// queued snapshot (from a completion) answers true: its outcome is not known yet.
    @discardableResult
    public func writeSnapshot(session: String, version: Int, bytes: [UInt8]) -> Bool {
        guard FileNames.isValidSessionID(session) else { return false }
        if writer.isCurrentThread {
            writer.submit(.snapshot(id: session, version: version, bytes: bytes))
            return true
        }
        // One temp file per session id: the writes of one journal take turns.
        return snapshotWrites.withLock {
            let written = writer.writeSnapshotTemp(id: session, version: version, bytes: bytes)
            let done = DispatchSemaphore(value: 0)
            let installed = Atomic(false)
            guard writer.submit(.installSnapshot(id: session, version: version, written: written, done: { ok in
                installed.store(ok, ordering: .relaxed)
                done.signal()
            })) else { return false }
            done.wait()
            return installed.load(ordering: .relaxed)
        }
    }

    /// Removes every file of the session (also of one that failed recovery); returns once they are gone.
    public func deleteSession(id: String) {
        guard FileNames.isValidSessionID(id) else { return }
        if writer.isCurrentThread {
            writer.submit(.delete(id: id, done: {}))  // from a completion: queued, not awaited
            return
        }
        let done = DispatchSemaphore(value: 0)
        if writer.submit(.delete(id: id, done: { done.signal() })) { done.wait() }
    }

    /// Returns once everything submitted before is synced to disk, whatever the policy.
    public func flush() {
        if writer.isCurrentThread { return }
        let done = DispatchSemaphore(value: 0)
        if writer.submit(.flush(done: { done.signal() })) { done.wait() }
    }

    /// Syncs everything pending, closes the files and stops the writer thread. Later calls are refused with `.closed`.
    public func close() {
        let first = state.withLock { s -> Bool in
            if s.closed { return false }
            s.closed = true
            return true
        }
        let lockFD = self.lockFD
        // The lock is released by the writer once every file is synced and closed.
        if first { writer.submit(.close(done: { _ = Glibc.close(lockFD) })) }
        // From a completion (e.g. the last reference dropped there) waiting would deadlock.
        if !writer.isCurrentThread { writer.waitUntilStopped() }
    }

    /// True the first time only: recovery runs once.
    func recoveryStarted() -> Bool {
        state.withLock { s -> Bool in
            if s.recovered { return false }
            s.recovered = true
            return true
        }
    }

    /// Counters since start, read on the writer thread (for logs, /metrics and benchmarks).
    public func statistics() -> JournalStatistics {
        if writer.isCurrentThread { return JournalStatistics() }
        let result = Mutex(JournalStatistics())
        let done = DispatchSemaphore(value: 0)
        if writer.submit(.statistics(done: { c in
            result.withLock { $0 = c }
            done.signal()
        })) { done.wait() }
        return result.withLock { $0 }
    }

    /// Test hook: makes the next writes or syncs fail as if the disk did (nil clears it).
    public func injectFault(_ fault: JournalFault?) {
        disk.inject(fault)
    }
}
