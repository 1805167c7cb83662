import Glibc
import HTTPEngine

/// One request on its way to an answer: sends it once, and counts and logs it when it leaves.
///
/// A class: what carries it to the answer (a session's `ReplyTo`, a durable read) holds one
/// reference, where a struct's copy retained each of its eight references.
final class Exchange: Sendable {
    let request: HTTPRequest
    let responder: HTTPResponder
    let route: Metrics.Route
    /// When the request was routed, in nanoseconds of `CLOCK_MONOTONIC`: a `ContinuousClock`
    /// instant's arithmetic (128-bit attoseconds) cost ~400 instructions per answer, on the journal's
    /// thread for every durable POST.
    let started: UInt64
    let metrics: Metrics
    let accessLog: AccessLog
    let now: @Sendable () -> Int64

    init(request: HTTPRequest, responder: HTTPResponder, route: Metrics.Route, started: UInt64, metrics: Metrics,
         accessLog: AccessLog, now: @escaping @Sendable () -> Int64) {
        self.request = request
        self.responder = responder
        self.route = route
        self.started = started
        self.metrics = metrics
        self.accessLog = accessLog
        self.now = now
    }

    func send(_ response: HTTPResponse) {
        var response = response
        CORS.addHeaders(for: request, to: &response.headers)
        // Counted before it leaves: the answer may be written to the socket inside `respond`,
        // and a client that has it must find it in /metrics.
        record(status: response.status)
        responder.respond(response)
    }

    /// Starts a streaming answer (SSE) with the same CORS headers as any other answer.
    func startStream(status: Int, headers: HTTPHeaders) -> HTTPStream {
        var headers = headers
        CORS.addHeaders(for: request, to: &headers)
        return responder.startStream(status: status, headers: headers)
    }

    func send(_ problem: Problem) { send(problem.response()) }

    static func monotonicNanos() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    func record(status: Int) {
        let seconds = Double(Self.monotonicNanos() &- started) / 1e9
        metrics.recordRequest(route: route, method: request.method, status: status, seconds: seconds)
        if accessLog.enabled {
            accessLog.record(method: request.method, path: request.path, status: status, seconds: seconds, now: now())
        }
    }
}
