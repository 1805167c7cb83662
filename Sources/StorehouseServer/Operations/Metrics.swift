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

    private struct Counts {
        var requests: [RequestKey: Int] = [:]
        var durationBuckets: [Route: [Int]] = [:]
        var durationSum: [Route: Double] = [:]
        var durationCount: [Route: Int] = [:]
        var actions: [ActionKey: Int] = [:]
        var droppedToSnapshot = 0
    }
    private struct RequestKey: Hashable { let route: Route; let method: String; let status: Int }
    private struct ActionKey: Hashable { let kind: String; let source: String }

    private let counts = Mutex(Counts())
    private let gauges: @Sendable () -> (sessions: Int, subscribers: Int)

    /// `gauges` is read when metrics are rendered (the session count and the open SSE streams).
    public init(gauges: @escaping @Sendable () -> (sessions: Int, subscribers: Int)) {
        self.gauges = gauges
    }

    public func recordRequest(route: Route, method: String, status: Int, seconds: Double) {
        counts.withLock { c in
            c.requests[RequestKey(route: route, method: method, status: status), default: 0] += 1
            var bucket = c.durationBuckets[route] ?? [Int](repeating: 0, count: Self.buckets.count)
            if let index = Self.buckets.firstIndex(where: { seconds <= $0 }) { bucket[index] += 1 }
            c.durationBuckets[route] = bucket
            c.durationSum[route, default: 0] += seconds
            c.durationCount[route, default: 0] += 1
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
        for (key, value) in c.requests.sorted(by: { ($0.key.route.rawValue, $0.key.method, $0.key.status) < ($1.key.route.rawValue, $1.key.method, $1.key.status) }) {
            out += "storehouse_http_requests_total{route=\"\(key.route.rawValue)\",method=\"\(key.method)\",status=\"\(key.status)\"} \(value)\n"
        }
        out += "# HELP storehouse_http_request_duration_seconds Time from a parsed request to its answer.\n# TYPE storehouse_http_request_duration_seconds histogram\n"
        for route in Route.allCases {
            guard let bucket = c.durationBuckets[route] else { continue }
            var cumulative = 0
            for (index, bound) in Self.buckets.enumerated() {
                cumulative += bucket[index]
                out += "storehouse_http_request_duration_seconds_bucket{route=\"\(route.rawValue)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            let total = c.durationCount[route] ?? 0
            out += "storehouse_http_request_duration_seconds_bucket{route=\"\(route.rawValue)\",le=\"+Inf\"} \(total)\n"
            out += "storehouse_http_request_duration_seconds_sum{route=\"\(route.rawValue)\"} \(c.durationSum[route] ?? 0)\n"
            out += "storehouse_http_request_duration_seconds_count{route=\"\(route.rawValue)\"} \(total)\n"
        }
        return out
    }
}
