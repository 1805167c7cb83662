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
        case actions = "/sessions/{id}/actions", events = "/sessions/{id}/events", other = "other"
    }

    /// Upper bounds of the request-duration histogram, in seconds.
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    /// Methods the API serves get their own label; anything else counts as "other".
    static let methods = ["GET", "HEAD", "POST", "DELETE", "other"]

    private struct Counts {
        /// Keyed by `RequestKey.packed`, an Int, so counting a request hashes no string.
        var requests: [Int: Int] = [:]
        var durationBuckets = [[Int]](repeating: [Int](repeating: 0, count: Metrics.buckets.count), count: Route.allCases.count)
        var durationSum = [Double](repeating: 0, count: Route.allCases.count)
        var durationCount = [Int](repeating: 0, count: Route.allCases.count)
        var actions: [ActionKey: Int] = [:]
        var droppedToSnapshot = 0
    }
    private struct RequestKey {
        let route: Int, method: Int, status: Int
        var packed: Int { route << 24 | method << 16 | status }
        init(route: Int, method: Int, status: Int) { (self.route, self.method, self.status) = (route, method, status) }
        init(packed: Int) { self.init(route: packed >> 24, method: packed >> 16 & 0xFF, status: packed & 0xFFFF) }
    }
    private struct ActionKey: Hashable { let kind: String; let source: String }

    private let counts = Mutex(Counts())
    private let gauges: @Sendable () -> (sessions: Int, subscribers: Int)

    /// `gauges` is read when metrics are rendered (the session count and the open SSE streams).
    public init(gauges: @escaping @Sendable () -> (sessions: Int, subscribers: Int)) {
        self.gauges = gauges
    }

    public func recordRequest(route: Route, method: String, status: Int, seconds: Double) {
        let routeIndex = Route.allCases.firstIndex(of: route) ?? 0
        let methodIndex = Self.methods.firstIndex(of: method) ?? Self.methods.count - 1
        let key = RequestKey(route: routeIndex, method: methodIndex, status: min(max(status, 0), 0xFFFF)).packed
        let bucket = Self.buckets.firstIndex(where: { seconds <= $0 })
        counts.withLock { c in
            c.requests[key, default: 0] += 1
            if let bucket { c.durationBuckets[routeIndex][bucket] += 1 }
            c.durationSum[routeIndex] += seconds
            c.durationCount[routeIndex] += 1
        }
    }

    public func recordActions(kind: String, source: String, count: Int) {
        counts.withLock { $0.actions[ActionKey(kind: kind, source: source), default: 0] += count }
    }

    public func recordSubscriberReset() {
        counts.withLock { $0.droppedToSnapshot += 1 }
    }

    /// The exposition text.
    public func render() -> String {
        let c = counts.withLock { $0 }
        let g = gauges()
        var out = """
        # HELP storehouse_sessions Sessions held in memory.
        # TYPE storehouse_sessions gauge
        storehouse_sessions \(g.sessions)
        # HELP storehouse_subscribers Open SSE event streams.
        # TYPE storehouse_subscribers gauge
        storehouse_subscribers \(g.subscribers)
        # HELP storehouse_subscriber_resets_total Slow subscribers whose queued changes were replaced by a snapshot.
        # TYPE storehouse_subscriber_resets_total counter
        storehouse_subscriber_resets_total \(c.droppedToSnapshot)
        # HELP storehouse_actions_total Actions applied, by kind and source.
        # TYPE storehouse_actions_total counter

        """
        for (key, value) in c.actions.sorted(by: { ($0.key.kind, $0.key.source) < ($1.key.kind, $1.key.source) }) {
            out += "storehouse_actions_total{kind=\"\(key.kind)\",source=\"\(key.source)\"} \(value)\n"
        }
        out += "# HELP storehouse_http_requests_total HTTP requests answered, by route, method and status.\n# TYPE storehouse_http_requests_total counter\n"
        let routes = Route.allCases
        for (packed, value) in c.requests.sorted(by: { $0.key < $1.key }) {
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
