import HTTPEngine

/// One request on its way to an answer: sends it once, and counts and logs it when it leaves.
struct Exchange: Sendable {
    let request: HTTPRequest
    let responder: HTTPResponder
    let route: Metrics.Route
    let started: ContinuousClock.Instant
    let metrics: Metrics
    let accessLog: AccessLog
    let now: @Sendable () -> Int64

    func send(_ response: HTTPResponse) {
        var response = response
        CORS.addHeaders(for: request, to: &response.headers)
        responder.respond(response)
        record(status: response.status)
    }

    /// Starts a streaming answer (SSE) with the same CORS headers as any other answer.
    func startStream(status: Int, headers: HTTPHeaders) -> HTTPStream {
        var headers = headers
        CORS.addHeaders(for: request, to: &headers)
        return responder.startStream(status: status, headers: headers)
    }

    func send(_ problem: Problem) { send(problem.response()) }

    func record(status: Int) {
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.recordRequest(route: route, method: request.method, status: status, seconds: seconds)
        if accessLog.enabled {
            accessLog.record(method: request.method, path: request.path, status: status, seconds: seconds, now: now())
        }
    }
}
