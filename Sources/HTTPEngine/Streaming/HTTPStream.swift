import Synchronization

/// Bytes to send on many streams, framed once: a fan-out builds one per event and every stream
/// queues the same arrays (no per-stream copy, framing or allocation).
public struct SharedChunk: Sendable {
    /// The bytes as given (what an HTTP/1.0 close-delimited stream sends).
    public let bytes: [UInt8]
    /// The same bytes as one HTTP/1.1 chunk (RFC 9112 §7.1: chunk-size CRLF chunk-data CRLF).
    let framed: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        framed = SharedChunk.frame(bytes)
    }

    static func frame(_ bytes: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 12)
        ResponseEncoder.appendHex(bytes.count, to: &out)
        out.append(0x0D); out.append(0x0A)
        out.append(contentsOf: bytes)
        out.append(0x0D); out.append(0x0A)
        return out
    }
}

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
        /// Ready to go on the wire: already framed as chunks on an HTTP/1.1 stream.
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

    /// The bytes this stream puts on the wire for `chunk`.
    @inline(__always)
    private func wire(_ chunk: SharedChunk) -> [UInt8] { chunked ? chunk.framed : chunk.bytes }

    /// Queues one chunk (framed here on an HTTP/1.1 stream; to send the same bytes on many streams,
    /// frame them once with `SharedChunk`). False once the client is gone or the stream finished.
    /// Past `maxStreamBufferBytes` unsent the stream is closed (client not reading).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        write(SharedChunk(bytes))
    }

    /// Queues a chunk framed once for many streams (O(1): the array is shared, not copied).
    @discardableResult
    public func write(_ chunk: SharedChunk) -> Bool {
        let bytes = wire(chunk)
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
    public func write(_ chunk: SharedChunk, ifPendingAtMost bound: Int) -> BoundedWrite {
        let bytes = wire(chunk)
        let (result, schedule, overflow) = state.withLock { s -> (BoundedWrite, Bool, Bool) in
            guard !s.closed && !s.finishRequested else { return (.refused, false, false) }
            if bytes.isEmpty { return (.queued, false, false) }
            let pending = s.queuedBytes + s.inflightBytes
            if pending + bytes.count > bound { return (.overBound, false, false) }
            if pending + bytes.count > maxBufferedBytes { return (.refused, false, true) }
            s.queue.append(bytes)
            s.queuedBytes += bytes.count
            let schedule = !s.pullScheduled
            s.pullScheduled = true
            return (.queued, schedule, false)
        }
        if overflow { loop.enqueue(.closeStream(connection, self)) }
        if schedule { loop.enqueue(.streamReady(connection, self)) }
        return result
    }

    /// Bytes queued or handed to the loop but not yet accepted by the socket (chunk framing included).
    public var pendingBytes: Int {
        state.withLock { $0.queuedBytes + $0.inflightBytes }
    }

    /// Whether the client is gone or the stream ended.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Drops every queued chunk the loop has not started to send and queues `bytes` instead
    /// (the slow-subscriber rule: a fresh snapshot replaces a backlog of changes).
    public func replacePending(with chunk: [UInt8]) {
        let bytes = chunked ? SharedChunk.frame(chunk) : chunk
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

    /// Takes up to `limit` bytes of queued chunks, ready for the wire (framed on HTTP/1.1);
    /// `finish` says the last chunk may follow them.
    func take(limit: Int) -> (chunks: [[UInt8]], finish: Bool) {
        state.withLock { s in
            if s.queuedBytes <= limit || s.queue.count == 1 {
                // The usual case: everything; hand over the queue itself rather than copying it.
                let taken = s.queue
                s.queue = []
                s.inflightBytes += s.queuedBytes
                s.queuedBytes = 0
                s.pullScheduled = false
                return (taken, s.finishRequested)
            }
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
