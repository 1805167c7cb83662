import Synchronization

/// A streaming response body the server pushes chunks into from any thread (SSE).
///
/// ```swift
/// let stream = responder.startStream(status: 200, headers: ["Content-Type": "text/event-stream"])
/// stream.onClose { unsubscribe() }
/// stream.onShutdown { _ = stream.write(Array("event: end\n\n".utf8)); stream.finish() }
/// _ = stream.write(Array("data: hi\n\n".utf8))
/// ```
public final class HTTPStream: Sendable {
    struct State {
        /// Whole chunks, each as its wire segments (so a partial take never splits one).
        var queue: [Wire] = []
        var queuedBytes = 0
        var finishRequested = false
        var closed = false
        var pullScheduled = false
        var shutdownSignaled = false
        var onClose: [@Sendable () -> Void] = []
        var onShutdown: [@Sendable () -> Void] = []
        var onDrain: [@Sendable () -> Void] = []
        /// Positions in the stream's bytes (dropped chunks excluded): the end of what was queued,
        /// of what the loop took, and of what the socket certainly accepted.
        var writtenTotal = 0
        var takenTotal = 0
        var acceptedTotal = 0
        /// Taken by the loop but not yet accepted by the socket.
        var inflightBytes: Int { takenTotal - acceptedTotal }

        mutating func append(_ w: Wire) {
            guard !w.body.isEmpty else { return }
            queue.append(w)
            queuedBytes += w.count
            writtenTotal += w.count
        }

        /// Forgets the queued chunks, which then never had a position.
        mutating func dropQueued() {
            writtenTotal -= queuedBytes
            queue = []
            queuedBytes = 0
        }
    }

    let loop: EventLoop
    let connection: ConnectionRef
    /// HTTP/1.1 frames each write as a chunk; HTTP/1.0 streams raw bytes until close.
    let chunked: Bool
    let maxBufferedBytes: Int
    private let state = Mutex(State())

    init(loop: EventLoop, connection: ConnectionRef, chunked: Bool, maxBufferedBytes: Int) {
        self.loop = loop
        self.connection = connection
        self.chunked = chunked
        self.maxBufferedBytes = maxBufferedBytes
    }

    /// One chunk as the segments that go on the wire; the caller's array is never copied.
    struct Wire {
        /// `chunk-size CRLF` when the framing is added here around `body` (then CRLF follows it).
        var head: [UInt8]?
        var body: [UInt8]
        var count: Int { body.isEmpty ? 0 : body.count + (head.map { $0.count + 2 } ?? 0) }
    }

    /// The caller's bytes, framed around (not copied) on an HTTP/1.1 stream.
    private func wire(_ bytes: [UInt8]) -> Wire {
        guard chunked && !bytes.isEmpty else { return Wire(head: nil, body: bytes) }
        var head: [UInt8] = []
        head.reserveCapacity(12)
        ResponseEncoder.appendHex(bytes.count, to: &head)
        head.append(0x0D); head.append(0x0A)
        return Wire(head: head, body: bytes)
    }

    /// A chunk framed once for every stream: one shared segment.
    private func wire(_ chunk: SharedChunk) -> Wire {
        Wire(head: nil, body: chunked ? chunk.framed : chunk.bytes)
    }

    /// Queues one chunk (O(1); the array is shared, not copied). False once the client is gone or
    /// the stream finished. Past `maxStreamBufferBytes` unsent the stream is closed (client not reading).
    /// To send the same bytes on many streams, frame them once with `SharedChunk`.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        enqueue(wire(bytes), bound: nil) == .queued
    }

    /// Queues a chunk framed once for many streams (O(1): the array is shared, not copied).
    @discardableResult
    public func write(_ chunk: SharedChunk) -> Bool {
        enqueue(wire(chunk), bound: nil) == .queued
    }

    /// What `write(_:ifPendingAtMost:)` did.
    public enum BoundedWrite: Sendable, Equatable {
        /// Queued (or empty, nothing to queue).
        case queued
        /// Not queued: the bytes not yet on the socket plus these would pass the bound.
        case overBound
        /// Not queued: the client is gone, the stream finished, or `maxStreamBufferBytes` was passed (the stream closes).
        case refused
    }

    /// `write`, unless the bytes not yet accepted by the socket plus this chunk would pass `bound`:
    /// the check and the append take the stream's lock once (a fan-out does this per subscriber).
    /// With nothing queued (bytes the loop is sending aside) the chunk is queued whatever its size:
    /// the bound is on falling behind.
    public func write(_ chunk: SharedChunk, ifPendingAtMost bound: Int) -> BoundedWrite {
        enqueue(wire(chunk), bound: bound)
    }

    private func enqueue(_ w: Wire, bound: Int?) -> BoundedWrite {
        let (result, needsPull) = queue(w, bound: bound)
        if needsPull { loop.enqueue(.streamReady(connection, self)) }
        return result
    }

    /// `write(_:ifPendingAtMost:)` for `StreamFanOut`: says whether the loop must come and pull,
    /// and leaves the waking to the caller.
    func enqueueDeferringWakeup(_ chunk: SharedChunk, bound: Int) -> (BoundedWrite, needsPull: Bool) {
        queue(wire(chunk), bound: bound)
    }

    /// Queues under the lock; `needsPull` when the loop is not already due to come for this stream.
    private func queue(_ w: Wire, bound: Int?) -> (BoundedWrite, needsPull: Bool) {
        let count = w.count
        // An empty chunk would be read as the last-chunk (RFC 9112 §7.1).
        let (result, schedule, overflow) = state.withLock { s -> (BoundedWrite, Bool, Bool) in
            guard !s.closed && !s.finishRequested else { return (.refused, false, false) }
            if count == 0 { return (.queued, false, false) }
            let pending = s.queuedBytes + s.inflightBytes
            // A stream with nothing queued is not behind, whatever the size of what comes next. The
            // bytes in flight do not say otherwise: the loop marks them accepted only after its
            // send returns, and by then the client may have read them and asked for the next change.
            if let bound, s.queuedBytes > 0, pending + count > bound { return (.overBound, false, false) }
            if pending + count > maxBufferedBytes { return (.refused, false, true) }
            s.append(w)
            let schedule = !s.pullScheduled
            s.pullScheduled = true
            return (.queued, schedule, false)
        }
        if overflow { loop.enqueue(.closeStream(connection, self)) }
        return (result, schedule)
    }

    /// Bytes queued and not yet taken by the loop (the part of `pendingBytes` that is not in flight).
    var queuedBytes: Int { state.withLock { $0.queuedBytes } }

    /// Bytes queued or handed to the loop but not yet accepted by the socket (chunk framing included).
    public var pendingBytes: Int {
        state.withLock { $0.queuedBytes + $0.inflightBytes }
    }

    /// How far the stream has got, in bytes since it started (chunk framing included, dropped
    /// chunks excluded): the end of everything written so far, and how much of that the socket
    /// has certainly accepted. A writer can note where something it wrote ends and later tell
    /// whether it is gone (the SSE bound lets a snapshot pass until then).
    public var progress: (written: Int, accepted: Int) {
        state.withLock { ($0.writtenTotal, $0.acceptedTotal) }
    }

    /// Whether the client is gone or the stream ended.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Drops every queued chunk the loop has not started to send and queues `bytes` instead
    /// (the slow-subscriber rule: a fresh snapshot replaces a backlog of changes).
    public func replacePending(with bytes: [UInt8]) {
        replace(wire(bytes))
    }

    /// `replacePending` with a chunk framed once for several streams.
    public func replacePending(with chunk: SharedChunk) {
        replace(wire(chunk))
    }

    private func replace(_ w: Wire) {
        let schedule = state.withLock { s -> Bool in
            guard !s.closed && !s.finishRequested else { return false }
            s.dropQueued()
            s.append(w)
            let schedule = !s.pullScheduled && s.queuedBytes > 0
            if schedule { s.pullScheduled = true }
            return schedule
        }
        if schedule { loop.enqueue(.streamReady(connection, self)) }
    }

    /// Drops every queued chunk the loop has not started to send, like `replacePending`, and runs
    /// `body` on the loop once the socket has accepted what the loop had already taken: for a
    /// client that stopped reading, only when it reads again. A replacement is then built from
    /// what is newest by then, not at every write while the client stays stalled. Never runs `body`
    /// on the calling thread, so the caller may hold a lock that `body` takes. A stream that closes
    /// first runs it at its close (check `isClosed`); a finishing one keeps its queue and never runs it.
    ///
    /// ```swift
    /// stream.dropPending { [weak session] in session?.sendSnapshot(to: key) }
    /// ```
    public func dropPending(thenWhenDrained body: @escaping @Sendable () -> Void) {
        let checkNow = state.withLock { s -> Bool in
            guard !s.closed && !s.finishRequested else { return false }
            s.dropQueued()
            s.onDrain.append(body)
            return s.inflightBytes == 0
        }
        if checkNow { loop.enqueue(.drainCheck(self)) }
    }

    /// Sends what is queued, then the last chunk; the connection then serves its next request (or closes in 1.0).
    public func finish() {
        let schedule = state.withLock { s -> Bool in
            guard !s.closed && !s.finishRequested else { return false }
            s.finishRequested = true
            let schedule = !s.pullScheduled
            s.pullScheduled = true
            return schedule
        }
        if schedule { loop.enqueue(.streamReady(connection, self)) }
    }

    /// Runs once when the client goes away (EOF or error) or the stream ends; at once if it already has.
    /// Called on an I/O thread: do not block.
    public func onClose(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.closed { return true }
            s.onClose.append(body)
            return false
        }
        if runNow { body() }
    }

    /// Runs once when graceful shutdown begins: send the last bytes, then `finish()`. At once if it has begun.
    public func onShutdown(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.shutdownSignaled && !s.closed { return true }
            if s.closed { return false }
            s.onShutdown.append(body)
            return false
        }
        if runNow { body() }
    }

    /// Runs once, the next time nothing is pending (at once if nothing is): the buffer drained.
    public func onDrain(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.queuedBytes + s.inflightBytes == 0 || s.closed { return true }
            s.onDrain.append(body)
            return false
        }
        if runNow { body() }
    }

    // MARK: loop side (called on the owning loop's thread)

    /// Takes whole queued chunks, up to about `limit` bytes (at least one), as the segments that go
    /// on the wire (framed on HTTP/1.1); `finish` says the last chunk may follow them.
    func take(limit: Int) -> (chunks: [[UInt8]], finish: Bool) {
        state.withLock { s in
            // The loop takes only once the socket has accepted everything it took before.
            s.acceptedTotal = s.takenTotal
            var taken: [[UInt8]] = []
            taken.reserveCapacity(s.queue.count == 1 && s.queue[0].head == nil ? 1 : min(s.queue.count * 3, 64))
            var bytes = 0
            var i = 0
            while i < s.queue.count && (bytes < limit || taken.isEmpty) {
                let w = s.queue[i]
                bytes += w.count
                if let head = w.head {
                    taken.append(head)
                    taken.append(w.body)
                    taken.append(ResponseEncoder.crlf)
                } else {
                    taken.append(w.body)
                }
                i += 1
            }
            if i < s.queue.count {
                s.queue.removeFirst(i)
            } else if s.queue.capacity <= 8 {
                s.queue.removeAll(keepingCapacity: true)  // no allocation for the next chunk
            } else {
                s.queue = []
            }
            s.queuedBytes -= bytes
            s.takenTotal += bytes
            let done = s.queue.isEmpty
            if done { s.pullScheduled = false }
            return (taken, done && s.finishRequested)
        }
    }

    /// The socket accepted everything taken so far.
    func sent() {
        let drained = state.withLock { s -> [@Sendable () -> Void] in
            s.acceptedTotal = s.takenTotal
            return Self.takeDrainWaiters(&s)
        }
        for body in drained { body() }
    }

    /// Runs the drain waiters if nothing is queued or in flight (else the next `sent` will).
    func runDrainWaitersIfIdle() {
        for body in state.withLock({ Self.takeDrainWaiters(&$0) }) { body() }
    }

    private static func takeDrainWaiters(_ s: inout State) -> [@Sendable () -> Void] {
        guard s.queuedBytes + s.inflightBytes == 0, !s.onDrain.isEmpty else { return [] }
        defer { s.onDrain = [] }
        return s.onDrain
    }

    /// Marks the stream closed and runs `onClose` (once).
    func closeFromLoop() {
        let (closeHandlers, drainHandlers) = state.withLock { s -> ([@Sendable () -> Void], [@Sendable () -> Void]) in
            guard !s.closed else { return ([], []) }
            s.closed = true
            s.queue = []
            s.queuedBytes = 0
            s.acceptedTotal = s.takenTotal
            let handlers = (s.onClose, s.onDrain)
            s.onClose = []
            s.onShutdown = []
            s.onDrain = []
            return handlers
        }
        for body in drainHandlers { body() }
        for body in closeHandlers { body() }
    }

    func signalShutdown() {
        let handlers = state.withLock { s -> [@Sendable () -> Void] in
            guard !s.closed && !s.shutdownSignaled else { return [] }
            s.shutdownSignaled = true
            let handlers = s.onShutdown
            s.onShutdown = []
            return handlers
        }
        for body in handlers { body() }
    }
}
