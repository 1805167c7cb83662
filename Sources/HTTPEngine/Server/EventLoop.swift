#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One I/O thread: an epoll set with its own SO_REUSEPORT listener and the connections it accepted.
///
/// Single owner: the connection table, buffers and encoder are touched only on this loop's thread,
/// so the hot path takes no lock. Other threads reach a connection only through `enqueue`, which
/// appends to a Mutex-guarded inbox and writes the eventfd once per batch.
final class EventLoop: @unchecked Sendable {  // safe: mutable state is loop-thread-only; the inbox is a Mutex
    enum Command: Sendable {
        case respond(ConnectionRef, UInt64, HTTPResponse)
        case startStream(ConnectionRef, UInt64, HTTPStream, Int, HTTPHeaders)
        case streamReady(ConnectionRef, HTTPStream)
        /// A fan-out's batch (`StreamFanOut`): one command for many streams.
        case streamsReady([HTTPStream])
        case closeStream(ConnectionRef, HTTPStream)
        /// A stream's drain waiters run here when it had nothing in flight as they were added.
        case drainCheck(HTTPStream)
        case service(ConnectionRef)
        /// An answer written by another thread, sent whole, that the loop must look at now
        /// (`EventLoop+DirectAnswer.swift`).
        case directAnswered(ConnectionRef)
        /// What the socket did not take of an answer written by another thread, and whether it closes.
        case directAnswerRest(ConnectionRef, UInt64, OutboundQueue, Bool)
        case adopt(Int32)
        case shutdown
    }

    let core: ServerCore
    /// This loop's place among the server's, `0..<ioThreads` (`HTTPResponder.loopIndex`).
    let index: Int
    private let epfd: Int32
    private let epoll: Epoll.Functions
    private let wakeFD: Int32
    private var listenFD: Int32
    private let inbox = Mutex<[Command]>([])
    private var localCommands: [Command] = []
    private let threadID = Atomic<UInt>(0)
    private var connections: [Connection?] = []
    private(set) var connectionCount = 0
    private var encoder = ResponseEncoder()
    private let readBuffer: UnsafeMutableRawBufferPointer
    private let writeBuffer: UnsafeMutableRawBufferPointer
    private var shutdownDeadline: Int64?
    /// Set when shutdown begins, for answers written off the loop: they carry `Connection: close`.
    let draining = Atomic<Bool>(false)
    private var now: Int64
    private let sweepInterval: Int64
    private let inboundCap: Int
    /// Every loop of the server, set once before the threads start; used by a single acceptor to hand off.
    var siblings: [EventLoop] = []
    private var nextSibling = 0
    /// Out of descriptors: the listener is out of the epoll set until then, so a level-triggered
    /// listener cannot spin the loop on EMFILE.
    private var acceptPausedUntil: Int64?

    static let readSize = 64 << 10
    static let writeCoalesce = 64 << 10
    static let streamPullBytes = 256 << 10

    init(core: ServerCore, index: Int, listenFD: Int32) throws(HTTPServerError) {
        guard let epoll = Epoll.functions else { throw .system("dlsym(epoll)", ENOSYS) }
        self.epoll = epoll
        self.core = core
        self.index = index
        self.listenFD = listenFD
        epfd = epoll.create1(Epoll.CLOEXEC)
        guard epfd >= 0 else { throw .system("epoll_create1", errno) }
        wakeFD = epoll.eventfd(0, Epoll.EFD_NONBLOCK | Epoll.EFD_CLOEXEC)
        guard wakeFD >= 0 else { let e = errno; _ = Glibc.close(epfd); throw .system("eventfd", e) }
        readBuffer = .allocate(byteCount: Self.readSize, alignment: 16)
        writeBuffer = .allocate(byteCount: Self.writeCoalesce, alignment: 16)
        now = Syscalls.monotonicMicros() / 1_000
        let t = core.timeouts
        sweepInterval = max(5, min(1_000, min(t.header, t.idle, t.body, t.firstByte) / 4))
        inboundCap = max(64 << 10, core.configuration.maxHeaderBytes * 2)
        addToEpoll(wakeFD, events: Epoll.IN)
        if listenFD >= 0 { addToEpoll(listenFD, events: Epoll.IN) }
    }

    deinit {
        readBuffer.deallocate()
        writeBuffer.deallocate()
    }

    var isCurrentThread: Bool { pthread_self() == threadID.load(ordering: .relaxed) }

    /// Hands work to the loop from any thread; wakes it only when the inbox was empty (batched wakeups).
    func enqueue(_ command: Command) {
        if isCurrentThread {
            localCommands.append(command)
            return
        }
        let wasEmpty = inbox.withLock { queue -> Bool in
            let empty = queue.isEmpty
            queue.append(command)
            return empty
        }
        if wasEmpty {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    // MARK: run loop

    /// Runs on the calling thread until shutdown completes; also disposes of loops that never started.
    func runUntilStopped() { run() }

    func run() {
        threadID.store(pthread_self(), ordering: .relaxed)
        let maxEvents: Int32 = 256
        let events = UnsafeMutableRawPointer.allocate(byteCount: Int(maxEvents) * Epoll.eventSize, alignment: 16)
        defer { events.deallocate() }
        var nextSweep = now + sweepInterval
        // Since when this loop has run without sleeping in `epoll_wait` (see the yield below).
        var busySince = Syscalls.monotonicMicros()
        while true {
            drainCommands()
            // After the commands: an answer delivered from another thread may have let a pipelined
            // request run, and what it left pending must not wait for the next event.
            endIteration()
            if let deadline = shutdownDeadline, connectionCount == 0 || now >= deadline { break }
            var wait = max(0, nextSweep - now)
            if let until = acceptPausedUntil { wait = min(wait, max(0, until - now)) }
            if let deadline = shutdownDeadline { wait = min(wait, max(0, deadline - now)) }
            if !localCommands.isEmpty { wait = 0 }
            let beforeWait = Syscalls.monotonicMicros()
            let n = epoll.wait(epfd, events, maxEvents, Int32(wait))
            let afterWait = Syscalls.monotonicMicros()
            // A wait of more than 30 µs slept: the loop gave its core away.
            if afterWait - beforeWait > 30 { busySince = afterWait }
            now = afterWait / 1_000
            encoder.refreshDate()
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            for i in 0..<Int(n) {
                let (flags, fd) = Epoll.event(events, i)
                if fd == wakeFD {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, 8)
                    continue
                }
                if fd == listenFD && listenFD >= 0 {
                    acceptConnections()
                    continue
                }
                guard fd >= 0, Int(fd) < connections.count, let c = connections[Int(fd)] else { continue }
                if flags & Epoll.ERR != 0 {
                    close(c)
                    continue
                }
                if flags & (Epoll.IN | Epoll.HUP) != 0 {
                    if c.state.facts.readClosed && flags & Epoll.HUP != 0 { close(c); continue }
                    onReadable(c)
                }
                if !c.state.isClosed && flags & Epoll.OUT != 0 { service(c) }
            }
            if let until = acceptPausedUntil, now >= until, listenFD >= 0 {
                acceptPausedUntil = nil
                addToEpoll(listenFD, events: Epoll.IN)
            }
            if now >= nextSweep {
                sweep()
                nextSweep = now + sweepInterval
            }
            if let limit = core.yieldAfterBusyMicros, Syscalls.monotonicMicros() - busySince >= limit {
                // A loop that always finds work never sleeps, so it keeps its core until the
                // scheduler's next tick (4 ms at HZ=250), and the threads woken meanwhile on that
                // core (a proxy or load generator beside the server, the journal's writer) wait for
                // it, and that wait becomes the p99 of a GET at 64 connections (`bash
                // scripts/bench-server.sh` shows it with and without this yield). Only past a busy stretch: a loop
                // that sleeps between bursts already lets the others run.
                core.yields.add(1, ordering: .relaxed)
                sched_yield()
                busySince = Syscalls.monotonicMicros()
                now = busySince / 1_000  // the yield may have lasted a tick: timers read `now`
            }
        }
        for case let c? in connections { close(c) }
        if listenFD >= 0 { _ = Glibc.close(listenFD); listenFD = -1 }
        _ = Glibc.close(wakeFD)
        _ = Glibc.close(epfd)
    }

    /// The iteration's last step before the loop waits: the handler finishes what this loop's
    /// requests left pending (the server commits their journal appends as one group).
    private func endIteration() {
        core.handler.eventLoopWillWait(loop: index)
    }

    /// One pass over the commands queued so far. Commands queued meanwhile wait for the next turn, after
    /// the sockets: a fan-out that keeps queuing stream writes must not starve the reading of requests
    /// (`localCommands` makes the next wait 0; a command from another thread writes the eventfd).
    private func drainCommands() {
        let fromOthers = inbox.withLock { queue -> [Command] in
            guard !queue.isEmpty else { return [] }
            let taken = queue
            queue = []
            return taken
        }
        // Nearly every iteration of a busy loop has no command: nothing is copied or freed then.
        if localCommands.isEmpty && fromOthers.isEmpty { return }
        var batch = localCommands
        localCommands = []
        batch.append(contentsOf: fromOthers)
        // Moved out one by one, not copied: a copy retains each payload once more, and a fan-out
        // to 10,000 streams retained objects last touched on another core.
        batch.reverse()
        while let command = batch.popLast() { run(command) }
    }

    private func run(_ command: Command) {
        switch command {
        case .respond(let ref, let sequence, let response):
            deliver(ref.connection, sequence: sequence, response: response)
        case .startStream(let ref, let sequence, let stream, let status, let headers):
            beginStream(ref.connection, sequence: sequence, stream: stream, status: status, headers: headers)
        case .streamReady(let ref, let stream):
            let c = ref.connection
            if c.stream === stream { service(c) }
        case .streamsReady(let streams):
            for stream in streams {
                let c = stream.connection.connection
                if c.stream === stream { service(c) }
            }
        case .closeStream(let ref, let stream):
            let c = ref.connection
            if c.stream === stream { close(c) } else { stream.closeFromLoop() }
        case .drainCheck(let stream):
            // A closed stream already ran its waiters; an idle one runs them now.
            stream.runDrainWaitersIfIdle()
        case .service(let ref):
            if !ref.connection.state.isClosed { service(ref.connection) }
        case .directAnswered(let ref):
            let c = ref.connection
            if !c.state.isClosed && c.state.facts.lent && finishDirectAnswerIfSent(c, waiting: false) { service(c) }
        case .directAnswerRest(let ref, let sequence, let rest, let close):
            finishDirectAnswer(ref.connection, sequence: sequence, rest: rest, close: close)
        case .adopt(let fd):
            if shutdownDeadline != nil {
                _ = Glibc.close(fd)
                core.openConnections.subtract(1, ordering: .relaxed)
            } else {
                register(fd, refused: false)
            }
        case .shutdown:
            beginShutdown()
        }
    }

    // MARK: accepting

    private func acceptConnections() {
        for _ in 0..<128 {
            let fd = epoll.accept4(listenFD, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            if fd < 0 {
                let e = errno
                if e == EINTR { continue }
                if e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM {
                    _ = Epoll.control(epoll, epfd, Epoll.CTL_DEL, listenFD, 0)
                    acceptPausedUntil = now + 100
                }
                return
            }
            Syscalls.setNoDelay(fd)
            let open = core.openConnections.add(1, ordering: .relaxed).newValue
            let refused = open > core.configuration.maxConnections || shutdownDeadline != nil
            if refused { core.openConnections.subtract(1, ordering: .relaxed) }
            if refused && shutdownDeadline == nil && !core.configuration.probePaths.isEmpty
                && core.probeConnections.add(1, ordering: .relaxed).newValue <= core.configuration.maxProbeConnections {
                // Read for one request: a health probe is answered whatever holds the connections.
                registerProbe(fd)
                continue
            } else if refused && shutdownDeadline == nil && !core.configuration.probePaths.isEmpty {
                core.probeConnections.subtract(1, ordering: .relaxed)
            }
            if !refused && siblings.count > 1 {
                // Single-acceptor mode: round-robin hand-off; the owning loop registers it.
                let target = siblings[nextSibling % siblings.count]
                nextSibling &+= 1
                if target !== self {
                    target.enqueue(.adopt(fd))
                    continue
                }
            }
            register(fd, refused: refused)
        }
    }

    /// A connection beyond `maxConnections`, read for one probe request (`dispatch` answers it
    /// only for a probe path).
    private func registerProbe(_ fd: Int32) {
        add(Connection(fd: fd, limits: core.limits, now: now, facts: .init(counted: false, probeOnly: true)))
    }

    /// Puts `c` in the loop's table and starts reading it.
    private func add(_ c: Connection) {
        let fd = c.fd
        if Int(fd) >= connections.count {
            connections.append(contentsOf: repeatElement(nil, count: max(Int(fd) + 1 - connections.count, connections.count)))
        }
        connections[Int(fd)] = c
        connectionCount += 1
        c.registeredEvents = Epoll.IN
        addToEpoll(fd, events: c.registeredEvents)
    }

    /// The refusal of a request on a connection beyond `maxConnections` that is not a probe.
    private func refuseBeyondLimit(_ c: Connection) {
        refuse(c, .tooManyConnections("the server holds its maximum of \(core.configuration.maxConnections) connections; only \(core.configuration.probePaths.sorted().joined(separator: ", ")) are answered beyond it"))
    }

    private func register(_ fd: Int32, refused: Bool) {
        let c = Connection(fd: fd, limits: core.limits, now: now, facts: .init(counted: !refused))
        add(c)
        if refused {
            refuse(c, .tooManyConnections("the server holds its maximum of \(core.configuration.maxConnections) connections"))
            service(c)
        }
    }

    // MARK: reading

    /// Answers queued for a connection beyond which its pipelined requests wait: a client that
    /// sends and never reads must not make the server hold answers without limit (RFC 9112
    /// §9.3.2 lets a server answer pipelined requests, not queue them for ever).
    static let outboundHighWater = 256 << 10

    private func canProcess(_ c: Connection) -> Bool {
        c.state.isReading && c.outbound.byteCount < Self.outboundHighWater
    }

    private func onReadable(_ c: Connection) {
        guard !c.state.facts.readClosed else { return }
        let n = recv(c.fd, readBuffer.baseAddress, readBuffer.count, 0)
        // Usually the client's next request, after an answer another thread wrote: finish that
        // exchange first, so the request is parsed straight from the read buffer.
        if c.state.facts.lent && n >= 0 { _ = finishDirectAnswerIfSent(c, waiting: false) }
        if n > 0 {
            if c.state.isLingering { return }
            c.state.exchanged(now: now)
            let bytes = UnsafeBufferPointer(start: readBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self), count: n)
            if c.inbound.isEmpty && canProcess(c) {
                // Fast path: parse straight from the loop's buffer; only leftovers are copied.
                let consumed = processInput(c, bytes)
                if consumed < n && !c.state.closesAfterFlush && !c.state.isClosed {
                    c.inbound.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[consumed...]))
                }
            } else if !c.state.closesAfterFlush {
                c.inbound.append(contentsOf: bytes)
                if c.state.isStreaming && c.inbound.count > inboundCap {
                    close(c)
                    return
                }
            }
            service(c)
        } else if n == 0 {
            // FIN: a half-closed client still gets the answers to what it sent (RFC 9112 §9.6).
            c.state.facts.readClosed = true
            if c.state.isLingering || c.state.isStreaming {
                close(c)
                return
            }
            service(c)
        } else {
            let e = errno
            if e == EAGAIN || e == EWOULDBLOCK || e == EINTR { return }
            close(c)
        }
    }

    /// Feeds bytes to the parser and dispatches complete requests; returns how many bytes it consumed.
    private func processInput(_ c: Connection, _ buffer: UnsafeBufferPointer<UInt8>) -> Int {
        c.state.facts.processing = true
        defer { c.state.facts.processing = false }
        var pos = 0
        while canProcess(c) {
            let (n, event) = c.parser.parse(UnsafeBufferPointer(rebasing: buffer[pos...]))
            pos += n
            // Consumed, so the request moves on to its responder rather than being copied there.
            switch consume event {
            case .needMore:
                return pos
            case .expectContinue:
                if refusedFromHead(c) { return pos }
                c.outbound.append(ResponseEncoder.continue100)
            case .request(let request):
                dispatch(c, request)
            case .error(let error):
                refuse(c, error)
                return pos
            }
        }
        return pos
    }

    /// Offers a head whose body is not read yet to the handler (one that waits for `100 Continue`,
    /// or one still arriving at shutdown); true when it refused the request, which then closes the
    /// connection with its body unread (RFC 9110 §10.1.1, RFC 9112 §9.6).
    private func refusedFromHead(_ c: Connection) -> Bool {
        let head = c.parser.head
        if c.state.facts.probeOnly && !core.configuration.probePaths.contains(head.path) {
            refuseBeyondLimit(c)
            return true
        }
        let framing = AnswerFraming(omitBody: head.method == "HEAD", keepAlive: false, http10: head.version == .http1_0)
        let sequence = c.state.dispatch(framing)
        let slot = HTTPResponder.Slot(loop: self, connection: ConnectionRef(connection: c), sequence: sequence, framing: framing)
        let (refused, responder) = core.offerHead(head, slot)
        // An answer delivered during the call (no longer awaiting) is a refusal whatever was
        // returned: a 100 Continue must not follow a final answer.
        if refused || !c.state.isAwaiting { return true }
        responder.withdraw()
        c.state.withdraw()
        return false
    }

    private func processBuffered(_ c: Connection) {
        let buffer = c.inbound
        c.inbound = []
        let consumed = buffer.withUnsafeBufferPointer { processInput(c, $0) }
        if c.state.isClosed || c.state.closesAfterFlush { return }
        if consumed == 0 {
            c.inbound = buffer
        } else if consumed < buffer.count {
            c.inbound = Array(buffer[consumed...])
        }
    }

    private func dispatch(_ c: Connection, _ request: consuming HTTPRequest) {
        if c.state.facts.probeOnly && !core.configuration.probePaths.contains(request.path) { return refuseBeyondLimit(c) }
        let framing = AnswerFraming(omitBody: request.method == "HEAD",
                                    keepAlive: request.keepAlive && !c.state.facts.probeOnly,  // a probe beyond the limit gets one answer
                                    http10: request.version == .http1_0)
        let sequence = c.state.dispatch(framing)
        core.handle(request, HTTPResponder.Slot(loop: self, connection: ConnectionRef(connection: c), sequence: sequence, framing: framing))
    }

    // MARK: answering

    func deliver(_ c: Connection, sequence: UInt64, response: HTTPResponse) {
        guard let framing = c.state.awaitedFraming(sequence) else { return }
        takeBackDirectAnswer(c)
        let close = !framing.keepAlive || shutdownDeadline != nil
        let userClose = encoder.encode(status: response.status, headers: response.headers, headersChecked: response.headersChecked,
                                       body: response.body,
                                       omitBody: framing.omitBody, close: close,
                                       http10KeepAlive: framing.http10 && !close, into: &c.outbound)
        c.state.answered(closes: close || userClose)
        if !c.state.facts.processing { service(c) }
    }

    func beginStream(_ c: Connection, sequence: UInt64, stream: HTTPStream, status: Int, headers: HTTPHeaders) {
        guard let framing = c.state.awaitedFraming(sequence) else {
            stream.closeFromLoop()
            return
        }
        takeBackDirectAnswer(c)
        let chunked = !framing.http10
        let close = !framing.keepAlive || shutdownDeadline != nil
        encoder.encodeStreamHead(status: status, headers: headers, chunked: chunked, close: close, into: &c.outbound)
        if framing.omitBody {
            stream.closeFromLoop()
            c.state.answered(closes: !chunked || close)
        } else {
            c.startStreaming(stream, closes: !chunked || close)
            if shutdownDeadline != nil { stream.signalShutdown() }
        }
        if !c.state.facts.processing { service(c) }
    }

    private func refuse(_ c: Connection, _ error: HTTPParseError) {
        var headers = ResponseEncoder.problemHeaders()
        // The parser keeps what it read of a failed request until it is reset.
        let refused = RefusedRequest(status: error.status, method: c.parser.method, target: c.parser.target,
                                     headers: c.parser.headers, headerBlockComplete: c.parser.headerBlockComplete)
        for (name, value) in core.handler.engineRefused(refused) { headers.add(name, value) }
        // RFC 9110 §10.2.3: a 503 says when to come back; connections free up quickly.
        if error.slug == "too-many-connections" { headers.add("Retry-After", "1") }
        _ = encoder.encode(status: error.status, headers: headers, body: ResponseEncoder.problemBody(error),
                           omitBody: false, close: true, http10KeepAlive: false, into: &c.outbound)
        c.state.refused()
    }

    /// Moves a stream's queued chunks into the connection's output; ends the stream after its last chunk.
    private func pullStream(_ c: Connection, _ stream: HTTPStream) -> Bool {
        let (chunks, finish) = stream.take(limit: Self.streamPullBytes)
        for chunk in chunks { c.outbound.append(chunk) }  // framed by the stream (SharedChunk)
        if finish {
            if stream.chunked { c.outbound.append(ResponseEncoder.lastChunk) }
            c.streamEnded()
            stream.closeFromLoop()
        }
        return !chunks.isEmpty || finish
    }

    /// Processes buffered input, moves stream chunks, flushes, and closes when the exchange says so.
    func service(_ c: Connection) {
        // A lent socket whose answer went out is this loop's again; one still lent is asked to
        // say when it is, if something here waits on it.
        if c.state.facts.lent { _ = finishDirectAnswerIfSent(c, waiting: !c.inbound.isEmpty || c.state.facts.readClosed) }
        var rounds = 0
        while !c.state.isClosed {
            rounds += 1
            if rounds > 64 {
                enqueue(.service(ConnectionRef(connection: c)))
                break
            }
            if canProcess(c) && !c.inbound.isEmpty { processBuffered(c) }
            var pulled = false
            if c.outbound.isEmpty, let stream = c.stream { pulled = pullStream(c, stream) }
            if c.outbound.isEmpty && !pulled {
                if c.state.closesAfterFlush { startClose(c); return }
                break
            }
            if !c.outbound.isEmpty {
                flush(c)
                if c.state.isClosed { return }
                if !c.outbound.isEmpty { break }
                c.stream?.sent()
            }
            if c.state.closesAfterFlush && c.outbound.isEmpty { startClose(c); return }
        }
        guard !c.state.isClosed else { return }
        if (c.state.isReading || c.state.closesAfterFlush) && c.outbound.isEmpty {
            if c.state.facts.readClosed {
                close(c)
                return
            }
            if shutdownDeadline != nil && c.inbound.isEmpty && c.parser.phase == .idle {
                // As at the start of shutdown: a request already in the socket (sent after an
                // answer another thread wrote) is read first, once, and answered with close,
                // rather than reset by closing a socket with unread data (RFC 9112 §9.6).
                if !c.state.facts.readAtShutdown {
                    c.state.facts.readAtShutdown = true
                    onReadable(c)
                    if c.state.isClosed || c.state.isLingering { return }
                    if !c.isIdle { return refuseBodyStillArriving(c) }
                }
                close(c)
                return
            }
        }
        c.state.settleTimer(now: now, outboundEmpty: c.outbound.isEmpty, parser: c.parser.phase, inboundEmpty: c.inbound.isEmpty)
        updateInterest(c)
        armDirectAnswer(c)
    }

    // MARK: writing

    private func flush(_ c: Connection) {
        while !c.outbound.isEmpty {
            let (sent, attempted) = writeOut(c)
            if sent > 0 {
                // A head (most answers: one segment) the socket took whole serves the next answer.
                if sent == c.outbound.byteCount, c.outbound.segments.count == 1 {
                    encoder.recycle(c.outbound.takeSentSingle())
                } else {
                    c.outbound.consume(sent)
                }
                c.state.exchanged(now: now)
                if sent < attempted { return }
            } else {
                let e = errno
                if sent < 0 && e == EINTR { continue }
                if sent < 0 && (e == EAGAIN || e == EWOULDBLOCK) { return }
                close(c)
                return
            }
        }
    }

    /// One send: the first segment alone when it is big, else small segments coalesced into one
    /// buffer, plus the next big one through sendmsg's gather list (head and body in one write).
    private func writeOut(_ c: Connection) -> (Int, Int) {
        let offset = c.outbound.offset
        // The queue's lone segment (nearly every answer) is sent where it lies: no copy of the
        // segment list or of the segment (each a retain and a release).
        if c.outbound.segments.count == 1 {
            return c.outbound.segments[0].withUnsafeBytes { p -> (Int, Int) in
                let length = p.count - offset
                guard let base = p.baseAddress else { return (0, 0) }
                return (send(c.fd, base + offset, length, Int32(MSG_NOSIGNAL)), length)
            }
        }
        let segments = c.outbound.segments
        let first = segments[0]
        if first.count - offset >= writeBuffer.count / 2 {
            return first.withUnsafeBytes { p -> (Int, Int) in
                let length = p.count - offset
                guard let base = p.baseAddress else { return (0, 0) }
                return (send(c.fd, base + offset, length, Int32(MSG_NOSIGNAL)), length)
            }
        }
        var used = 0
        first.withUnsafeBytes { p in
            let length = p.count - offset
            if let base = p.baseAddress { writeBuffer.baseAddress?.copyMemory(from: base + offset, byteCount: length) }
            used = length
        }
        var i = 1
        while i < segments.count && used + segments[i].count <= writeBuffer.count {
            segments[i].withUnsafeBytes { p in
                if let base = p.baseAddress, let target = writeBuffer.baseAddress { (target + used).copyMemory(from: base, byteCount: p.count) }
            }
            used += segments[i].count
            i += 1
        }
        guard i < segments.count else {
            return (send(c.fd, writeBuffer.baseAddress, used, Int32(MSG_NOSIGNAL)), used)
        }
        return segments[i].withUnsafeBytes { big -> (Int, Int) in
            var iov = (iovec(iov_base: writeBuffer.baseAddress, iov_len: used),
                       iovec(iov_base: UnsafeMutableRawPointer(mutating: big.baseAddress), iov_len: big.count))
            return withUnsafeMutableBytes(of: &iov) { iovBytes -> (Int, Int) in
                var message = msghdr()
                message.msg_iov = iovBytes.baseAddress?.assumingMemoryBound(to: iovec.self)
                message.msg_iovlen = 2
                return (sendmsg(c.fd, &message, Int32(MSG_NOSIGNAL)), used + big.count)
            }
        }
    }

    // MARK: closing

    /// Answer sent: shut our write side and drain the client's leftovers briefly, so a pending
    /// unread request does not turn our close into a reset that destroys the answer (RFC 9112 §9.6).
    private func startClose(_ c: Connection) {
        takeBackDirectAnswer(c)
        if c.state.facts.readClosed {
            close(c)
            return
        }
        _ = Glibc.shutdown(c.fd, Int32(SHUT_WR))
        c.inbound = []
        c.startLingering(now: now)?.closeFromLoop()
        updateInterest(c)
    }

    /// Closes exactly once: the `closed` phase guards the descriptor, the table slot and the count.
    private func close(_ c: Connection) {
        guard !c.state.isClosed else { return }
        takeBackDirectAnswer(c)
        let stream = c.close()
        _ = Glibc.close(c.fd)
        if Int(c.fd) < connections.count, connections[Int(c.fd)] === c { connections[Int(c.fd)] = nil }
        connectionCount -= 1
        if c.state.facts.counted { core.openConnections.subtract(1, ordering: .relaxed) }
        if c.state.facts.probeOnly { core.probeConnections.subtract(1, ordering: .relaxed) }
        c.inbound = []
        c.outbound.removeAll()
        stream?.closeFromLoop()
    }

    // MARK: deadlines and shutdown

    private func updateInterest(_ c: Connection) {
        var want: UInt32 = 0
        // A connection that cannot take its next request now reads on only up to `inboundCap`.
        let waiting = c.state.isAwaiting || c.outbound.byteCount >= Self.outboundHighWater
        if !c.state.facts.readClosed && !(waiting && c.inbound.count >= inboundCap) { want |= Epoll.IN }
        if !c.outbound.isEmpty { want |= Epoll.OUT }
        guard want != c.registeredEvents else { return }
        c.registeredEvents = want
        _ = Epoll.control(epoll, epfd, Epoll.CTL_MOD, c.fd, want)
    }

    private func addToEpoll(_ fd: Int32, events: UInt32) {
        _ = Epoll.control(epoll, epfd, Epoll.CTL_ADD, fd, events)
    }

    /// At shutdown, a request whose body is still on its way: the head alone may be refused now
    /// (a server that is draining refuses new work), rather than once a body that may never come is in.
    private func refuseBodyStillArriving(_ c: Connection) {
        guard c.parser.phase == .body && c.state.isReading else { return }
        if refusedFromHead(c) { service(c) }
    }

    private func sweep() {
        for case let c? in connections {
            // A lent socket whose answer went out and whose client sent nothing since: the idle
            // timeout starts now.
            if c.state.facts.lent && finishDirectAnswerIfSent(c, waiting: false) { service(c) }
            if c.state.isClosed { continue }
            switch c.state.timer.expired(now: now, timeouts: core.timeouts) {
            case .none:
                continue
            case .close:
                if c.state.timer.phase == .idle || c.state.timer.phase == .connected {
                    // A request may have arrived since the loop last read: read it and answer it
                    // rather than reset it by closing a socket with unread data (RFC 9112 §9.6).
                    onReadable(c)
                    if c.state.isClosed || c.state.isLingering || !c.isIdle || c.state.timer.expired(now: now, timeouts: core.timeouts) != .close { continue }
                }
                close(c)
            case .requestTimeout:
                c.inbound = []
                refuse(c, .requestTimeout(c.state.timer.phase == .body ? "the body did not arrive in time" : "the header block did not arrive in time"))
                service(c)
            }
        }
    }

    private func beginShutdown() {
        guard shutdownDeadline == nil else { return }
        let c = core.configuration.shutdownGrace.components
        shutdownDeadline = now + c.seconds * 1_000 + c.attoseconds / 1_000_000_000_000_000
        // Before the connections are looked at: an answer sent off the loop after this is followed
        // by a `.directAnswered` command (`answerDirectly`), one sent before is seen below.
        draining.store(true, ordering: .sequentiallyConsistent)
        if listenFD >= 0 {
            _ = Epoll.control(epoll, epfd, Epoll.CTL_DEL, listenFD, 0)
            _ = Glibc.close(listenFD)
            listenFD = -1
        }
        for case let c? in connections where !c.state.isClosed {
            if c.state.facts.lent && finishDirectAnswerIfSent(c, waiting: false) {
                service(c)
                if c.state.isClosed || c.state.isLingering { continue }
            }
            if let stream = c.stream {
                stream.signalShutdown()
                continue
            }
            if c.state.isLingering {
                close(c)
                continue
            }
            if c.isIdle {
                // A request sent before the signal may wait unread in the socket (this loop was
                // busy): read it first, so it is answered, with close, rather than reset by
                // closing a socket with unread data (RFC 9112 §9.6).
                onReadable(c)
                if c.state.isClosed || c.state.isLingering { continue }
                if c.isIdle {
                    close(c)
                    continue
                }
            }
            refuseBodyStillArriving(c)
        }
    }
}
