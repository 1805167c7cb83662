#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Counters behind `GET /metrics`, written as Prometheus text exposition format 0.0.4.
///
/// Every request and action updates it under one short lock; the expensive part,
/// rendering, happens only when `/metrics` is read.
public final class Metrics: Sendable {
    /// The route families requests are counted by; ids never become labels.
    public enum Route: String, Sendable, CaseIterable {
        case healthz = "/healthz", readyz = "/readyz", metrics = "/metrics", kinds = "/kinds", problems = "/problems/{slug}"
        case sessions = "/sessions", session = "/sessions/{id}", state = "/sessions/{id}/state"
        case actions = "/sessions/{id}/actions", events = "/sessions/{id}/events"
        case export = "/sessions/{id}/export", sessionImport = "/sessions/import", other = "other"

        /// The position in `allCases`, without building that array.
        var index: Int {
            switch self {
            case .healthz: return 0
            case .readyz: return 1
            case .metrics: return 2
            case .kinds: return 3
            case .problems: return 4
            case .sessions: return 5
            case .session: return 6
            case .state: return 7
            case .actions: return 8
            case .events: return 9
            case .export: return 10
            case .sessionImport: return 11
            case .other: return 12
            }
        }
    }

    /// Upper bounds of the request-duration histogram, in seconds.
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    /// Methods the API serves get their own label; anything else counts as "other".
    static let methods = ["GET", "HEAD", "POST", "DELETE", "other"]

    /// Statuses counted in a flat array (the others in a dictionary), so counting a request hashes nothing.
    static let commonStatuses = [200, 201, 204, 304, 400, 401, 404, 405, 406, 408, 409, 412, 413, 415, 422, 428, 500, 503]

    /// Statuses counted in `CounterTable`'s slots; the others in `Counts.otherRequests`.
    static let statusSlots = commonStatuses.count

    /// The bucket bounds in nanoseconds: a request's duration is placed without floating point.
    static let bucketNanos: [UInt64] = buckets.map { UInt64(($0 * 1e9).rounded()) }

    /// What is counted under the shard's lock: things counted rarely, or keyed by strings.
    private struct Counts {
        /// Requests whose status has no slot in `CounterTable`, keyed by `RequestKey.packed`.
        var otherRequests: [Int: Int] = [:]
        /// A handful of (kind, source) pairs: a linear scan of small strings beats hashing two of them.
        var actions: [(kind: String, source: String, count: Int)] = []
        var droppedToSnapshot = 0
        var expired = 0
        var hibernations = 0
        var loads = 0

        mutating func addActions(kind: String, source: String, count: Int) {
            for i in actions.indices where actions[i].kind == kind && actions[i].source == source {
                actions[i].count += count
                return
            }
            actions.append((kind, source, count))
        }

        mutating func merge(_ other: Counts) {
            for (key, value) in other.otherRequests { otherRequests[key, default: 0] += value }
            for entry in other.actions { addActions(kind: entry.kind, source: entry.source, count: entry.count) }
            droppedToSnapshot += other.droppedToSnapshot
            expired += other.expired
            hibernations += other.hibernations
            loads += other.loads
        }
    }

    /// A shard's counters: fixed slots of relaxed atomics, allocated once and indexed by small
    /// integers, so counting takes no lock and touches no array's storage checks. Summed over the
    /// shards when `/metrics` is read.
    ///
    /// The requests' layout: counts by `(route * methods + method) * statusSlots + slot`, then each
    /// route's duration buckets, then each route's count, then each route's sum in nanoseconds.
    /// The actions': one slot per (kind, source) pair (`actionSlot`).
    private final class CounterTable: @unchecked Sendable {  // every slot is an Atomic, written and read only through it
        static let routes = Route.allCases.count
        static let requestSlots = routes * Metrics.methods.count * Metrics.statusSlots
        static let bucketBase = requestSlots
        static let countBase = bucketBase + routes * Metrics.buckets.count
        static let sumBase = countBase + routes
        static let requestTableSize = sumBase + routes

        let slots: UnsafeMutablePointer<Atomic<Int>>
        let size: Int

        init(size: Int) {
            self.size = size
            slots = .allocate(capacity: size)
            for i in 0..<size { (slots + i).initialize(to: Atomic(0)) }
        }

        deinit {
            slots.deinitialize(count: size)
            slots.deallocate()
        }

        func add(_ slot: Int, _ value: Int = 1) { slots[slot].wrappingAdd(value, ordering: .relaxed) }
        func value(_ slot: Int) -> Int { slots[slot].load(ordering: .relaxed) }
    }

    /// The requests counted in every shard's table, summed.
    private struct RequestTotals {
        var slots = [Int](repeating: 0, count: CounterTable.requestTableSize)

        mutating func add(_ table: CounterTable) {
            for i in slots.indices { slots[i] &+= table.value(i) }
        }

        /// Every request count keyed by `RequestKey.packed`, with the ones of uncommon statuses.
        func requestsByKey(adding other: [Int: Int]) -> [Int: Int] {
            var out = other
            let statuses = Metrics.commonStatuses, methods = Metrics.methods.count
            for index in 0..<CounterTable.requestSlots where slots[index] > 0 {
                let slot = index % statuses.count, method = index / statuses.count % methods, route = index / statuses.count / methods
                out[RequestKey(route: route, method: method, status: statuses[slot]).packed, default: 0] += slots[index]
            }
            return out
        }

        func bucket(route: Int, _ bucket: Int) -> Int { slots[CounterTable.bucketBase + route * Metrics.buckets.count + bucket] }
        func count(route: Int) -> Int { slots[CounterTable.countBase + route] }
        func seconds(route: Int) -> Double { Double(slots[CounterTable.sumBase + route]) / 1e9 }
    }

    private struct RequestKey {
        let route: Int, method: Int, status: Int
        var packed: Int { route << 24 | method << 16 | status }
        init(route: Int, method: Int, status: Int) { (self.route, self.method, self.status) = (route, method, status) }
        init(packed: Int) { self.init(route: packed >> 24, method: packed >> 16 & 0xFF, status: packed & 0xFFFF) }
    }

    /// One lock per shard; each thread records into the shard of its thread number, so the I/O
    /// loops (and the journal's thread) do not wait for each other's counting. Only `render` takes them all.
    private final class Shard: Sendable {
        let counts = Mutex(Counts())
        let requests = CounterTable(size: CounterTable.requestTableSize)
        let actions = CounterTable(size: Metrics.actionSlots)
    }

    /// How many (kind, source) pairs get an atomic slot; more are counted under the shard's lock.
    static let actionSlots = 64
    /// The (kind, source) pair of each action slot, in the order they were named.
    private let actionPairs = Mutex<[(kind: String, source: String)]>([])
    private static let shardCount = 8
    private let shards: [Shard] = (0..<Metrics.shardCount).map { _ in Shard() }
    private let gauges: @Sendable () -> (sessions: Int, subscribers: Int)
    private let memory: @Sendable () -> (accounted: Int, limit: Int, resident: Int)?
    /// Sessions in memory now; nil: every session is.
    private let residentSessions: (@Sendable () -> Int)?

    /// `gauges` is read when metrics are rendered (the session count and the open SSE streams),
    /// and `memory` (the memory budget's figures) when there is one.
    public init(gauges: @escaping @Sendable () -> (sessions: Int, subscribers: Int),
                memory: @escaping @Sendable () -> (accounted: Int, limit: Int, resident: Int)? = { nil },
                residentSessions: (@Sendable () -> Int)? = nil) {
        self.gauges = gauges
        self.memory = memory
        self.residentSessions = residentSessions
    }

    private var shard: Shard { shards[ThreadNumber.current % Self.shardCount] }

    /// Counts a request answered with `status` after `seconds`.
    ///
    /// ```swift
    /// metrics.recordRequest(route: .state, method: "GET", status: 200, seconds: 0.0002)
    /// ```
    public func recordRequest(route: Route, method: String, status: Int, seconds: Double) {
        // NaN and negative durations count as 0; more than a century as a century.
        let nanos = seconds > 0 ? UInt64(min(seconds, 3e9) * 1e9) : 0
        recordRequest(route: route, method: Self.methodIndex(method), status: status, nanos: nanos)
    }

    /// The same, with the method's index (`methodIndex`) and the duration in nanoseconds: a few
    /// relaxed atomic adds into the thread's shard, no lock and no string.
    func recordRequest(route: Route, method methodIndex: Int, status: Int, nanos: UInt64) {
        let routeIndex = route.index
        let shard = self.shard
        if let slot = Self.statusSlot(status) {
            shard.requests.add((routeIndex * Self.methods.count + methodIndex) * Self.statusSlots + slot)
        } else {
            let key = RequestKey(route: routeIndex, method: methodIndex, status: min(max(status, 0), 0xFFFF)).packed
            shard.counts.withLock { $0.otherRequests[key, default: 0] += 1 }
        }
        let bounds = Self.bucketNanos
        for bucket in 0..<bounds.count where nanos <= bounds[bucket] {
            shard.requests.add(CounterTable.bucketBase + routeIndex * bounds.count + bucket)
            break
        }
        shard.requests.add(CounterTable.countBase + routeIndex)
        shard.requests.add(CounterTable.sumBase + routeIndex, Int(truncatingIfNeeded: nanos))
    }

    /// The slot that counts actions of `kind` from `source` (`recordActions(slot:count:)`), named
    /// once by whoever counts them often (a session, for its kind); nil when the slots are taken.
    func actionSlot(kind: String, source: String) -> Int? {
        actionPairs.withLock { pairs in
            if let index = pairs.firstIndex(where: { $0.kind == kind && $0.source == source }) { return index }
            guard pairs.count < Self.actionSlots else { return nil }
            pairs.append((kind, source))
            return pairs.count - 1
        }
    }

    /// Counts `count` actions of the pair `slot` names: one relaxed atomic add, no string.
    func recordActions(slot: Int, count: Int) {
        shard.actions.add(slot, count)
    }

    public func recordActions(kind: String, source: String, count: Int) {
        shard.counts.withLock { $0.addActions(kind: kind, source: source, count: count) }
    }

    /// A session deleted for its idleness (`storehouse_sessions_expired_total`).
    func recordExpiry() {
        shard.counts.withLock { $0.expired += 1 }
    }

    /// A session left memory for its idleness (`storehouse_session_hibernations_total`).
    func recordHibernation() {
        shard.counts.withLock { $0.hibernations += 1 }
    }

    /// A hibernated session was read back from disk (`storehouse_session_loads_total`).
    func recordLoad() {
        shard.counts.withLock { $0.loads += 1 }
    }

    public func recordSubscriberReset() {
        shard.counts.withLock { $0.droppedToSnapshot += 1 }
    }

    static func methodIndex(_ method: String) -> Int {
        // By length first: a small string's `==` compares its bits when it matches, but each
        // miss calls into the runtime, and a switch over the literals tried GET and HEAD before POST.
        switch method.utf8.count {
        case 3: return method == "GET" ? 0 : 4
        case 4: return method == "POST" ? 2 : method == "HEAD" ? 1 : 4
        case 6: return method == "DELETE" ? 3 : 4
        default: return 4
        }
    }

    static func statusSlot(_ status: Int) -> Int? {
        switch status {
        case 200: return 0
        case 201: return 1
        case 204: return 2
        case 304: return 3
        case 400: return 4
        case 401: return 5
        case 404: return 6
        case 405: return 7
        case 406: return 8
        case 408: return 9
        case 409: return 10
        case 412: return 11
        case 413: return 12
        case 415: return 13
        case 422: return 14
        case 428: return 15
        case 500: return 16
        case 503: return 17
        default: return nil
        }
    }

    private func memoryGauges() -> String {
        guard let m = memory() else { return "" }
        return """
        # HELP storehouse_memory_accounted_bytes What sessions hold, as the memory budget counts it (history, kept states, idempotency answers, subscriber buffers).
        # TYPE storehouse_memory_accounted_bytes gauge
        storehouse_memory_accounted_bytes \(m.accounted)
        # HELP storehouse_memory_resident_bytes The process's resident memory.
        # TYPE storehouse_memory_resident_bytes gauge
        storehouse_memory_resident_bytes \(m.resident)
        # HELP storehouse_memory_budget_bytes The memory budget (--max-memory).
        # TYPE storehouse_memory_budget_bytes gauge
        storehouse_memory_budget_bytes \(m.limit)

        """
    }

    /// The exposition text.
    public func render() -> String {
        var c = Counts()
        var totals = RequestTotals()
        for shard in shards {
            c.merge(shard.counts.withLock { $0 })
            totals.add(shard.requests)
        }
        for (slot, pair) in actionPairs.withLock({ $0 }).enumerated() {
            let count = shards.reduce(0) { $0 &+ $1.actions.value(slot) }
            if count > 0 { c.addActions(kind: pair.kind, source: pair.source, count: count) }
        }
        let g = gauges()
        var out = """
        # HELP storehouse_sessions Sessions the server holds, in memory or hibernated.
        # TYPE storehouse_sessions gauge
        storehouse_sessions \(g.sessions)
        # HELP storehouse_sessions_resident Sessions in memory now; the others are hibernated, on disk only.
        # TYPE storehouse_sessions_resident gauge
        storehouse_sessions_resident \(residentSessions?() ?? g.sessions)
        # HELP storehouse_session_hibernations_total Sessions that left memory after --hibernate-after-s without use.
        # TYPE storehouse_session_hibernations_total counter
        storehouse_session_hibernations_total \(c.hibernations)
        # HELP storehouse_session_loads_total Hibernated sessions read back from disk for a request.
        # TYPE storehouse_session_loads_total counter
        storehouse_session_loads_total \(c.loads)
        # HELP storehouse_subscribers Open SSE event streams.
        # TYPE storehouse_subscribers gauge
        storehouse_subscribers \(g.subscribers)
        \(memoryGauges())# HELP storehouse_subscriber_resets_total Slow subscribers whose queued changes were replaced by a snapshot.
        # TYPE storehouse_subscriber_resets_total counter
        storehouse_subscriber_resets_total \(c.droppedToSnapshot)
        # HELP storehouse_sessions_expired_total Sessions deleted because their ttlSeconds passed without a request or an action.
        # TYPE storehouse_sessions_expired_total counter
        storehouse_sessions_expired_total \(c.expired)
        # HELP storehouse_actions_total Actions applied, by kind and source.
        # TYPE storehouse_actions_total counter

        """
        for entry in c.actions.sorted(by: { ($0.kind, $0.source) < ($1.kind, $1.source) }) {
            out += "storehouse_actions_total{kind=\"\(entry.kind)\",source=\"\(entry.source)\"} \(entry.count)\n"
        }
        out += "# HELP storehouse_http_requests_total HTTP requests answered, by route, method and status.\n# TYPE storehouse_http_requests_total counter\n"
        let routes = Route.allCases
        for (packed, value) in totals.requestsByKey(adding: c.otherRequests).sorted(by: { $0.key < $1.key }) {
            let key = RequestKey(packed: packed)
            out += "storehouse_http_requests_total{route=\"\(routes[key.route].rawValue)\",method=\"\(Self.methods[key.method])\",status=\"\(key.status)\"} \(value)\n"
        }
        out += "# HELP storehouse_http_request_duration_seconds Time from a parsed request to its answer.\n# TYPE storehouse_http_request_duration_seconds histogram\n"
        for (index, route) in routes.enumerated() where totals.count(route: index) > 0 {
            var cumulative = 0
            for (bucket, bound) in Self.buckets.enumerated() {
                cumulative += totals.bucket(route: index, bucket)
                out += "storehouse_http_request_duration_seconds_bucket{route=\"\(route.rawValue)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            let total = totals.count(route: index)
            out += "storehouse_http_request_duration_seconds_bucket{route=\"\(route.rawValue)\",le=\"+Inf\"} \(total)\n"
            out += "storehouse_http_request_duration_seconds_sum{route=\"\(route.rawValue)\"} \(totals.seconds(route: index))\n"
            out += "storehouse_http_request_duration_seconds_count{route=\"\(route.rawValue)\"} \(total)\n"
        }
        return out
    }
}

/// A small number per thread, handed out in order of first use, for sharding per-thread counters.
enum ThreadNumber {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
    private static let next = Atomic<Int>(1)

    static var current: Int {
        // The number is stored as the thread-specific pointer's bit pattern; 0 (nil) means unassigned.
        if let stored = pthread_getspecific(key) { return Int(bitPattern: stored) }
        let number = next.wrappingAdd(1, ordering: .relaxed).oldValue
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: number))
        return number
    }
}
