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
        responder.respond(response)
        record(status: response.status)
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
