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
        var queue: [[UInt8]] = []
        var queuedBytes = 0
        /// Taken by the loop but not yet accepted by the socket.
        var inflightBytes = 0
        var finishRequested = false
        var closed = false
        var pullScheduled = false
        var shutdownSignaled = false
        var onClose: [@Sendable () -> Void] = []
        var onShutdown: [@Sendable () -> Void] = []
        var onDrain: [@Sendable () -> Void] = []
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

    /// Queues one chunk (O(1); the array is shared, not copied). False once the client is gone or
    /// the stream finished. Past `maxStreamBufferBytes` unsent the stream is closed (client not reading).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        // An empty chunk would be read as the last-chunk (RFC 9112 §7.1).
        let (accepted, schedule, overflow) = state.withLock { s -> (Bool, Bool, Bool) in
            guard !s.closed && !s.finishRequested else { return (false, false, false) }
            if bytes.isEmpty { return (true, false, false) }
            if s.queuedBytes + s.inflightBytes + bytes.count > maxBufferedBytes { return (false, false, true) }
            s.queue.append(bytes)
            s.queuedBytes += bytes.count
            let schedule = !s.pullScheduled
            s.pullScheduled = true
            return (true, schedule, false)
        }
        if overflow { loop.enqueue(.closeStream(connection, self)) }
        if schedule { loop.enqueue(.streamReady(connection, self)) }
        return accepted
    }

    /// Bytes queued or handed to the loop but not yet accepted by the socket.
    public var pendingBytes: Int {
        state.withLock { $0.queuedBytes + $0.inflightBytes }
    }

    /// Whether the client is gone or the stream ended.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Drops every queued chunk the loop has not started to send and queues `bytes` instead
    /// (the slow-subscriber rule: a fresh snapshot replaces a backlog of changes).
    public func replacePending(with bytes: [UInt8]) {
        let schedule = state.withLock { s -> Bool in
            guard !s.closed && !s.finishRequested else { return false }
            s.queue = bytes.isEmpty ? [] : [bytes]
            s.queuedBytes = bytes.count
            let schedule = !s.pullScheduled && !bytes.isEmpty
            if schedule { s.pullScheduled = true }
            return schedule
        }
        if schedule { loop.enqueue(.streamReady(connection, self)) }
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

    /// Takes up to `limit` bytes of queued chunks; `finish` says the last chunk may follow them.
    func take(limit: Int) -> (chunks: [[UInt8]], finish: Bool) {
        state.withLock { s in
            var taken: [[UInt8]] = []
            var bytes = 0
            var i = 0
            while i < s.queue.count && (bytes < limit || taken.isEmpty) {
                bytes += s.queue[i].count
                taken.append(s.queue[i])
                i += 1
            }
            if i == s.queue.count { s.queue = [] } else { s.queue.removeFirst(i) }
            s.queuedBytes -= bytes
            s.inflightBytes += bytes
            let done = s.queue.isEmpty
            if done { s.pullScheduled = false }
            return (taken, done && s.finishRequested)
        }
    }

    /// The socket accepted everything taken so far.
    func sent() {
        let drained = state.withLock { s -> [@Sendable () -> Void] in
            s.inflightBytes = 0
            guard s.queuedBytes == 0, !s.onDrain.isEmpty else { return [] }
            let waiters = s.onDrain
            s.onDrain = []
            return waiters
        }
        for body in drained { body() }
    }

    /// Marks the stream closed and runs `onClose` (once).
    func closeFromLoop() {
        let (closeHandlers, drainHandlers) = state.withLock { s -> ([@Sendable () -> Void], [@Sendable () -> Void]) in
            guard !s.closed else { return ([], []) }
            s.closed = true
            s.queue = []
            s.queuedBytes = 0
            s.inflightBytes = 0
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
