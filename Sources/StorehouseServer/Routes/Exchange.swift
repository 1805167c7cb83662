import Glibc
import HTTPEngine

/// One request on its way to an answer: sends it once, and counts and logs it when it leaves.
///
/// A class: what carries it to the answer (a session's `ReplyTo`, a durable read) holds one
/// reference, where a struct's copy retained each of its eight references. The engine's
/// responder itself (`Router.responder(for:answering:)`): a request allocates one object for
/// both, not two.
// @unchecked as its superclass: every stored property is a `let` of a Sendable type.
final class Exchange: HTTPResponder, @unchecked Sendable {
    let route: Metrics.Route
    /// The request's method as `Metrics.methodIndex` numbers it, read once for the route table
    /// (`Endpoint(route:methodIndex:)`) and the metrics: no method string is compared again.
    let methodIndex: Int
    /// When the request was routed, in nanoseconds of `CLOCK_MONOTONIC`: a `ContinuousClock`
    /// instant's arithmetic (128-bit attoseconds) cost ~400 instructions per answer, on the journal's
    /// thread for every durable POST.
    let started: UInt64
    /// The wall clock when the request was routed (`SessionContext.now`, milliseconds): read once
    /// and shared by what stamps the request (the session's last use and idle clock, its actions' `at`).
    let now: Int64
    /// The router: its metrics, access log and clock, one reference rather than three.
    let router: Router
    /// The path's second segment (a session's id, a problem's slug), as UTF-8 offsets in the path.
    let nameRange: Range<Int>
    /// The session id the path names, packed, when it is well-formed: what the registry looks up.
    let key: PackedSessionID?

    init(request: consuming HTTPRequest, answering slot: Slot, route: Metrics.Route, started: UInt64, now: Int64, router: Router,
         nameRange: Range<Int>, key: PackedSessionID?) {
        self.route = route
        self.methodIndex = Metrics.methodIndex(request.method)
        self.started = started
        self.now = now
        self.router = router
        self.nameRange = nameRange
        self.key = key
        super.init(request: request, answering: slot)
    }

    /// The path's second segment as a string, made when asked: a request for a resident session
    /// never asks (the registry looks up `key`).
    var name: String {
        request.withPathBytes { path in
            nameRange.upperBound <= path.count ? String(decoding: UnsafeBufferPointer(rebasing: path[nameRange]), as: UTF8.self) : ""
        }
    }

    func send(_ response: consuming HTTPResponse) {
        let saysVary = response.headers.contains(static: "Vary", "Origin")
        send(response, saysVary: saysVary)
    }

    /// Sends an answer whose builder knows whether it says `Vary: Origin` (every answer of
    /// `JSONAnswer` and `Problem` does): its headers are not searched for it. The answer is
    /// taken, not copied: the CORS fields are added to it in place.
    func send(_ response: consuming HTTPResponse, saysVary: Bool) {
        CORS.addHeaders(for: request, to: &response, saysVary: saysVary)
        // Counted before it leaves: the answer may be written to the socket inside `respond`,
        // and a client that has it must find it in /metrics.
        record(status: response.status)
        respond(response)
    }

    /// Starts a streaming answer (SSE) with the same CORS headers as any other answer: `send`'s
    /// counterpart (the engine's `startStream` adds none).
    func sendStream(status: Int, headers: HTTPHeaders) -> HTTPStream {
        var headers = headers
        CORS.addHeaders(for: request, to: &headers)
        return super.startStream(status: status, headers: headers)
    }

    func send(_ problem: Problem) { send(problem.response(), saysVary: true) }

    static func monotonicNanos() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    func record(status: Int) {
        let nanos = Self.monotonicNanos() &- started
        router.metrics.recordRequest(route: route, method: methodIndex, status: status, nanos: nanos)
        if router.accessLog.enabled {
            router.accessLog.record(method: request.method, path: request.path, status: status, seconds: Double(nanos) / 1e9,
                                    now: router.registry.context.now())
        }
    }
}
