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

    private struct Counts {
        /// Indexed by `(route * methods.count + method) * commonStatuses.count + status slot`.
        var requests = [Int](repeating: 0, count: Route.allCases.count * Metrics.methods.count * Metrics.commonStatuses.count)
        /// Other statuses, keyed by `RequestKey.packed`.
        var otherRequests: [Int: Int] = [:]
        var durationBuckets = [[Int]](repeating: [Int](repeating: 0, count: Metrics.buckets.count), count: Route.allCases.count)
        var durationSum = [Double](repeating: 0, count: Route.allCases.count)
        var durationCount = [Int](repeating: 0, count: Route.allCases.count)
        /// A handful of (kind, source) pairs: a linear scan of small strings beats hashing two of them.
        var actions: [(kind: String, source: String, count: Int)] = []
        var droppedToSnapshot = 0
        var expired = 0

        mutating func addActions(kind: String, source: String, count: Int) {
            for i in actions.indices where actions[i].kind == kind && actions[i].source == source {
                actions[i].count += count
                return
            }
            actions.append((kind, source, count))
        }

        /// Every request count keyed by `RequestKey.packed`.
        func requestsByKey() -> [Int: Int] {
            var out = otherRequests
            let statuses = Metrics.commonStatuses, methods = Metrics.methods.count
            for (index, value) in requests.enumerated() where value > 0 {
                let slot = index % statuses.count, method = index / statuses.count % methods, route = index / statuses.count / methods
                out[RequestKey(route: route, method: method, status: statuses[slot]).packed, default: 0] += value
            }
            return out
        }

        mutating func merge(_ other: Counts) {
            for i in requests.indices { requests[i] += other.requests[i] }
            for (key, value) in other.otherRequests { otherRequests[key, default: 0] += value }
            for r in durationBuckets.indices {
                for b in durationBuckets[r].indices { durationBuckets[r][b] += other.durationBuckets[r][b] }
                durationSum[r] += other.durationSum[r]
                durationCount[r] += other.durationCount[r]
            }
            for entry in other.actions { addActions(kind: entry.kind, source: entry.source, count: entry.count) }
            droppedToSnapshot += other.droppedToSnapshot
            expired += other.expired
        }
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
    }
    private static let shardCount = 8
    private let shards: [Shard] = (0..<Metrics.shardCount).map { _ in Shard() }
    private let gauges: @Sendable () -> (sessions: Int, subscribers: Int)
    private let memory: @Sendable () -> (accounted: Int, limit: Int, resident: Int)?

    /// `gauges` is read when metrics are rendered (the session count and the open SSE streams),
    /// and `memory` (the memory budget's figures) when there is one.
    public init(gauges: @escaping @Sendable () -> (sessions: Int, subscribers: Int),
                memory: @escaping @Sendable () -> (accounted: Int, limit: Int, resident: Int)? = { nil }) {
        self.gauges = gauges
        self.memory = memory
    }

    private var shard: Shard { shards[ThreadNumber.current % Self.shardCount] }

    public func recordRequest(route: Route, method: String, status: Int, seconds: Double) {
        let routeIndex = route.index
        let methodIndex = Self.methodIndex(method)
        let bucket = Self.buckets.firstIndex(where: { seconds <= $0 })
        let slot = Self.statusSlot(status)
        shard.counts.withLock { c in
            if let slot {
                c.requests[(routeIndex * Self.methods.count + methodIndex) * Self.commonStatuses.count + slot] += 1
            } else {
                let key = RequestKey(route: routeIndex, method: methodIndex, status: min(max(status, 0), 0xFFFF)).packed
                c.otherRequests[key, default: 0] += 1
            }
            if let bucket { c.durationBuckets[routeIndex][bucket] += 1 }
            c.durationSum[routeIndex] += seconds
            c.durationCount[routeIndex] += 1
        }
    }

    public func recordActions(kind: String, source: String, count: Int) {
        shard.counts.withLock { $0.addActions(kind: kind, source: source, count: count) }
    }

    /// A session deleted for its idleness (`storehouse_sessions_expired_total`).
    func recordExpiry() {
        shard.counts.withLock { $0.expired += 1 }
    }

    public func recordSubscriberReset() {
        shard.counts.withLock { $0.droppedToSnapshot += 1 }
    }

    static func methodIndex(_ method: String) -> Int {
        switch method {
        case "GET": return 0
        case "HEAD": return 1
        case "POST": return 2
        case "DELETE": return 3
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
        for shard in shards { c.merge(shard.counts.withLock { $0 }) }
        let g = gauges()
        var out = """
        # HELP storehouse_sessions Sessions held in memory.
        # TYPE storehouse_sessions gauge
        storehouse_sessions \(g.sessions)
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
        for (packed, value) in c.requestsByKey().sorted(by: { $0.key < $1.key }) {
            let key = RequestKey(packed: packed)
            out += "storehouse_http_requests_total{route=\"\(routes[key.route].rawValue)\",method=\"\(Self.methods[key.method])\",status=\"\(key.status)\"} \(value)\n"
        }
        out += "# HELP storehouse_http_request_duration_seconds Time from a parsed request to its answer.\n# TYPE storehouse_http_request_duration_seconds histogram\n"
        for (index, route) in routes.enumerated() where c.durationCount[index] > 0 {
            let bucket = c.durationBuckets[index]
            var cumulative = 0
            for (index, bound) in Self.buckets.enumerated() {
                cumulative += bucket[index]
                out += "storehouse_http_request_duration_seconds_bucket{route=\"\(route.rawValue)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            let total = c.durationCount[index]
            out += "storehouse_http_request_duration_seconds_bucket{route=\"\(route.rawValue)\",le=\"+Inf\"} \(total)\n"
            out += "storehouse_http_request_duration_seconds_sum{route=\"\(route.rawValue)\"} \(c.durationSum[index])\n"
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
