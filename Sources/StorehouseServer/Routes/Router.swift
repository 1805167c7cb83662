import HTTPEngine
import StoreCore
import StoreKinds
import Synchronization

/// The routes of API.md: maps a parsed request to the operations and the sessions.
///
/// It runs on the engine's I/O thread. Everything it does there is short — parse
/// a body, take a session's lock, apply one reducer, encode the answer — and an
/// answer that must wait for the journal is sent once the loop commits its
/// iteration's appends (`eventLoopWillWait`), or from the journal's thread.
final class Router: HTTPHandler {
    let registry: SessionRegistry
    let metrics: Metrics
    let accessLog: AccessLog
    let readiness: Readiness
    let kindsBody: [UInt8]

    init(registry: SessionRegistry, metrics: Metrics, accessLog: AccessLog, readiness: Readiness) {
        self.registry = registry
        self.metrics = metrics
        self.accessLog = accessLog
        self.readiness = readiness
        kindsBody = Router.encodeKinds(environment: registry.context.effectEnvironment)
    }

    /// The loop's appends of this iteration become durable together, and are answered from here.
    func eventLoopWillWait() {
        registry.context.log.commitPending()
    }

    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let parts = Array(segments)
        let method = request.method == "HEAD" ? "GET" : request.method
        let route = Self.route(parts)
        let exchange = Exchange(request: request, responder: responder, route: route, started: .now,
                                metrics: metrics, accessLog: accessLog, now: registry.context.now)
        switch (route, method) {
        case (.healthz, "GET"):
            exchange.send(JSONAnswer.ok(Array(#"{"status":"ok"}"#.utf8)))
        case (.readyz, "GET"):
            if let problem = readiness.problem { exchange.send(problem) } else { exchange.send(JSONAnswer.ok(Array(#"{"status":"ready"}"#.utf8))) }
        case (.metrics, "GET"):
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            exchange.send(HTTPResponse(status: 200, headers: headers, body: Array(metrics.render().utf8)))
        case (.kinds, "GET"):
            exchange.send(JSONAnswer.ok(kindsBody))
        case (.problems, "GET"):
            explainProblem(String(parts[1]), exchange)
        case (.sessions, "POST"):
            guard readyForSessions(exchange) else { return }
            createSession(exchange)
        case (.session, "GET"), (.session, "DELETE"), (.state, "GET"), (.actions, "GET"), (.actions, "POST"), (.events, "GET"):
            guard readyForSessions(exchange) else { return }
            let id = String(parts[1])
            guard let session = authorize(request, id: id, allowQueryToken: route == .state || route == .events, exchange) else { return }
            switch (route, method) {
            case (.session, "GET"): exchange.send(JSONAnswer.ok(session.metadataJSON()))
            case (.session, _): deleteSession(session, exchange)
            case (.state, _): readState(session, exchange)
            case (.actions, "GET"): readLog(session, exchange)
            case (.actions, _): postActions(session, exchange)
            default: openEvents(session, exchange)
            }
        case (.other, _):
            exchange.send(Problem(404, "not-found", "nothing is served at \(request.path)"))
        default:
            let allow = Self.allowed(route)
            exchange.send(Problem(405, "method-not-allowed", "\(request.method) is not allowed here; use \(allow)", headers: [("Allow", allow)]))
        }
    }

    /// The route family of a path; ids and slugs are not interpreted here.
    static func route(_ parts: [Substring]) -> Metrics.Route {
        switch parts.count {
        case 1:
            switch parts[0] {
            case "healthz": return .healthz
            case "readyz": return .readyz
            case "metrics": return .metrics
            case "kinds": return .kinds
            case "sessions": return .sessions
            default: return .other
            }
        case 2 where parts[0] == "sessions" && !parts[1].isEmpty: return .session
        case 2 where parts[0] == "problems" && !parts[1].isEmpty: return .problems
        case 3 where parts[0] == "sessions" && !parts[1].isEmpty:
            switch parts[2] {
            case "state": return .state
            case "actions": return .actions
            case "events": return .events
            default: return .other
            }
        default: return .other
        }
    }

    static func allowed(_ route: Metrics.Route) -> String {
        switch route {
        case .sessions: return "POST"
        case .session: return "GET, HEAD, DELETE"
        case .actions: return "GET, HEAD, POST"
        default: return "GET, HEAD"
        }
    }

    /// While sessions are being recovered (or the server drains), session routes answer 503 rather than a wrong 404.
    private func readyForSessions(_ exchange: Exchange) -> Bool {
        guard let problem = readiness.problem else { return true }
        var refused = problem
        refused.headers.append(("Retry-After", "1"))
        exchange.send(refused)
        return false
    }

    /// API.md "Sessions and access": 404 for an unknown id whatever the token, then 401 for a missing or wrong token.
    private func authorize(_ request: HTTPRequest, id: String, allowQueryToken: Bool, _ exchange: Exchange) -> Session? {
        guard Secrets.isWellFormedID(id), let session = registry.lookup(id) else {
            exchange.send(SessionProblems.notFound)
            return nil
        }
        var token: String?
        if let authorization = request.headers["Authorization"] {
            // RFC 9110 §11.1: the scheme is case-insensitive; RFC 6750 §2.1: "Bearer" 1*SP b64token.
            let trimmed = authorization.drop(while: { $0 == " " })
            if trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " {
                token = String(trimmed.dropFirst(7).drop(while: { $0 == " " })).trimmingTrailingSpaces()
            }
        }
        if token == nil, allowQueryToken {
            token = request.queryItems().first(where: { $0.name == "access_token" })?.value
        }
        guard let token, !token.isEmpty else {
            exchange.send(Problem(401, "unauthorized", "this session needs Authorization: Bearer <token>",
                                  headers: [("WWW-Authenticate", #"Bearer realm="storehouse""#)]))
            return nil
        }
        guard session.accepts(token: token) else {
            exchange.send(Problem(401, "unauthorized", "the token is not this session's",
                                  headers: [("WWW-Authenticate", #"Bearer realm="storehouse", error="invalid_token""#)]))
            return nil
        }
        return session
    }

    private func explainProblem(_ slug: String, _ exchange: Exchange) {
        guard let entry = ProblemCatalog.entries[slug] else {
            return exchange.send(Problem(404, "not-found", "no problem type is called '\(slug)'"))
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; charset=utf-8")
        exchange.send(HTTPResponse(status: 200, headers: headers, body: Array("\(entry.title)\n\n\(entry.explanation)\n".utf8)))
    }

    static func encodeKinds(environment: EffectEnvironment) -> [UInt8] {
        var out: [UInt8] = []
        out += Array(#"{"kinds":["#.utf8)
        for (index, kind) in KindRegistry.all.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"name":"#.utf8)
            out += JSONValue.string(kind.name).encoded()
            out += Array(#","actionTypes":"#.utf8)
            out += JSONValue.array(kind.actionTypes.map(JSONValue.string)).encoded()
            out += Array(#","internalActionTypes":"#.utf8)
            out += JSONValue.array(kind.internalActionTypes.map(JSONValue.string)).encoded()
            out += Array(#","initialState":"#.utf8)
            if let store = try? kind.makeStore(state: nil, version: 0, environment: environment) {
                out += store.encodeState()
            } else {
                out += kind.initialState.encoded()
            }
            out.append(UInt8(ascii: "}"))
        }
        out += Array("]}".utf8)
        return out
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return String(s)
    }
}

/// Whether the server takes session requests: not while recovering from disk, not while draining.
final class Readiness: Sendable {
    enum Phase: Int { case recovering = 0, ready = 1, draining = 2 }
    private let phase = Atomic<Int>(Phase.recovering.rawValue)

    func set(_ value: Phase) { phase.store(value.rawValue, ordering: .releasing) }

    /// nil when ready; otherwise the 503 to answer.
    var problem: Problem? {
        switch Phase(rawValue: phase.load(ordering: .acquiring)) {
        case .ready: return nil
        case .draining: return Problem(503, "not-ready", "draining")
        default: return Problem(503, "not-ready", "recovering")
        }
    }
}
