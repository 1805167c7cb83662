import Dispatch
import Foundation
import HTTPEngine
import Synchronization
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// `storehouse-bench sse-fanout BASE_URL [-n SUBSCRIBERS] [-m ACTIONS] [-r RATE] [--threads K]`:
/// SSE fan-out latency, measured exactly as `../shared/bench/sse-fanout.py` measures it (same steps,
/// same figures, the same `RESULT workload=sse-fanout ...` keys), but with the subscribers read by K
/// threads (default 2), each with its own epoll set over non-blocking sockets, so at 10,000
/// subscribers (200,000 events/s at 20 actions/s) the client's parsing is not what is measured.
///
/// One session (`POST /sessions`), N subscribers to `GET /sessions/{id}/events` (HTTP/1.1, chunked
/// or not, SSE `event:`/`id:`/`data:`), all of them wait for their `snapshot`; then M actions are
/// POSTed at a steady open-loop rate over up to 32 keep-alive connections. For every (subscriber,
/// change) the latency runs from writing the POST that produced the version to the read that
/// delivered the `change` (matched by `id:`, else by `"version"` in `data:`). Also: per action the
/// time until the last subscriber has it; missed / duplicate / out-of-order events. Exit 1 if
/// anything was missed. Raises RLIMIT_NOFILE itself; loopback only unless `--allow-remote`.
func runSSEFanoutBench(_ arguments: [String]) {
    let options: SSEFanoutOptions
    switch SSEFanoutOptions.parse(arguments) {
    case .success(let parsed): options = parsed
    case .failure(let message): fanoutFail(message, code: 2)
    }
    exit(SSEFanoutRun(options).run())
}

func fanoutFail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("sse-fanout: \(message)\n".utf8))
    exit(code)
}

struct SSEFanoutOptions {
    var baseURL = ""
    var host = ""
    var port = 80
    var subscribers = 1000
    var actions = 200
    var rate = 20.0
    var action = #"{"type":"counter/incrTapped"}"#
    var sessionBody = #"{"kind":"counter"}"#
    var headers: [String] = []
    var maxPosters = 32
    var connectTimeout = 60.0
    var drainTimeout = 15.0
    var threads = 2
    var allowRemote = false
    var json = false
    /// SCHED_BATCH subscriber threads: waking one does not preempt the server's thread (see BENCHMARKS.md).
    var batchScheduling = true
    /// Also print each action's fan-out completion time, in version order.
    var perAction = false

    static let usage = """
        usage: storehouse-bench sse-fanout BASE_URL [-n SUBSCRIBERS] [-m ACTIONS] [-r RATE] [--threads K]
               [--action JSON] [--session-body JSON] [--header 'Name: value']... [--max-posters N]
               [--connect-timeout S] [--drain-timeout S] [--sched-normal] [--per-action] [--allow-remote] [--json]
        defaults: -n 1000 -m 200 -r 20 --threads 2 --max-posters 32 --connect-timeout 60 --drain-timeout 15
        """

    enum Parsed { case success(SSEFanoutOptions), failure(String) }

    static func parse(_ arguments: [String]) -> Parsed {
        var o = SSEFanoutOptions()
        var positional: [String] = []
        var i = 0
        func value() -> String? {
            i += 1
            return i < arguments.count ? arguments[i] : nil
        }
        while i < arguments.count {
            let flag = arguments[i]
            switch flag {
            case "-h", "--help": return .failure(usage)
            case "--allow-remote": o.allowRemote = true
            case "--json": o.json = true
            case "--sched-normal": o.batchScheduling = false
            case "--per-action": o.perAction = true
            case "-n", "--subscribers", "-m", "--actions", "-r", "--rate", "--action", "--session-body", "--header",
                 "--max-posters", "--connect-timeout", "--drain-timeout", "--threads", "--connect-parallel":
                guard let v = value() else { return .failure("\(flag) needs a value\n\(usage)") }
                switch flag {
                case "-n", "--subscribers": guard let n = Int(v), n > 0 else { return .failure("bad \(flag) \(v)") }; o.subscribers = n
                case "-m", "--actions": guard let n = Int(v), n > 0 else { return .failure("bad \(flag) \(v)") }; o.actions = n
                case "-r", "--rate": guard let r = Double(v), r > 0 else { return .failure("bad \(flag) \(v)") }; o.rate = r
                case "--action": o.action = v
                case "--session-body": o.sessionBody = v
                case "--header": o.headers.append(v)
                case "--max-posters": guard let n = Int(v), n > 0 else { return .failure("bad \(flag) \(v)") }; o.maxPosters = n
                case "--connect-timeout": guard let s = Double(v), s > 0 else { return .failure("bad \(flag) \(v)") }; o.connectTimeout = s
                case "--drain-timeout": guard let s = Double(v), s >= 0 else { return .failure("bad \(flag) \(v)") }; o.drainTimeout = s
                case "--threads": guard let n = Int(v), n > 0, n <= 64 else { return .failure("bad \(flag) \(v)") }; o.threads = n
                default: break  // --connect-parallel: accepted for sse-fanout.py compatibility; each thread connects one at a time
                }
            default:
                if flag.hasPrefix("-") { return .failure("unknown flag \(flag)\n\(usage)") }
                positional.append(flag)
            }
            i += 1
        }
        guard positional.count == 1 else { return .failure(usage) }
        o.baseURL = positional[0]
        guard let url = URLComponents(string: o.baseURL), url.scheme == "http", let host = url.host, !host.isEmpty else {
            return .failure("BASE_URL must look like http://127.0.0.1:8080")
        }
        o.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        o.port = url.port ?? 80
        let loopback = o.host == "localhost" || o.host == "::1" || o.host.hasPrefix("127.")
        if !o.allowRemote && !loopback { return .failure("refusing a non-loopback target (use --allow-remote if you really mean it)") }
        return .success(o)
    }
}

// MARK: clock, sockets

@inline(__always) func fanoutNow() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// A resolved peer address (the bytes of a sockaddr).
struct FanoutAddress: Sendable {
    let family: Int32
    let bytes: [UInt8]

    static func resolve(host: String, port: Int) -> FanoutAddress? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        guard let sa = first.pointee.ai_addr else { return nil }
        let bytes = Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(sa), count: Int(first.pointee.ai_addrlen)))
        return FanoutAddress(family: first.pointee.ai_family, bytes: bytes)
    }

    /// A blocking connect; the descriptor, or the errno.
    func connectBlocking() -> Result<Int32, FanoutSocketError> {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(FanoutSocketError(call: "socket", code: errno)) }
        let rc = bytes.withUnsafeBytes { p -> Int32 in
            guard let base = p.baseAddress else { return -1 }
            return connect(fd, base.assumingMemoryBound(to: sockaddr.self), socklen_t(p.count))
        }
        if rc != 0 {
            let e = errno
            _ = close(fd)
            return .failure(FanoutSocketError(call: "connect", code: e))
        }
        return .success(fd)
    }
}

struct FanoutSocketError: Error, CustomStringConvertible {
    let call: String
    let code: Int32
    var description: String { "[Errno \(code)] \(call): \(String(cString: strerror(code)))" }
}

func fanoutSetNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
}

func fanoutSetNoDelay(_ fd: Int32) {
    var one: Int32 = 1
    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
}

/// Sends everything on a blocking (or briefly busy non-blocking) socket.
func fanoutSendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { p -> Int in
            guard let base = p.baseAddress else { return -1 }
            return send(fd, base + offset, p.count - offset, Int32(MSG_NOSIGNAL))
        }
        if n > 0 { offset += n; continue }
        if n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) {
            if errno != EINTR { usleep(100) }
            continue
        }
        return false
    }
    return true
}

/// sse-fanout.py's `raise_nofile`: soft limit to need + 64 (capped by the hard limit); returns the soft limit.
func fanoutRaiseNoFile(need: Int, warn: Bool = true) -> Int {
    let resource = __rlimit_resource_t(UInt32(RLIMIT_NOFILE.rawValue))
    var limit = rlimit()
    guard getrlimit(resource, &limit) == 0 else { return -1 }
    let infinity = rlim_t.max  // RLIM_INFINITY
    let want = rlim_t(need + 64)
    if limit.rlim_cur != infinity && limit.rlim_cur < want {
        limit.rlim_cur = limit.rlim_max == infinity ? want : min(want, limit.rlim_max)
        _ = setrlimit(resource, &limit)
        _ = getrlimit(resource, &limit)
    }
    if warn && limit.rlim_cur != infinity && limit.rlim_cur < want {
        FileHandle.standardError.write(Data("warning: RLIMIT_NOFILE is \(limit.rlim_cur), need about \(want); run as root or raise the hard limit\n".utf8))
    }
    return limit.rlim_cur == infinity ? Int.max : Int(limit.rlim_cur)
}

// MARK: HTTP answers (session creation and POSTs)

/// A complete HTTP/1.1 response at the front of `buffer`: status, body, bytes used; nil if incomplete.
/// `malformed` is set when the bytes cannot be a response.
func fanoutParseResponse(_ buffer: [UInt8], malformed: inout Bool) -> (status: Int, body: [UInt8], used: Int)? {
    guard let headEnd = SSEFanoutStream.find(buffer, [0x0D, 0x0A, 0x0D, 0x0A], from: 0) else { return nil }
    let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
    let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
    let statusParts = lines.first.map { $0.split(separator: " ") } ?? []
    guard statusParts.count > 1, let status = Int(statusParts[1]) else { malformed = true; return nil }
    var length: Int?
    var chunked = false
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        if name == "content-length" { length = Int(value) }
        if name == "transfer-encoding" && value.lowercased().contains("chunked") { chunked = true }
    }
    var pos = headEnd + 4
    if !chunked {
        let n = length ?? 0
        guard buffer.count - pos >= n else { return nil }
        return (status, Array(buffer[pos..<(pos + n)]), pos + n)
    }
    var body: [UInt8] = []
    while true {
        guard let lineEnd = SSEFanoutStream.find(buffer, [0x0D, 0x0A], from: pos) else { return nil }
        var size = 0
        var digits = 0
        for b in buffer[pos..<lineEnd] {
            if b == 0x3B { break }
            guard let d = SSEFanoutStream.hexValue(b), size < (1 << 40) else { malformed = true; return nil }
            size = size * 16 + d
            digits += 1
        }
        guard digits > 0 else { malformed = true; return nil }
        pos = lineEnd + 2
        if size == 0 {
            // Trailers (none expected) end with a blank line.
            guard let end = SSEFanoutStream.find(buffer, [0x0D, 0x0A], from: pos) else { return nil }
            return (status, body, end + 2)
        }
        guard buffer.count - pos >= size + 2 else { return nil }
        body += buffer[pos..<(pos + size)]
        pos += size + 2
    }
}

// MARK: shared state between the driver and the subscriber threads

/// What the driver and the subscriber threads share: counters and phase flags, all atomics.
final class SSEFanoutControl: Sendable {
    /// Subscribers that have their snapshot.
    let ready = Atomic<Int>(0)
    let connectErrors = Atomic<Int>(0)
    let badStatus = Atomic<Int>(0)
    /// Threads done opening their subscribers.
    let connected = Atomic<Int>(0)
    /// 1: posting starts; each thread then freezes its `live` set and adds to `acks` and `liveCount`.
    let phase = Atomic<Int>(0)
    let acks = Atomic<Int>(0)
    let liveCount = Atomic<Int>(0)
    /// The version every live subscriber must have before the run ends (-1: not yet known).
    let target = Atomic<Int>(-1)
    /// Live subscribers that have the target version.
    let done = Atomic<Int>(0)
    let stop = Atomic<Int>(0)
    let firstErrors = Mutex<(connect: String?, status: String?)>((nil, nil))
}

/// One subscriber thread: opens its share of the subscribers and reads them through its own epoll set.
final class SSEFanoutWorker: @unchecked Sendable {  // every mutable field is touched only by the worker's thread until the driver's DispatchGroup.wait() after `stop`
    let count: Int
    let address: FanoutAddress
    let request: [UInt8]
    let control: SSEFanoutControl
    let batchScheduling: Bool
    private(set) var streams: [SSEFanoutStream] = []
    private var slot: [Int32] = []
    private var knownTarget = -1
    private var frozen = false
    static let edgeTriggered: UInt32 = 1 << 31  // EPOLLET

    init(count: Int, address: FanoutAddress, request: [UInt8], control: SSEFanoutControl, batchScheduling: Bool) {
        self.count = count
        self.batchScheduling = batchScheduling
        self.address = address
        self.request = request
        self.control = control
    }

    func run() {
        guard let epoll = Epoll.functions else { fanoutFail("epoll is not available") }
        if batchScheduling {
            // SCHED_BATCH (this thread only): a subscriber socket becoming readable wakes this thread
            // without preempting the server thread that wrote it (no wake-up preemption for batch tasks).
            var param = sched_param()
            param.sched_priority = 0
            _ = sched_setscheduler(0, 3 /* SCHED_BATCH */, &param)
        }
        let epollFD = epoll.create1(Epoll.CLOEXEC)
        guard epollFD >= 0 else { fanoutFail("epoll_create1: \(String(cString: strerror(errno)))") }
        let bufferSize = 64 << 10
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 16)
        let maxEvents: Int32 = 1024
        let events = UnsafeMutableRawPointer.allocate(byteCount: Int(maxEvents) * Epoll.eventSize, alignment: 16)
        defer {
            for s in streams { _ = close(s.fd) }
            _ = close(epollFD)
            buffer.deallocate()
            events.deallocate()
        }
        streams.reserveCapacity(count)

        // Open one at a time (a blocking connect on loopback takes tens of µs), reading what has
        // arrived after every 64 so early snapshots do not pile up in the socket buffers.
        for i in 0..<count {
            switch address.connectBlocking() {
            case .failure(let error):
                control.connectErrors.add(1, ordering: .relaxed)
                control.firstErrors.withLock { if $0.connect == nil { $0.connect = error.description } }
            case .success(let fd):
                guard fanoutSendAll(fd, request) else {
                    _ = close(fd)
                    control.connectErrors.add(1, ordering: .relaxed)
                    continue
                }
                fanoutSetNonBlocking(fd)
                if Int(fd) >= slot.count { slot.append(contentsOf: repeatElement(-1, count: Int(fd) + 1024 - slot.count)) }
                slot[Int(fd)] = Int32(streams.count)
                streams.append(SSEFanoutStream(fd: fd))
                // Edge-triggered: a ready socket is not polled again on the next epoll_wait; a short
                // read below means its receive queue is empty, and new data raises a new edge.
                _ = Epoll.control(epoll, epollFD, Epoll.CTL_ADD, fd, Epoll.IN | Self.edgeTriggered)
            }
            if i % 64 == 63 { poll(epoll, epollFD, events, maxEvents, buffer, bufferSize, timeout: 0) }
        }
        control.connected.add(1, ordering: .sequentiallyConsistent)
        while control.stop.load(ordering: .sequentiallyConsistent) == 0 {
            poll(epoll, epollFD, events, maxEvents, buffer, bufferSize, timeout: 10)
        }
    }

    /// Reads every ready subscriber until a short read (or EAGAIN); returns how many were ready.
    @discardableResult
    private func poll(_ epoll: Epoll.Functions, _ epollFD: Int32, _ events: UnsafeMutableRawPointer, _ maxEvents: Int32,
                      _ buffer: UnsafeMutableRawPointer, _ bufferSize: Int, timeout: Int32) -> Int {
        let n = epoll.wait(epollFD, events, maxEvents, timeout)
        for i in 0..<max(0, Int(n)) {
            let (_, fd) = Epoll.event(events, i)
            guard fd >= 0, Int(fd) < slot.count, slot[Int(fd)] >= 0 else { continue }
            let s = streams[Int(slot[Int(fd)])]
            while !s.closed {
                let got = recv(fd, buffer, bufferSize, 0)
                if got > 0 {
                    let now = fanoutNow()
                    s.feed(UnsafeRawBufferPointer(start: buffer, count: got), now: now,
                           onSnapshot: { control.ready.add(1, ordering: .relaxed) },
                           onChange: { v in
                               if v == knownTarget && s.live && !s.hasTarget {
                                   s.hasTarget = true
                                   control.done.add(1, ordering: .relaxed)
                               }
                           })
                    if let error = s.error {
                        control.badStatus.add(1, ordering: .relaxed)
                        control.firstErrors.withLock { if $0.status == nil { $0.status = error } }
                        s.closed = true
                    }
                    if got < bufferSize { break }
                } else if got == 0 {
                    s.closed = true
                } else {
                    let e = errno
                    if e == EINTR { continue }
                    if e == EAGAIN || e == EWOULDBLOCK { break }
                    s.closed = true
                }
            }
            if s.closed { _ = Epoll.control(epoll, epollFD, Epoll.CTL_DEL, fd, 0) }
        }
        if !frozen && control.phase.load(ordering: .sequentiallyConsistent) == 1 {
            frozen = true
            var live = 0
            for s in streams where s.snapshotVersion != nil {
                s.live = true
                live += 1
            }
            control.liveCount.add(live, ordering: .sequentiallyConsistent)
            control.acks.add(1, ordering: .sequentiallyConsistent)
        }
        let target = control.target.load(ordering: .sequentiallyConsistent)
        if target >= 0 && target != knownTarget {
            knownTarget = target
            for s in streams where s.live && !s.hasTarget && s.receiveTime(of: target) != nil {
                s.hasTarget = true
                control.done.add(1, ordering: .relaxed)
            }
        }
        return max(0, Int(n))
    }
}

// MARK: posting

/// One keep-alive connection for POSTs (driver thread only).
final class FanoutPoster {
    let fd: Int32
    var inbound: [UInt8] = []
    var startedAt: Int64 = 0
    var busy = false

    init(fd: Int32) { self.fd = fd }
}

// MARK: the run

struct SSEFanoutRun {
    let o: SSEFanoutOptions

    init(_ options: SSEFanoutOptions) { o = options }

    func run() -> Int32 {
        let nofile = fanoutRaiseNoFile(need: o.subscribers + 16)
        _ = signal(SIGPIPE, SIG_IGN)
        guard let address = FanoutAddress.resolve(host: o.host, port: o.port) else { fanoutFail("cannot resolve \(o.host)") }
        guard let epoll = Epoll.functions else { fanoutFail("epoll is not available") }
        let hostHeader = "\(o.host.contains(":") ? "[\(o.host)]" : o.host):\(o.port)"

        // The session.
        let (sessionID, token) = createSession(address, hostHeader: hostHeader)
        print("# sse-fanout \(o.baseURL) session=\(sessionID) subscribers=\(o.subscribers) actions=\(o.actions) "
              + "rate=\(o.rate)/s nofile=\(nofile == Int.max ? "unlimited" : String(nofile))")
        print("# client: storehouse-bench sse-fanout (Swift, epoll), \(o.threads) subscriber threads"
              + (o.batchScheduling ? " (SCHED_BATCH)" : ""))
        fflush(nil)

        // The subscribers, split over the threads.
        let control = SSEFanoutControl()
        let request = Array(("GET /sessions/\(sessionID)/events HTTP/1.1\r\nHost: \(hostHeader)\r\n"
                             + "Accept: text/event-stream\r\nAuthorization: Bearer \(token)\r\n\r\n").utf8)
        let workers = (0..<o.threads).map { k in
            SSEFanoutWorker(count: o.subscribers / o.threads + (k < o.subscribers % o.threads ? 1 : 0),
                            address: address, request: request, control: control,
                            batchScheduling: o.batchScheduling)
        }
        let group = DispatchGroup()
        let connectStart = fanoutNow()
        for worker in workers {
            group.enter()
            NamedThread.start("sse-subscribers") {
                worker.run()
                group.leave()
            }
        }
        while control.connected.load(ordering: .sequentiallyConsistent) < o.threads { usleep(2_000) }
        let readyDeadline = fanoutNow() + Int64(o.connectTimeout * 1e9)
        while fanoutNow() < readyDeadline {
            let ready = control.ready.load(ordering: .relaxed)
            if ready >= o.subscribers { break }
            // Nothing more can arrive once every subscriber has either a snapshot or a failure.
            let failed = control.connectErrors.load(ordering: .relaxed) + control.badStatus.load(ordering: .relaxed)
            if ready + failed >= o.subscribers { break }
            usleep(2_000)
        }
        let connectSeconds = Double(fanoutNow() - connectStart) / 1e9
        let nReady = control.ready.load(ordering: .relaxed)
        let connectErrors = control.connectErrors.load(ordering: .relaxed)
        let badStatus = control.badStatus.load(ordering: .relaxed)
        let firstErrors = control.firstErrors.withLock { $0 }
        print("# subscribers with snapshot: \(nReady)/\(o.subscribers) in \(String(format: "%.2f", connectSeconds))s; "
              + "connect errors: \(connectErrors); bad status: \(badStatus)"
              + (firstErrors.status.map { " (\($0))" } ?? "")
              + (firstErrors.connect.map { " first error: \($0)" } ?? ""))
        fflush(nil)
        control.phase.store(1, ordering: .sequentiallyConsistent)
        while control.acks.load(ordering: .sequentiallyConsistent) < o.threads { usleep(1_000) }
        let liveCount = control.liveCount.load(ordering: .sequentiallyConsistent)
        guard liveCount > 0 else {
            control.stop.store(1, ordering: .sequentiallyConsistent)
            group.wait()
            fanoutFail("no subscriber got a snapshot")
        }

        // The actions, open loop.
        let posts = post(epoll, address, hostHeader: hostHeader, sessionID: sessionID, token: token)

        // Wait until every live subscriber has the last version (or the drain timeout passes).
        let lastVersion = posts.sent.keys.max() ?? 0
        control.target.store(lastVersion, ordering: .sequentiallyConsistent)
        let drainDeadline = fanoutNow() + Int64(o.drainTimeout * 1e9)
        while fanoutNow() < drainDeadline {
            if control.done.load(ordering: .relaxed) >= liveCount { break }
            usleep(20_000)
        }
        control.stop.store(1, ordering: .sequentiallyConsistent)
        group.wait()
        return report(workers.flatMap(\.streams).filter(\.live), posts: posts, lastVersion: lastVersion)
    }

    private func createSession(_ address: FanoutAddress, hostHeader: String) -> (String, String) {
        let body = Array(o.sessionBody.utf8)
        let request = Array(("POST /sessions HTTP/1.1\r\nHost: \(hostHeader)\r\nConnection: close\r\n"
                             + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n").utf8) + body
        let fd: Int32
        switch address.connectBlocking() {
        case .success(let opened): fd = opened
        case .failure(let error): fanoutFail("POST /sessions: \(error)")
        }
        defer { _ = close(fd) }
        guard fanoutSendAll(fd, request) else { fanoutFail("POST /sessions: send failed") }
        var raw: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { raw += chunk[0..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        var malformed = false
        guard let answer = fanoutParseResponse(raw, malformed: &malformed) else {
            fanoutFail("POST /sessions: no complete answer (\(raw.count) bytes)")
        }
        guard answer.status == 201 || answer.status == 200 else {
            fanoutFail("POST /sessions answered \(answer.status): \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
              let id = object["id"] as? String, let token = object["token"] as? String else {
            fanoutFail("POST /sessions: no id and token in \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
        }
        return (id, token)
    }

    struct Posts {
        /// version -> the monotonic ns at which its POST was written
        var sent: [Int: Int64] = [:]
        var latencies: [Int64] = []
        var errors = 0
        var late = 0
        var connections = 0
        var t0: Int64 = 0
    }

    /// sse-fanout.py's open loop: POST k leaves at t0 + k/rate on a free keep-alive connection; when
    /// all are busy a new one is opened (up to --max-posters), else it waits for the first to free up.
    private func post(_ epoll: Epoll.Functions, _ address: FanoutAddress, hostHeader: String, sessionID: String, token: String) -> Posts {
        let body = Array(o.action.utf8)
        var head = "POST /sessions/\(sessionID)/actions HTTP/1.1\r\nHost: \(hostHeader)\r\n"
            + "Authorization: Bearer \(token)\r\nContent-Type: application/json\r\n"
        for h in o.headers { head += h + "\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body

        var result = Posts()
        let epollFD = epoll.create1(Epoll.CLOEXEC)
        guard epollFD >= 0 else { fanoutFail("epoll_create1: \(String(cString: strerror(errno)))") }
        let maxEvents: Int32 = 64
        let events = UnsafeMutableRawPointer.allocate(byteCount: Int(maxEvents) * Epoll.eventSize, alignment: 16)
        var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
        var byFD: [Int32: FanoutPoster] = [:]
        var free: [FanoutPoster] = []
        var waiting = 0
        var inflight = 0
        defer {
            for p in byFD.values { _ = close(p.fd) }
            _ = close(epollFD)
            events.deallocate()
        }

        func open() -> FanoutPoster? {
            switch address.connectBlocking() {
            case .failure:
                result.errors += 1
                return nil
            case .success(let fd):
                fanoutSetNoDelay(fd)
                fanoutSetNonBlocking(fd)
                let p = FanoutPoster(fd: fd)
                byFD[fd] = p
                result.connections += 1
                _ = Epoll.control(epoll, epollFD, Epoll.CTL_ADD, fd, Epoll.IN)
                return p
            }
        }
        func start(_ p: FanoutPoster) {
            p.busy = true
            p.startedAt = fanoutNow()
            inflight += 1
            if !fanoutSendAll(p.fd, request) { finishFailed(p) }
        }
        func finishFailed(_ p: FanoutPoster) {
            // As in sse-fanout.py, a connection that failed is not reused.
            result.errors += 1
            inflight -= 1
            p.busy = false
            _ = Epoll.control(epoll, epollFD, Epoll.CTL_DEL, p.fd, 0)
            _ = close(p.fd)
            byFD[p.fd] = nil
        }
        func dispatchOne() {
            if let p = free.popLast() {
                start(p)
            } else if result.connections < o.maxPosters, let p = open() {
                start(p)
            } else {
                waiting += 1
            }
        }
        func released(_ p: FanoutPoster) {
            if waiting > 0 {
                waiting -= 1
                start(p)
            } else {
                free.append(p)
            }
        }
        func poll(timeoutMs: Int32) {
            let n = epoll.wait(epollFD, events, maxEvents, timeoutMs)
            for i in 0..<max(0, Int(n)) {
                let (_, fd) = Epoll.event(events, i)
                guard let p = byFD[fd] else { continue }
                var gone = false
                while true {
                    let got = readBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if got > 0 {
                        p.inbound += readBuffer[0..<got]
                        if got < readBuffer.count { break }
                    } else if got < 0 && errno == EINTR {
                        continue
                    } else if got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                        break
                    } else {
                        gone = true
                        break
                    }
                }
                var malformed = false
                while p.busy, let answer = fanoutParseResponse(p.inbound, malformed: &malformed) {
                    let end = fanoutNow()
                    p.inbound.removeFirst(answer.used)
                    p.busy = false
                    inflight -= 1
                    result.latencies.append(end - p.startedAt)
                    let version = answer.body.withUnsafeBytes { SSEFanoutStream.versionField($0, from: 0) }
                    if answer.status != 200 || version < 0 {
                        result.errors += 1
                    } else {
                        result.sent[version] = p.startedAt
                    }
                    if !gone { released(p) }
                }
                if (gone || malformed) && byFD[fd] != nil {
                    if p.busy { finishFailed(p) } else {
                        _ = Epoll.control(epoll, epollFD, Epoll.CTL_DEL, fd, 0)
                        _ = close(fd)
                        byFD[fd] = nil
                        free.removeAll { $0 === p }
                    }
                }
            }
        }

        for _ in 0..<min(4, o.maxPosters) {
            if let p = open() { free.append(p) }
        }
        let interval = Int64(1e9 / o.rate)
        let t0 = fanoutNow()
        result.t0 = t0
        var k = 0
        var lastProgress = t0
        while k < o.actions || inflight > 0 || waiting > 0 {
            let now = fanoutNow()
            if k < o.actions {
                let due = t0 + Int64(Double(k) * 1e9 / o.rate)
                if due <= now {
                    if now - due > interval { result.late += 1 }
                    dispatchOne()
                    k += 1
                    continue
                }
                let wait = due - now
                if wait >= 1_000_000 {
                    poll(timeoutMs: Int32(wait / 1_000_000))
                } else {
                    poll(timeoutMs: 0)
                    let left = due - fanoutNow()
                    if left > 0 { usleep(UInt32(left / 1_000)) }
                }
            } else {
                let before = inflight + waiting
                poll(timeoutMs: 100)
                if inflight + waiting != before { lastProgress = fanoutNow() }
                if fanoutNow() - lastProgress > 60_000_000_000 {
                    FileHandle.standardError.write(Data("sse-fanout: \(inflight) POSTs unanswered for 60 s; giving up on them\n".utf8))
                    result.errors += inflight + waiting
                    break
                }
            }
            if inflight == 0 && waiting > 0 && byFD.isEmpty && result.connections >= o.maxPosters {
                // Every connection failed: nothing can carry the rest.
                result.errors += waiting
                waiting = 0
            }
        }
        return result
    }

    // MARK: report (sse-fanout.py's lines and RESULT keys)

    private func report(_ live: [SSEFanoutStream], posts: Posts, lastVersion: Int) -> Int32 {
        let sent = posts.sent.sorted { $0.key < $1.key }
        var latencies: [Int64] = []
        latencies.reserveCapacity(live.count * sent.count)
        var lastByVersion: [Int: Int64] = [:]
        var missed = 0
        var dups = 0
        var outOfOrder = 0
        var expected = 0
        var lost = 0
        for s in live {
            dups += s.dups
            outOfOrder += s.outOfOrder
            let since = s.snapshotVersion ?? 0
            for (v, ts) in sent where v > since {
                expected += 1
                guard let tr = s.receiveTime(of: v) else {
                    missed += 1
                    continue
                }
                let d = tr - ts
                latencies.append(d)
                if d > lastByVersion[v, default: Int64.min] { lastByVersion[v] = d }
            }
            if s.closed && s.receiveTime(of: lastVersion) == nil { lost += 1 }
        }
        latencies.sort()
        let fan = lastByVersion.values.sorted()
        let postLatencies = posts.latencies.sorted()
        let lastStart = posts.sent.values.max() ?? posts.t0
        let achieved = lastStart > posts.t0 ? Double(sent.count - 1) / (Double(lastStart - posts.t0) / 1e9) : Double.nan

        func pct(_ xs: [Int64], _ p: Double) -> Double {
            guard !xs.isEmpty else { return .nan }
            let k = min(xs.count - 1, max(0, Int((p / 100.0 * Double(xs.count - 1)).rounded(.toNearestOrEven))))
            return Double(xs[k]) / 1e6
        }
        func f2(_ x: Double) -> String { String(format: "%.2f", x) }
        func f1(_ x: Double) -> String { String(format: "%.1f", x) }
        /// Python's repr(round(x, digits)).
        func py(_ x: Double, _ digits: Int) -> String {
            guard x.isFinite else { return x.isNaN ? "nan" : (x > 0 ? "inf" : "-inf") }
            let scale = pow(10.0, Double(digits))
            return "\((x * scale).rounded(.toNearestOrEven) / scale)"
        }
        let maxMs = latencies.last.map { Double($0) / 1e6 }
        print("# POSTs: \(sent.count) ok, \(posts.errors) failed, achieved \(f1(achieved))/s on \(posts.connections) connections "
              + "(\(posts.late) left over an interval late); "
              + "POST latency p50 \(f2(pct(postLatencies, 50))) ms p99 \(f2(pct(postLatencies, 99))) ms")
        print("# deliveries: \(latencies.count)/\(expected) (missed \(missed), duplicates \(dups), out of order \(outOfOrder), "
              + "subscribers lost before end: \(lost))")
        print("# delivery latency (POST written -> subscriber has the change), ms:")
        print("#   p50 \(f2(pct(latencies, 50)))  p90 \(f2(pct(latencies, 90)))  p99 \(f2(pct(latencies, 99)))  "
              + "p99.9 \(f2(pct(latencies, 99.9)))  max \(f2(maxMs ?? .nan))")
        print("# fan-out completion (POST written -> last subscriber has it), ms:")
        print("#   p50 \(f2(pct(fan, 50)))  p90 \(f2(pct(fan, 90)))  p99 \(f2(pct(fan, 99)))  max \(f2(fan.last.map { Double($0) / 1e6 } ?? .nan))")
        let summary: [(String, String)] = [
            ("subscribers", "\(live.count)"), ("actions", "\(sent.count)"), ("rate", "\(o.rate)"),
            ("achieved_rate", py(achieved, 1)),
            ("p50_ms", py(pct(latencies, 50), 3)), ("p90_ms", py(pct(latencies, 90), 3)),
            ("p99_ms", py(pct(latencies, 99), 3)), ("p999_ms", py(pct(latencies, 99.9), 3)),
            ("max_ms", maxMs.map { py($0, 3) } ?? "None"),
            ("fanout_p50_ms", py(pct(fan, 50), 3)), ("fanout_p99_ms", py(pct(fan, 99), 3)),
            ("delivered", "\(latencies.count)"), ("expected", "\(expected)"), ("missed", "\(missed)"),
            ("duplicates", "\(dups)"), ("out_of_order", "\(outOfOrder)"),
            ("post_connections", "\(posts.connections)"), ("late_posts", "\(posts.late)"),
            ("post_p50_ms", py(pct(postLatencies, 50), 3)), ("post_p99_ms", py(pct(postLatencies, 99), 3)),
        ]
        print("RESULT workload=sse-fanout " + summary.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        if o.perAction {
            for (v, ts) in sent {
                let last = lastByVersion[v].map { String(format: "%.1f", Double($0) / 1e6) } ?? "-"
                print("# action version=\(v) sent_ms=\(String(format: "%.1f", Double(ts - posts.t0) / 1e6)) last_subscriber_ms=\(last)")
            }
        }
        if o.json {
            print("{" + summary.map { key, value in
                let json = value == "None" ? "null" : value == "nan" ? "NaN" : value
                return "\"\(key)\": \(json)"
            }.joined(separator: ", ") + "}")
        }
        fflush(nil)
        return missed == 0 && live.count == o.subscribers ? 0 : 1
    }
}
