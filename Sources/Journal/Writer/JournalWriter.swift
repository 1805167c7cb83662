import Foundation
import Dispatch
import Glibc
import Synchronization
import SystemSupport

/// The owner of every journal file descriptor: one group at a time, under `processLock`.
///
/// Group commit: callers only enqueue. Whoever processes takes everything queued at once, writes each
/// session's share with one `pwrite`, syncs the written files once (per `FsyncPolicy`), then runs the
/// completions in enqueue order. Appends that arrive while a sync runs form the next group, so the
/// number of syncs per second stays bounded by the disk, not by the number of writers.
///
/// `commit()` ends an event loop's iteration, whose appends were queued with `wake: false`:
/// - Under `batch` and `never` the caller processes the group itself (a `pwrite`, no sync), as Redis
///   does before each event-loop sleep. That saves the two thread hand-offs per group, writer and
///   back, which cost more than the write itself here.
/// - Under `always` it wakes the writer thread and returns: the sync (0.1–5 ms) runs there while the
///   loops keep reading and applying, and the next sync covers what every loop queued meanwhile
///   (a pipelined group commit). A loop that synced itself would hold its other clients for the
///   whole sync, and the two loops' syncs would take turns, each covering one loop's share
///   (`scripts/bench-fsync.sh` measures the pipeline against Redis).
final class JournalWriter: @unchecked Sendable {  // state below `queue` is touched only under `processLock`
    typealias Completion = @Sendable (Result<Void, JournalError>) -> Void

    /// An append's completion as its caller gave it: a closure, or a listener object (a session)
    /// that hears all of its appends, retained per append where a closure would be allocated.
    enum Done: Sendable {
        case typed(Completion)
        case listener(any JournalAppendListener)

        func callAsFunction(_ result: Result<Void, JournalError>) {
            switch self {
            case .typed(let done): done(result)
            case .listener(let listener): listener.appendCompleted(result)
            }
        }
    }

    enum Op: Sendable {
        case create(id: String, meta: [UInt8], done: Completion)
        case append(id: String, records: [(version: Int, bytes: [UInt8])], done: Done)
        /// An append of one record, which needs no array.
        case appendOne(id: String, record: (version: Int, bytes: [UInt8]), done: Done)
        case snapshot(id: String, version: Int, bytes: [UInt8])
        /// A snapshot whose temp file `writeSnapshotTemp` wrote and synced (`written`) on another
        /// thread: the group only renames it into place and compacts, then calls `done` with whether
        /// it is in place.
        case installSnapshot(id: String, version: Int, written: Bool, done: @Sendable (Bool) -> Void)
        case delete(id: String, done: @Sendable () -> Void)
        case adopt([RecoveredFiles], done: @Sendable () -> Void)
        case flush(done: @Sendable () -> Void)
        /// What the writer knows of a session's files (nil: no such session, or it failed).
        case files(id: String, done: @Sendable (SessionRecovery.Files?) -> Void)
        case statistics(done: @Sendable (JournalStatistics) -> Void)
        case close(done: @Sendable () -> Void)
        /// Drops the state of each session whose writes are all synced (`Journal.park`).
        case park(ids: [String], done: @Sendable ([ParkedSession?]) -> Void)
        /// A parked session read back: its state again, its files as read (already on disk).
        case reopen(RecoveredFiles, done: @Sendable (Bool) -> Void)
        case deleteParked(id: String, segments: [Int], done: @Sendable () -> Void)
        /// What `process` leaves where it moved an op out of its group: nothing to do.
        case taken

        var isSnapshot: Bool {
            switch self {
            case .snapshot, .installSnapshot: true
            default: false
            }
        }
    }

    /// How a group's files reach the disk under `always`.
    enum SyncMode: Sendable {
        /// `fdatasync` each written file, in order.
        case perFile
        /// One `syncfs` when at least `threshold` files are dirty, else per file.
        case syncfs(threshold: Int)
    }

    private struct Queue {
        var ops: [Op] = []
        var signaled = false
        var closed = false
    }

    /// Held while a group is processed; whoever holds it owns the state below it.
    private let processLock = NSLock()
    /// Set once `close` has been processed: nothing is processed after it.
    private var finished = false

    let disk: Disk
    let policy: FsyncPolicy
    let syncMode: SyncMode
    let batchIntervalNanos: UInt64
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)

    private let dirFD: Int32
    private var sessions: [String: SessionState] = [:] {
        didSet { lastAppended = nil }  // a session added or removed: the next append looks it up
    }
    /// The session the last append went to: one appending again (the usual case under load, and
    /// every append of a session alone) is found by comparing its id, not hashing it.
    private var lastAppended: SessionState?
    private var dirDirty = false
    /// Written since the last full sync (batch/never): flush and close sync the file system once.
    private var writtenSinceFlush = false
    private let batchSyncer: BatchSyncer?
    /// The sessions holding a segment descriptor: `closeIdle` looks at these alone, and the budget
    /// is their count. `s.fd >= 0` exactly when `s` is here (but inside `seal` and `rotate`).
    private var holders: [String: SessionState] = [:]
    /// Set when closing idle descriptors found none (every holder is in the group being processed):
    /// none can turn up before the group ends, so later opens in it skip the scan.
    private var noIdleHolder = false
    let fdBudget: Int
    private var counters = JournalStatistics()

    /// `descriptorBudget`: segment descriptors kept open at most (tests); by default a quarter of `RLIMIT_NOFILE`.
    init(disk: Disk, dirFD: Int32, policy: FsyncPolicy, syncMode: SyncMode, batchInterval: Duration, descriptorBudget: Int? = nil) {
        self.disk = disk
        self.dirFD = dirFD
        self.policy = policy
        self.syncMode = syncMode
        let (s, a) = batchInterval.components
        self.batchIntervalNanos = UInt64(max(0, s)) * 1_000_000_000 + UInt64(max(0, a / 1_000_000_000))
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        // The server needs most descriptors for connections; a closed segment reopens on its next append.
        self.fdBudget = descriptorBudget ?? max(32, min(2048, Int(clamping: limit.rlim_cur) / 4))
        self.batchSyncer = policy == .batch ? BatchSyncer(disk: disk, dirFD: dirFD, intervalNanos: batchIntervalNanos) : nil
    }

    private let running = DispatchGroup()

    /// Returns once the writer thread has processed `close` (do not call from the writer thread).
    func waitUntilStopped() {
        running.wait()
    }

    func start() {
        running.enter()
        NamedThread.start("journal-writer") { [self] in
            self.run()
            self.running.leave()
        }
        batchSyncer?.start()
    }

    /// Enqueues `op`; false once `close` has been enqueued. With `wake: false` the writer thread is
    /// not woken for it: the caller promises to call `commit()` soon (an op queued behind a woken
    /// one still goes with that group).
    @discardableResult
    func submit(_ op: consuming Op, wake wakeWriter: Bool = true) -> Bool {
        // Moved into the queue, not copied (a copy retains what the op holds, and the caller's
        // releases it again), unless it is refused.
        var op = Optional(op)
        let signal = queue.withLock { q -> Bool? in
            if q.closed { return nil }
            if case .close? = op { q.closed = true }
            if let taken = op.take() { q.ops.append(taken) }
            if q.signaled || !wakeWriter { return false }
            q.signaled = true
            return true
        }
        guard let signal else { return false }
        if signal { wake.signal() }
        return true
    }

    /// The thread processing a group right now, if any.
    private let threadID = Mutex<pthread_t?>(nil)

    /// True while this thread processes a group (inside a completion), where waiting for the
    /// writer would deadlock.
    var isCurrentThread: Bool {
        guard let id = threadID.withLock({ $0 }) else { return false }
        return pthread_equal(id, pthread_self()) != 0
    }

    /// Makes the ops queued with `wake: false` a group. Under `always` the writer thread takes them
    /// and this returns at once; otherwise they are processed on the calling thread, completions
    /// included, before it returns (blocking while another thread processes a group: the caller's
    /// appends go in the next one). Snapshots are left to the writer thread (their submit woke it):
    /// six syncs would stall the caller's other clients.
    func commit() {
        if isCurrentThread { return }  // from a completion: the group being processed is this thread's
        if policy == .always {
            wakeIfQueued()
            return
        }
        processQueued(leavingSnapshots: true)
    }

    /// Wakes the writer thread for what is queued, unless it was already woken for it.
    private func wakeIfQueued() {
        let signal = queue.withLock { q -> Bool in
            if q.signaled || q.ops.isEmpty { return false }
            q.signaled = true
            return true
        }
        if signal { wake.signal() }
    }

    private func run() {
        while true {
            wake.wait()
            if !processQueued() { return }
        }
    }

    /// Takes the queue and processes it as one group under `processLock`; false once closed.
    @discardableResult
    private func processQueued(leavingSnapshots: Bool = false) -> Bool {
        processLock.lock()
        defer { processLock.unlock() }
        if finished { return false }
        // The queue and the group swap storage, so neither grows from empty again for every group
        // (an array of 32 ops is a large allocation, which makes glibc consolidate its free lists).
        var ops = Self.taken(&spareOps)
        queue.withLock { q in
            swap(&q.ops, &ops)
            if leavingSnapshots, ops.contains(where: { $0.isSnapshot }) {
                // Moving a snapshot after later appends is safe: it only ever deletes segments
                // whose every record is at or below its version, and rotation starts a new one.
                q.ops.append(contentsOf: ops.lazy.filter(\.isSnapshot))
                ops.removeAll(where: \.isSnapshot)
                return
            }
            q.signaled = false
        }
        // `process` takes the ops out one by one: the storage is left empty for the next group.
        defer { spareOps = Self.emptied(&ops) }
        guard !ops.isEmpty else { return true }
        threadID.withLock { $0 = pthread_self() }
        defer { threadID.withLock { $0 = nil } }
        if process(&ops) { return true }
        finished = true
        // A `close` committed by another thread: the writer thread must still wake up to end.
        wake.signal()
        return false
    }

    // MARK: - One group

    private enum Pending {
        case session(SessionState, Done)
        case done(Done, Result<Void, JournalError>)
        case signal(@Sendable () -> Void)
    }

    /// Work deferred to the end of a group: a closure, or a listener's `groupCompleted()`, which
    /// costs no allocation.
    enum AfterGroup: Sendable {
        case body(@Sendable () -> Void)
        case listener(any JournalAppendListener)

        func callAsFunction() {
            switch self {
            case .body(let body): body()
            case .listener(let listener): listener.groupCompleted()
            }
        }
    }

    /// Work the group's completions asked to run once they have all run (`deferUntilGroupEnds`).
    private var afterGroup: [AfterGroup] = []

    /// From a completion: queues `work` to run on this thread once every completion of the group
    /// has run, and returns true. False anywhere else (the caller runs it then).
    func deferUntilGroupEnds(_ work: AfterGroup) -> Bool {
        guard isCurrentThread else { return false }
        afterGroup.append(work)  // under `processLock`: only the processing thread gets here
        return true
    }

    /// Runs what the completions deferred, including what that work defers in turn.
    private func runAfterGroup() {
        while !afterGroup.isEmpty {
            // The two lists trade storage, so deferring work allocates nothing once they have grown.
            var work = Self.taken(&spareAfterGroup)
            swap(&work, &afterGroup)
            for body in work { body() }
            spareAfterGroup = Self.emptied(&work)
        }
    }

    /// `afterGroup`'s other storage (see `runAfterGroup`); touched under `processLock`.
    private var spareAfterGroup: [AfterGroup] = []

    /// Storage kept from one group for the next (see `processQueued`); touched under `processLock`.
    private var spareOps: [Op] = []
    private var spareTouched: [SessionState] = []
    private var spareCompletions: [Pending] = []

    /// `op`, moved out, leaving `.taken` in its place.
    private static func take(_ op: inout Op) -> Op {
        var taken = Op.taken
        swap(&taken, &op)
        return taken
    }

    /// `array`'s contents, leaving it empty (moved out, so the result is uniquely referenced).
    private static func taken<T>(_ array: inout [T]) -> [T] {
        var result: [T] = []
        swap(&result, &array)
        return result
    }

    /// `array` emptied and moved out, keeping its storage unless a burst made it large.
    private static func emptied<T>(_ array: inout [T]) -> [T] {
        if array.capacity > 1_024 {
            array = []
        } else {
            // One by one from the end: `removeAll(keepingCapacity:)` goes through the general
            // `replaceSubrange`, several times the cost for the few elements of a group.
            while array.popLast() != nil {}
        }
        return taken(&array)
    }

    /// Processes one group; false after `close`.
    private func process(_ ops: inout [Op]) -> Bool {
        counters.groups += 1
        var touched = Self.taken(&spareTouched)
        var completions = Self.taken(&spareCompletions)
        defer {
            spareTouched = Self.emptied(&touched)
            spareCompletions = Self.emptied(&completions)
        }
        var snapshots: [(session: SessionState, version: Int, bytes: [UInt8]?, done: (@Sendable (Bool) -> Void)?)] = []
        var flushWaiters: [@Sendable () -> Void] = []
        var statisticsWaiters: [@Sendable (JournalStatistics) -> Void] = []
        var closing: (@Sendable () -> Void)?
        var created = false
        var parking: [(ids: [String], done: @Sendable ([ParkedSession?]) -> Void)] = []

        func touch(_ s: SessionState) {
            if !s.inGroup {
                s.inGroup = true
                s.lastUsedGroup = counters.groups
                s.sizeBeforeGroup = s.size
                s.lastVersionBeforeGroup = s.lastVersion
                s.maxVersionBeforeGroup = s.segments.last?.maxVersion
                touched.append(s)
            }
        }

        /// An append's records into its session's share of the group, or its refusal.
        func add<Records: RandomAccessCollection>(_ id: String, _ records: Records, _ done: Done)
            where Records.Element == (version: Int, bytes: [UInt8]) {
            guard let s = appendTarget(id) else {
                // Sessions are held only under ids checked when they were created or read, so
                // `Journal.append` leaves the check to an append that finds none.
                let error: JournalError = FileNames.isValidSessionID(id) ? .unknownSession(id) : .invalidSessionID(id)
                completions.append(.done(done, .failure(error)))
                return
            }
            if let reason = s.failure {
                completions.append(.done(done, .failure(.sessionFailed(id, reason: reason))))
                return
            }
            // No record and no snapshot yet (a new session, or one whose first append was
            // refused and undone): the meta record is version 0, so the first must be 1.
            // Without the `?? 0` an append queued behind a refused first one was written
            // after the gap, and the session never took an append again.
            if let error = validate(records, after: s.pendingLastVersion ?? s.lastVersion ?? 0, session: id) {
                completions.append(.done(done, .failure(error)))
                return
            }
            for (i, r) in records.enumerated() {
                Frame.append(kind: i == records.count - 1 ? .recordEnd : .recordMore, version: r.version, payload: r.bytes, to: &s.pending)
            }
            if let last = records.last { s.pendingLastVersion = last.version }
            counters.appends += 1
            counters.records += records.count
            touch(s)
            completions.append(.session(s, done))
        }

        for index in ops.indices {
            // Moved out, not copied (a copy retains its id, records and completion, and releases
            // them again): what an append holds that it no longer needs goes as the op ends.
            let op = Self.take(&ops[index])
            switch op {
            case .taken:
                continue

            case .create(let id, let meta, let callback):
                let done = Done.typed(callback)
                if sessions[id] != nil {
                    completions.append(.done(done, .failure(.sessionExists(id))))
                    continue
                }
                let s = SessionState(id: id, meta: meta, segments: [.init(seq: 1, maxVersion: nil)], size: 0, lastVersion: nil)
                do {
                    hold(try disk.openForAppend(FileNames.segment(id, 1), create: true), for: s)
                } catch .sessionExists {
                    completions.append(.done(done, .failure(.sessionExists(id))))
                    continue
                } catch {
                    completions.append(.done(done, .failure(error)))
                    continue
                }
                Frame.append(kind: .meta, version: 0, payload: meta, to: &s.pending)
                s.createdInGroup = true
                sessions[id] = s
                dirDirty = true
                created = true
                touch(s)
                completions.append(.session(s, done))

            case .append(let id, let records, let done):
                add(id, records, done)

            case .appendOne(let id, let record, let done):
                add(id, CollectionOfOne(record), done)

            case .snapshot(let id, let version, let bytes):
                if let s = sessions[id] { snapshots.append((s, version, bytes, nil)) } else { counters.snapshotFailures += 1 }

            case .installSnapshot(let id, let version, let written, let done):
                if written, let s = sessions[id] {
                    snapshots.append((s, version, nil, done))
                } else {
                    if written { disk.unlink(FileNames.snapshotTemp(id)) }
                    counters.snapshotFailures += 1
                    done(false)
                }

            case .delete(let id, let done):
                if let s = sessions.removeValue(forKey: id) { removeFiles(of: s) }
                completions.append(.signal(done))

            case .adopt(let found, let done):
                // What recovery read is what the server serves, and what later writes' group-end
                // frames claim: after a crash of the process alone it may be only in the page
                // cache, so it is synced first (with recovery's truncations). One `syncfs`.
                counters.syncCalls += 1
                let onDisk = (try? disk.syncFilesystem(dirFD)) != nil
                for f in found where sessions[f.id] == nil {
                    // Not on disk: claims would cover what recovery read, so none is made in that segment.
                    sessions[f.id] = SessionState(f, onDisk: onDisk)
                }
                completions.append(.signal(done))

            case .flush(let done):
                flushWaiters.append(done)

            case .files(let id, let done):
                let files = sessions[id].flatMap { s in
                    s.failure == nil && !s.deleted
                        ? SessionRecovery.Files(id: id, segments: s.segments.map(\.seq), snapshot: s.hasSnapshot) : nil
                }
                completions.append(.signal({ done(files) }))

            case .statistics(let done):
                statisticsWaiters.append(done)

            case .close(let done):
                closing = done

            case .park(let ids, let done):
                parking.append((ids, done))  // after the group's writes: one may be this session's

            case .reopen(let f, let done):
                guard sessions[f.id] == nil else {
                    completions.append(.signal({ done(false) }))
                    continue
                }
                // Parked only once a sync covered every write: what was read is on disk.
                sessions[f.id] = SessionState(f, onDisk: true)
                completions.append(.signal({ done(true) }))

            case .deleteParked(let id, let segments, let done):
                if let s = sessions.removeValue(forKey: id) {
                    removeFiles(of: s)
                } else {
                    removeFiles(id: id, segments: segments)
                }
                completions.append(.signal(done))
            }
        }

        writeGroup(touched)
        if policy == .always || (created && policy == .batch) {
            syncGroup(touched)
        } else if !touched.isEmpty {
            writtenSinceFlush = true
            batchSyncer?.markDirty(group: counters.groups)
        }

        for c in completions {
            switch c {
            case .session(let s, let done):
                if s.deleted { done(.failure(.unknownSession(s.id))) } else if let e = s.groupError { done(.failure(e)) } else { done(.success(())) }
            case .done(let done, let result):
                done(result)
            case .signal(let done):
                done()
            }
        }
        runAfterGroup()
        for s in touched {
            // Kept for the session's next group, up to a size worth keeping per session.
            s.pending.removeAll(keepingCapacity: s.pending.capacity <= 8 << 10)
            s.pendingLastVersion = nil
            s.groupError = nil
            s.createdInGroup = false
            s.inGroup = false
        }
        // A group may hold more descriptors than the budget while it runs; not past its end.
        noIdleHolder = false
        if holders.count > fdBudget { closeIdle() }

        for (s, version, bytes, done) in snapshots {
            let installed = snapshot(s, version: version, bytes: bytes)
            done?(installed)
        }
        if !statisticsWaiters.isEmpty {
            var c = counters
            if let b = batchSyncer?.counts { c.syncCalls += b.syncs; c.failedBackgroundSyncs = b.failures }
            c.sessions = sessions.count
            c.openFiles = holders.count
            c.bufferedBytes = sessions.values.reduce(0) { $0 + $1.pending.capacity }
            statisticsWaiters.forEach { $0(c) }
        }

        if !flushWaiters.isEmpty || closing != nil {
            syncAll()
            // Only what that sync made durable is sealed; then the seals are synced.
            if closing != nil, !writtenSinceFlush {
                seal()
                syncAll()
            }
            flushWaiters.forEach { $0() }
        }
        runAfterGroup()
        for (ids, done) in parking { done(ids.map(park)) }
        if let closing {
            for s in Array(holders.values) {
                // A stopped journal leaves files that end at their last record.
                try? trimPreallocation(s)
                release(s)
            }
            batchSyncer?.stop()
            disk.close(dirFD)
            closing()
            return false
        }
        return true
    }

    /// `sessions[id]`, through `lastAppended`.
    private func appendTarget(_ id: String) -> SessionState? {
        if let s = lastAppended, s.id == id { return s }
        lastAppended = sessions[id]
        return lastAppended
    }

    private func validate<Records: Collection>(_ records: Records, after last: Int, session: String) -> JournalError?
        where Records.Element == (version: Int, bytes: [UInt8]) {
        guard let first = records.first else { return nil }
        if records.contains(where: { $0.bytes.count > Frame.maxBody - 9 }) {
            return .io(operation: "append", path: FileNames.segment(session, 0), errno: EFBIG)
        }
        if first.version != last + 1 {
            return .versionOutOfOrder(session: session, expected: last + 1, got: first.version)
        }
        var previous = first.version
        for r in records.dropFirst() {
            if r.version != previous + 1 { return .versionOutOfOrder(session: session, expected: previous + 1, got: r.version) }
            previous = r.version
        }
        return nil
    }

    /// One `pwrite` per session, ended by a group-end frame that says how far the segment was
    /// settled before it (recovery's way to tell a torn write from damage); a failed write is cut
    /// back off so the file ends at its last complete record.
    ///
    /// Settled: under `always`, synced, which is everything before this write. Under `batch` and
    /// `never`, what a completed sync (background, flush, rotation) covers, so a power cut may
    /// tear every write after it and recovery still drops them as a torn tail.
    private func writeGroup(_ touched: [SessionState]) {
        for s in touched where !s.deleted && !s.pending.isEmpty {
            var settled = s.size
            if policy != .always {
                advanceSynced(s)
                settled = s.syncedSize
            }
            Frame.append(kind: .groupEnd, version: settled, payload: [], to: &s.pending)
            do {
                try ensureOpen(s)
                try preallocate(s, through: s.size + s.pending.count)
                try disk.write(s.fd, s.pending, at: s.size, name: s.currentSegmentName)
                s.size += s.pending.count
                s.sealed = false
                if policy != .always {
                    s.unsynced.append(group: counters.groups, size: s.size)
                }
                if let v = s.pendingLastVersion {
                    s.lastVersion = v
                    if !s.segments.isEmpty { s.segments[s.segments.count - 1].maxVersion = v }
                }
            } catch {
                s.groupError = error
                counters.failedWrites += 1
                undo(s)
            }
        }
    }

    /// Syncs the files written in this group, then the directory if it changed.
    private func syncGroup(_ touched: [SessionState]) {
        let targets = touched.filter { $0.groupError == nil && !$0.deleted && $0.fd >= 0 }
        sync(targets)
        for s in targets {
            if s.groupError != nil {
                counters.failedSyncs += 1
                undo(s)
            } else {
                s.syncedSize = s.size
                s.unsynced.removeAll()
            }
        }
    }

    /// The newest group a completed sync covers (`batch`'s background one, or a flush).
    private var syncedGroup: Int { max(batchSyncer?.syncedGroup ?? 0, flushedGroup) }
    /// The newest group written before a flush's successful sync.
    private var flushedGroup = 0
    /// Groups written between the last sync known good and a sync that failed here (a flush, a
    /// rotation): no claim may cover them.
    private var failedGroups = SyncFailures()

    /// The writes no claim may cover: the syncer's failures and the writer's own.
    private var failedWindow: SyncFailures {
        var window = failedGroups
        if let b = batchSyncer?.lostGroups { window.add(b) }
        return window
    }

    /// `batch`, `never`: moves `syncedSize` up to the newest write a completed sync covers. Never
    /// past a write made before a background sync failed: the kernel reports a lost writeback
    /// once, and a later sync that succeeds does not bring those bytes back. Until the next segment.
    private func advanceSynced(_ s: SessionState) {
        if s.claimsFrozen { return }
        let synced = syncedGroup
        let failed = failedWindow
        var covered = 0
        for write in s.unsynced {
            if write.group > synced { break }
            if failed.contains(write.group) {
                s.claimsFrozen = true
                break
            }
            s.syncedSize = write.size
            covered += 1
        }
        if covered > 0 { s.unsynced.removeFirst(covered) }
    }

    /// At close: a group-end frame after each segment's last write claims that write too (the
    /// sync that follows makes it true), so damage to it is told from a torn write after a clean
    /// stop. Best effort: a frame that cannot be written leaves that write unclaimed.
    private func seal() {
        for s in sessions.values where !s.sealed && !s.deleted && s.failure == nil && s.size > 0 {
            if policy != .always {
                advanceSynced(s)
                // A write the sync did not cover, or one no claim may cover, stays unclaimed.
                if s.claimsFrozen || !s.unsynced.isEmpty { continue }
            }
            // A descriptor closed as idle is reopened for the frame alone, so sealing thousands of
            // sessions never holds more descriptors than the budget; the sync after it is a `syncfs`.
            let reopened = s.fd < 0
            if reopened {
                guard let fd = try? disk.openForAppend(s.currentSegmentName, create: false) else { continue }
                s.fd = fd
            }
            defer {
                if reopened {
                    // Like the open ones at close: the file ends at its last record.
                    try? trimPreallocation(s)
                    disk.close(s.fd)
                    s.fd = -1
                }
            }
            var frame: [UInt8] = []
            Frame.append(kind: .groupEnd, version: s.size, payload: [], to: &frame)
            guard (try? disk.write(s.fd, frame, at: s.size, name: s.currentSegmentName)) != nil else { continue }
            s.size += frame.count
            s.allocated = max(s.allocated, s.size)
            s.sealed = true
            writtenSinceFlush = true
        }
    }

    private func sync(_ targets: [SessionState]) {
        var useSyncfs = false
        if case .syncfs(let threshold) = syncMode, targets.count >= threshold { useSyncfs = true }
        if useSyncfs {
            counters.syncCalls += 1
            do {
                try disk.syncFilesystem(dirFD)
                dirDirty = false  // syncfs committed the directory too
            } catch {
                for s in targets { s.groupError = error }
            }
        } else {
            for s in targets {
                counters.syncCalls += 1
                do { try disk.dataSync(s.fd, name: s.currentSegmentName) } catch { s.groupError = error }
            }
        }
        if dirDirty {
            counters.syncCalls += 1
            do {
                try disk.dataSync(dirFD, name: ".")
                dirDirty = false
            } catch {
                for s in targets where s.createdInGroup { s.groupError = error }
            }
        }
    }

    /// flush/close: everything written under batch/never, and pending directory changes, reach the disk.
    private func syncAll() {
        guard writtenSinceFlush || dirDirty else { return }
        counters.syncCalls += 1
        if (try? disk.syncFilesystem(dirFD)) != nil {
            writtenSinceFlush = false
            dirDirty = false
            flushedGroup = counters.groups
        } else {
            failedGroups.add(after: syncedGroup, through: counters.groups)
        }
    }

    /// Makes a refused append leave no trace: the file is cut back to its size before this group.
    /// A session that cannot be cut back refuses further appends (its tail may hold a refused record).
    private func undo(_ s: SessionState) {
        if s.createdInGroup {
            sessions[s.id] = nil
            s.deleted = true
            removeFiles(of: s)
            s.deleted = false  // completions still report the creation's own error
            return
        }
        s.pendingLastVersion = nil
        s.lastVersion = s.lastVersionBeforeGroup
        s.size = s.sizeBeforeGroup
        s.syncedSize = min(s.syncedSize, s.size)
        s.unsynced.removeAll { $0.size > s.size }
        if !s.segments.isEmpty { s.segments[s.segments.count - 1].maxVersion = s.maxVersionBeforeGroup }
        guard s.fd >= 0 else { return }
        do {
            try disk.truncate(s.fd, to: s.sizeBeforeGroup, name: s.currentSegmentName)
            s.allocated = s.sizeBeforeGroup
        } catch {
            s.failure = "could not undo a failed append (\(error)); restart to recover the session"
        }
    }

    /// Space written ahead of the records under `always`: zeros, synced with the next group.
    /// Overwriting bytes the file already has lets `fdatasync` skip the inode (the file's size
    /// does not change), so a sync costs less time and CPU. Recovery reads a zero tail as the end
    /// of the records.
    ///
    /// A session's first step is one page, and each step doubles the next up to this chunk, so the
    /// zeros a segment carries are at most about what its session has written: a whole chunk for
    /// every session held 2.5 GB of zeros for 10,000 sessions of one action each until shutdown.
    static let preallocationChunk = 256 << 10
    static let firstPreallocationStep = 4 << 10
    private static let zeros = [UInt8](repeating: 0, count: preallocationChunk)

    private func preallocate(_ s: SessionState, through end: Int) throws(JournalError) {
        guard policy == .always, end > s.allocated else { return }
        let step = s.preallocationStep
        let target = (end / step + 1) * step
        var offset = max(s.allocated, s.size)
        while offset < target {
            let count = min(Self.zeros.count, target - offset)
            try disk.write(s.fd, count == Self.zeros.count ? Self.zeros : Array(Self.zeros[..<count]), at: offset, name: s.currentSegmentName)
            offset += count
        }
        s.allocated = target
        // Kept across segments: a busy session's next segment starts at the step it reached.
        s.preallocationStep = min(Self.preallocationChunk, step * 2)
    }

    /// Cuts a segment's zero tail off (before it stops being the newest, and at close).
    private func trimPreallocation(_ s: SessionState) throws(JournalError) {
        guard s.allocated > s.size, s.fd >= 0 else { return }
        try disk.truncate(s.fd, to: s.size, name: s.currentSegmentName)
        s.allocated = s.size
    }

    private func ensureOpen(_ s: SessionState) throws(JournalError) {
        if s.fd >= 0 { return }
        hold(try disk.openForAppend(s.currentSegmentName, create: false), for: s)
        counters.reopenedFiles += 1
    }

    /// Gives `s` the descriptor `fd`, counted against the budget. Idle descriptors past it are
    /// closed first, so never `s`'s own (a snapshot's rotation opens outside any group, where
    /// `inGroup` does not protect it). Creations count too, or a server that creates many sessions
    /// would hold one descriptor each until `EMFILE`.
    private func hold(_ fd: Int32, for s: SessionState) {
        if holders.count >= fdBudget && !noIdleHolder { closeIdle() }
        s.fd = fd
        s.lastUsedGroup = counters.groups
        holders[s.id] = s
    }

    private func release(_ s: SessionState) {
        guard s.fd >= 0 else { return }
        disk.close(s.fd)
        s.fd = -1
        if holders[s.id] === s { holders[s.id] = nil }
        // The group buffer (up to 8 KiB kept) goes with the descriptor: idle sessions keep neither,
        // so 100,000 sessions hold at most the budget's worth. It is empty outside a group.
        s.pending = []
    }

    /// Closes descriptors of sessions outside the group being processed, down to half the budget,
    /// those used longest ago first, so a session written in every group keeps its descriptor
    /// while quiet ones give theirs up. The sort is over the holders (at most the budget) once per
    /// half a budget of opens.
    private func closeIdle() {
        let excess = holders.count - fdBudget / 2
        guard excess > 0 else { return }
        // Chosen first, released after: releasing while iterating would copy the whole dictionary.
        var idle = holders.values.filter { !$0.inGroup }
        if idle.isEmpty && !holders.isEmpty { noIdleHolder = true }
        if idle.count > excess {
            idle.sort { $0.lastUsedGroup < $1.lastUsedGroup }
            idle.removeLast(idle.count - excess)
        }
        for s in idle { release(s) }
    }

    private func removeFiles(of s: SessionState) {
        s.deleted = true
        release(s)
        removeFiles(id: s.id, segments: s.segments.map(\.seq))
    }

    private func removeFiles(id: String, segments: [Int]) {
        for seq in segments {
            disk.unlink(FileNames.segment(id, seq))
            disk.unlink(FileNames.tornCopy(id, seq))
        }
        disk.unlink(FileNames.snapshot(id))
        disk.unlink(FileNames.snapshotPrevious(id))
        disk.unlink(FileNames.snapshotCorrupt(id))
        disk.unlink(FileNames.snapshotTemp(id))
        dirDirty = true
    }

    /// Drops `id`'s state when every write of it is on disk: its descriptor closed (the zero tail
    /// cut off first, so the file ends at its last record, as `reopen` expects), the state gone.
    /// Nil, and nothing changed, when it is unknown, failed, or a sync has not covered a write.
    private func park(_ id: String) -> ParkedSession? {
        guard let s = sessions[id], !s.deleted, s.failure == nil, !s.inGroup,
              let first = s.segments.first?.seq, let last = s.segments.last?.seq,
              let firstSegment = UInt32(exactly: first), let lastSegment = UInt32(exactly: last) else { return nil }
        if policy != .always {
            advanceSynced(s)
            guard !s.claimsFrozen, s.unsynced.isEmpty, s.syncedSize == s.size else { return nil }
        }
        if s.fd >= 0, (try? trimPreallocation(s)) == nil { return nil }
        release(s)
        sessions[id] = nil
        return ParkedSession(firstSegment: firstSegment, lastSegment: lastSegment)
    }

    // MARK: - Snapshots and compaction

    /// Writes the snapshot atomically (temp file, fsync, rename, directory fsync), starts a new segment,
    /// then deletes the segments the *previous* snapshot covers: that one becomes `<id>.snap.prev`,
    /// and it plus the segments after it stay a complete way back should the new one be damaged
    /// (recovery falls back to it). Always synced whatever the policy: compaction deletes records,
    /// so the snapshots replacing them must be on disk first.
    /// `bytes` nil: the temp file is already written and synced (`writeSnapshotTemp`).
    /// True when the snapshot is in place (or one at `version` already was).
    @discardableResult
    private func snapshot(_ s: SessionState, version: Int, bytes: [UInt8]?) -> Bool {
        let temp = FileNames.snapshotTemp(s.id)
        // Still the session of that id: a creation refused in this group was undone (and a
        // `<id>.snap` left for it would be read as the state of a later session of that id).
        guard sessions[s.id] === s, !s.deleted, s.failure == nil else {
            if bytes == nil { disk.unlink(temp) }
            return false
        }
        if let last = s.lastVersion, version > last {
            counters.snapshotFailures += 1
            if bytes == nil { disk.unlink(temp) }
            return false
        }
        // An older snapshot would become the newest while compaction deletes what it needs.
        if let current = s.snapshotVersion, version <= current {
            if version < current { counters.snapshotFailures += 1 }
            if bytes == nil { disk.unlink(temp) }
            return version == current
        }
        // Segments up to the replaced snapshot's version are covered by both; the ones after it
        // are the previous snapshot's way forward.
        let replaced = s.snapshotVersion
        do {
            if let bytes { try writeTemp(temp, version: version, bytes: bytes) }
            if s.hasSnapshot {
                // A crash between the two renames leaves `.prev` and the temp file: recovery starts
                // from `.prev`, whose records are all still there.
                try disk.rename(FileNames.snapshot(s.id), FileNames.snapshotPrevious(s.id))
                s.hasSnapshot = false
            }
            try disk.rename(temp, FileNames.snapshot(s.id))
            s.hasSnapshot = true
            s.snapshotVersion = version
            try disk.dataSync(dirFD, name: ".")
            counters.syncCalls += 3
        } catch {
            disk.unlink(temp)
            counters.snapshotFailures += 1
            return false
        }
        if s.lastVersion == nil { s.lastVersion = version }
        do {
            try rotate(s)
        } catch {
            counters.snapshotFailures += 1
            return false
        }
        var kept: [SessionState.Segment] = []
        for (i, seg) in s.segments.enumerated() {
            if let replaced, i < s.segments.count - 1, (seg.maxVersion ?? Int.min) <= replaced {
                disk.unlink(FileNames.segment(s.id, seg.seq))
                disk.unlink(FileNames.tornCopy(s.id, seg.seq))
                dirDirty = true
            } else {
                kept.append(seg)
            }
        }
        s.segments = kept
        counters.snapshots += 1
        return true
    }

    /// Writes and syncs `<id>.snap.tmp`; any thread may call it (`Disk` is thread-safe), and the
    /// caller sees to it that no two writes of one session's temp file overlap.
    func writeSnapshotTemp(id: String, version: Int, bytes: [UInt8]) -> Bool {
        let temp = FileNames.snapshotTemp(id)
        do {
            try writeTemp(temp, version: version, bytes: bytes)
            return true
        } catch {
            disk.unlink(temp)
            return false
        }
    }

    private func writeTemp(_ temp: String, version: Int, bytes: [UInt8]) throws(JournalError) {
        // The header, then the bytes where they are: a large state is not copied into a frame.
        let header = Frame.header(kind: .snapshot, version: version, payload: bytes)
        let fd = try disk.openTruncating(temp)
        do {
            try disk.write(fd, header, at: 0, name: temp)
            try disk.write(fd, bytes, at: header.count, name: temp)
            try disk.dataSync(fd, name: temp)
        } catch {
            disk.close(fd)
            throw error
        }
        disk.close(fd)
    }

    /// Closes the current segment (synced, so only the newest segment can ever have a torn tail) and
    /// starts the next one with the meta record, durable before any older segment is deleted.
    private func rotate(_ s: SessionState) throws(JournalError) {
        guard let current = s.segments.last, current.maxVersion != nil else { return }
        try ensureOpen(s)
        try trimPreallocation(s)
        do {
            try disk.dataSync(s.fd, name: s.currentSegmentName)
        } catch {
            // The segment goes on; what it holds may not be on disk, so no claim passes it.
            s.claimsFrozen = true
            throw error
        }
        let seq = current.seq + 1
        let name = FileNames.segment(s.id, seq)
        let fd = try disk.openForAppend(name, create: true)
        var head: [UInt8] = []
        Frame.append(kind: .meta, version: 0, payload: s.meta, to: &head)
        do {
            try disk.write(fd, head, at: 0, name: name)
            try disk.dataSync(fd, name: name)
            try disk.dataSync(dirFD, name: ".")
            counters.syncCalls += 3
        } catch {
            disk.close(fd)
            disk.unlink(name)
            throw error
        }
        disk.close(s.fd)
        s.fd = fd
        s.size = head.count
        s.allocated = head.count
        s.syncedSize = head.count
        s.unsynced.removeAll()
        s.claimsFrozen = false
        s.segments.append(.init(seq: seq, maxVersion: nil))
    }
}
