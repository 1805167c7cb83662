import Synchronization

/// One client connection. Owned by exactly one event loop and touched only on its thread, except
/// `fd` and `handoff`: the loop may lend the socket to the thread that answers the current request
/// (`EventLoop+DirectAnswer.swift`).
///
/// Its buffers, parser and state are `@exclusivity(unchecked)`: only the owning loop's thread
/// touches them, one access at a time, and no access to them calls out while it is open; the
/// runtime's check of each access for overlap cost ~4% of a request's instructions.
final class Connection {
    let fd: Int32
    @exclusivity(unchecked) var parser: HTTPRequestParser
    /// Bytes read but not consumed by the parser (a partial line, or pipelined requests waiting).
    @exclusivity(unchecked) var inbound: [UInt8] = []
    @exclusivity(unchecked) var outbound = OutboundQueue()
    /// Where the connection is in its lifecycle, and its deadline clock.
    @exclusivity(unchecked) var state: ConnectionState
    /// The streaming answer going out: set exactly while `state.phase` is `streaming`, by the
    /// transitions below that move the phase in and out of it.
    private(set) var stream: HTTPStream?
    var registeredEvents: UInt32 = 0
    /// The socket lent for an answer from another thread (`DirectAnswer`): `sequence << 4 | flags`.
    let handoff = Atomic<UInt64>(0)

    init(fd: Int32, limits: HTTPParserLimits, now: Int64, facts: ConnectionState.Facts = .init()) {
        self.fd = fd
        self.parser = HTTPRequestParser(limits: limits)
        self.state = ConnectionState(now: now, facts: facts)
    }

    /// The awaited answer is `stream`: awaiting → streaming.
    func startStreaming(_ stream: HTTPStream, closes: Bool) {
        self.stream = stream
        state.startStreaming(closes: closes)
    }

    /// The stream's last chunk is queued: reading the next request, or closing after it.
    func streamEnded() {
        stream = nil
        state.streamEnded()
    }

    /// The write side is shut (`ConnectionState.startLingering`); returns the stream still open,
    /// if any, for the caller to close.
    func startLingering(now: Int64) -> HTTPStream? {
        defer { stream = nil }
        state.startLingering(now: now)
        return stream
    }

    /// The descriptor is closed (`ConnectionState.close`); returns the stream still open, if any,
    /// for the caller to close.
    func close() -> HTTPStream? {
        defer { stream = nil }
        state.close()
        return stream
    }

    /// No request in progress and nothing to send: safe to close at shutdown or idle timeout.
    var isIdle: Bool {
        !state.isAwaiting && stream == nil && outbound.isEmpty && inbound.isEmpty && parser.phase == .idle
    }
}
