/// The lifecycle of one connection as a state machine: one phase at a time, the facts that hold
/// across phases beside it, and the deadline clock (``ConnectionTimer``) it drives. The event loop
/// does the I/O and asks this value what may happen next; every change of phase is one of the
/// transitions below, so the lifecycle reads in one place and is tested without a socket
/// (`ConnectionStateTests`). A plain value (no references): the loop reads it several times a
/// request, and a read is a load, not a copy to retain. The stream object itself is the
/// connection's (`Connection.startStreaming`), there exactly while the phase is `streaming`.
///
/// ```
///            dispatch            answered(closes: false)
///  reading ───────────▶ awaiting ─────────────────────▶ reading
///     │ refused()          │ startStreaming             ▲
///     │                    ▼                            │ streamEnded (keep-alive)
///     │                streaming ───────────────────────┘
///     ▼                    │ streamEnded (closes)
///  closingAfterFlush ◀─────┘ ◀── answered(closes: true)
///     │ startLingering(now:)                  any phase ── close() ──▶ closed
///     ▼
///  lingering
/// ```
///
/// ```swift
/// var state = ConnectionState(now: 0)
/// let sequence = state.dispatch(AnswerFraming(omitBody: false, keepAlive: true, http10: false))
/// state.awaitedFraming(sequence)    // its framing: the handler has the request
/// state.answered(closes: false)     // back to reading the next request
/// state.awaitedFraming(sequence)    // nil: a second answer to it is dropped
/// ```
struct ConnectionState {
    enum Phase: UInt8 {
        /// Reading (or waiting for) the next request; answers already queued may still be going out.
        case reading
        /// A request is with the handler and not answered yet (`awaitedFraming`: how it was read).
        case awaiting
        /// A streaming answer is going out (`Connection.stream`); it may close the connection after its
        /// last chunk (HTTP/1.0's close-delimited body, or `Connection: close`).
        case streaming
        /// The last answer is queued: no more requests are read; once it is flushed the
        /// connection starts lingering.
        case closingAfterFlush
        /// Answer sent, write side shut, draining the client's leftovers before close (RFC 9112 §9.6).
        case lingering
        /// The descriptor is closed; nothing more happens.
        case closed
    }

    /// What holds whatever the phase.
    struct Facts {
        /// The peer sent FIN: no more requests, but pending answers still go out (half-close).
        var readClosed = false
        /// Counted against `maxConnections` (a refused connection is not).
        var counted = true
        /// Beyond `maxConnections`: one request is read, answered only if it is for a probe path.
        var probeOnly = false
        /// The loop lent the socket for the awaited answer (`EventLoop+DirectAnswer.swift`) and
        /// has not taken it back (its own copy of `Connection.handoff`, read without an atomic).
        var lent = false
        /// Inside `processInput`: a synchronous answer only appends, the caller flushes.
        var processing = false
        /// Shutdown read what was waiting in the socket before closing it (once: `EventLoop.service`).
        var readAtShutdown = false
    }

    /// What a phase carries lives beside it, written only by the transitions below and read
    /// only in that phase: the loop asks about the phase several times a request, and a
    /// payload-free phase is one byte to compare.
    private(set) var phase: Phase = .reading
    /// The awaited request's framing; read only while `awaiting`.
    private var framing = AnswerFraming(omitBody: false, keepAlive: true, http10: false)
    /// While `streaming`: the connection closes after the stream's last chunk.
    private(set) var streamCloses = false
    var facts: Facts
    /// Incremented per dispatched request; a late answer for an older one is ignored.
    private(set) var sequence: UInt64 = 0
    private(set) var timer: ConnectionTimer

    init(now: Int64, facts: Facts = Facts()) {
        self.facts = facts
        timer = ConnectionTimer(now: now)
    }

    // MARK: questions

    /// The next request may be parsed and dispatched now.
    var isReading: Bool { phase == .reading }
    var isAwaiting: Bool { phase == .awaiting }
    var isStreaming: Bool { phase == .streaming }
    var closesAfterFlush: Bool { phase == .closingAfterFlush }
    var isLingering: Bool { phase == .lingering }
    var isClosed: Bool { phase == .closed }

    /// The handler has request `sequence` and has not answered it: how its answer is framed.
    func awaitedFraming(_ sequence: UInt64) -> AnswerFraming? {
        phase == .awaiting && self.sequence == sequence ? framing : nil
    }

    // MARK: transitions

    /// A request goes to the handler: reading → awaiting. Returns its sequence number, which its
    /// answer must carry.
    mutating func dispatch(_ framing: AnswerFraming) -> UInt64 {
        sequence &+= 1
        self.framing = framing
        phase = .awaiting
        return sequence
    }

    /// The handler was offered a head and will answer the whole request later (`100 Continue`):
    /// awaiting → reading, the same request's body is read next.
    mutating func withdraw() {
        if phase == .awaiting { phase = .reading }
    }

    /// The awaited answer is queued or was sent by another thread: reading the next request, or
    /// closing after it when it `closes`.
    mutating func answered(closes: Bool) {
        switch phase {
        case .awaiting, .reading: phase = closes ? .closingAfterFlush : .reading
        case .streaming: streamCloses = streamCloses || closes
        case .closingAfterFlush, .lingering, .closed: break
        }
    }

    /// The awaited answer is a stream: awaiting → streaming.
    mutating func startStreaming(closes: Bool) {
        streamCloses = closes
        phase = .streaming
    }

    /// The stream's last chunk is queued: reading the next request, or closing after it.
    mutating func streamEnded() {
        guard phase == .streaming else { return }
        phase = streamCloses ? .closingAfterFlush : .reading
    }

    /// The engine answered itself (a malformed request, a timeout, the connection limit), and the
    /// connection closes after that answer; a request the handler had is no longer answered (a
    /// stream going out ends first).
    mutating func refused() {
        switch phase {
        case .reading, .awaiting, .closingAfterFlush: phase = .closingAfterFlush
        case .streaming: streamCloses = true
        case .lingering, .closed: break
        }
    }

    /// The last answer left: the write side is shut and the client's leftovers drained until the
    /// linger deadline.
    mutating func startLingering(now: Int64) {
        phase = .lingering
        timer.enter(.lingering, now: now)
    }

    /// The descriptor is closed: from any phase to `closed`, for good.
    mutating func close() {
        phase = .closed
    }

    // MARK: the clock

    /// Bytes were read or written (``ConnectionTimer/exchanged(now:)``).
    mutating func exchanged(now: Int64) {
        timer.exchanged(now: now)
    }

    /// Moves the deadline clock to what the connection is doing now: `outboundEmpty`, `parser`
    /// and `inboundEmpty` say what the phase alone does not (an answer still going out, a request
    /// half read).
    mutating func settleTimer(now: Int64, outboundEmpty: Bool, parser: HTTPRequestParser.Phase, inboundEmpty: Bool) {
        let next: ConnectionTimer.Phase
        switch phase {
        case .lingering: next = .lingering
        case .streaming: next = .streaming
        case .awaiting: next = .busy
        case .reading, .closingAfterFlush, .closed:
            if !outboundEmpty {
                next = .writing
            } else {
                switch parser {
                case .body: next = .body
                case .head: next = .head
                case .idle: next = inboundEmpty ? .idle : .head
                }
            }
        }
        timer.enter(next, now: now)
    }
}
