import Synchronization

/// One client connection. Owned by exactly one event loop and touched only on its thread, except
/// `fd` and `handoff`: the loop may lend the socket to the thread that answers the current request
/// (`EventLoop+DirectAnswer.swift`).
///
/// Its buffers, parser and timer are `@exclusivity(unchecked)`: only the owning loop's thread
/// touches them, one access at a time, and no access to them calls out while it is open; the
/// runtime's check of each access for overlap cost ~4% of a request's instructions.
final class Connection {
    let fd: Int32
    @exclusivity(unchecked) var parser: HTTPRequestParser
    /// Bytes read but not consumed by the parser (a partial line, or pipelined requests waiting).
    @exclusivity(unchecked) var inbound: [UInt8] = []
    @exclusivity(unchecked) var outbound = OutboundQueue()
    @exclusivity(unchecked) var timer: ConnectionTimer
    /// Incremented per dispatched request; a late answer for an older one is ignored.
    var sequence: UInt64 = 0
    /// A request is with the handler and not yet answered.
    var awaiting = false
    var currentIsHead = false
    var currentKeepAlive = true
    var currentIsHTTP10 = false
    var stream: HTTPStream?
    var streamCloses = false
    /// The peer sent FIN: no more requests, but pending answers still go out (half-close).
    var readClosed = false
    var closeAfterFlush = false
    var lingering = false
    var closed = false
    /// Inside `processInput`: a synchronous answer only appends, the caller flushes.
    var processing = false
    var registeredEvents: UInt32 = 0
    /// The socket lent for an answer from another thread (`DirectAnswer`): `sequence << 4 | flags`.
    let handoff = Atomic<UInt64>(0)
    /// This loop lent the socket and has not taken it back (its own copy, read without an atomic).
    var armed = false
    /// Shutdown read what was waiting in the socket before closing it (once: `EventLoop.service`).
    var readAtShutdown = false
    /// Counted against `maxConnections` (a refused connection is not).
    var counted = true
    /// Beyond `maxConnections`: one request is read, answered only if it is for a probe path.
    var probeOnly = false

    init(fd: Int32, limits: HTTPParserLimits, now: Int64) {
        self.fd = fd
        self.parser = HTTPRequestParser(limits: limits)
        self.timer = ConnectionTimer(now: now)
    }

    /// No request in progress and nothing to send: safe to close at shutdown or idle timeout.
    var isIdle: Bool {
        !awaiting && stream == nil && outbound.isEmpty && inbound.isEmpty && parser.phase == .idle
    }
}

/// Carries a connection through the loop's inbox; dereferenced only on the owning loop's thread,
/// except for `fd` and `handoff` by the thread the socket is lent to.
struct ConnectionRef: @unchecked Sendable {
    let connection: Connection
}
