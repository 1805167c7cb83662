/// One (route, method) the server serves: the route table, written once. `Router.admit` finds a
/// request's endpoint here, `Router.handle` serves it, and a route's `Allow` (RFC 9110 §10.2.1)
/// lists its endpoints' methods. HEAD is served wherever GET is (RFC 9110 §9.3.2); OPTIONS
/// everywhere (CORS preflight).
///
/// ```swift
/// Endpoint(route: .actions, method: "POST")  // .session(.postActions)
/// Endpoint.allow(.actions)                   // "GET, HEAD, POST, OPTIONS"
/// ```
enum Endpoint: Equatable {
    case healthz, readyz, metrics, kinds, problem, createSession
    /// `GET /sessions`: the admin's listing.
    case listSessions
    /// `POST /sessions/import`: the admin recreates an exported session.
    case importSession
    /// One acting on a session, named by the path and proved by its token.
    case session(SessionEndpoint)

    /// Every endpoint, in the order `Allow` lists their methods.
    private static let table: [Endpoint] = [.healthz, .readyz, .metrics, .kinds, .problem, .listSessions, .createSession, .importSession]
        + SessionEndpoint.allCases.map(Endpoint.session)

    var route: Metrics.Route {
        switch self {
        case .healthz: .healthz
        case .readyz: .readyz
        case .metrics: .metrics
        case .kinds: .kinds
        case .problem: .problems
        case .createSession, .listSessions: .sessions
        case .importSession: .sessionImport
        case .session(.export): .export
        case .session(.read), .session(.delete): .session
        case .session(.readState): .state
        case .session(.readLog), .session(.postActions): .actions
        case .session(.openEvents): .events
        }
    }

    var method: String {
        switch self {
        case .createSession, .importSession, .session(.postActions): "POST"
        case .session(.delete): "DELETE"
        default: "GET"
        }
    }

    /// The query parameters the endpoint reads; any other is 400 `unknown-parameter`, so a
    /// misspelt `?verison=3` is not silently answered with the head.
    var parameters: [String] {
        switch self {
        case .listSessions: ["kind", "limit", "cursor"]
        case .session(.readState): ["path", "version", "access_token"]
        case .session(.readLog): ["since", "limit"]
        case .session(.openEvents): ["since", "access_token"]
        default: []
        }
    }

    /// The endpoint for `route` and `method` (HEAD as GET); nil when the route serves no such method.
    /// Read off `byRouteAndMethod`, the table laid out by route and method once: every request
    /// asks, and a walk of the table comparing strings cost ~250 instructions.
    init?(route: Metrics.Route, method: String) {
        guard let column = Self.methodColumn(method), let found = Self.byRouteAndMethod[route.index * 3 + column] else { return nil }
        self = found
    }

    /// GET, POST, DELETE: the methods an endpoint has, as columns of `byRouteAndMethod`.
    private static func methodColumn(_ method: String) -> Int? {
        switch method {
        case "GET": 0
        case "POST": 1
        case "DELETE": 2
        default: nil
        }
    }

    /// The same by the method's index in `Metrics.methods` (`Exchange.methodIndex`), HEAD as GET:
    /// the router's way, which compares no string.
    init?(route: Metrics.Route, methodIndex: Int) {
        guard let column = Self.columnOfMethodIndex[methodIndex], let found = Self.byRouteAndMethod[route.index * 3 + column] else { return nil }
        self = found
    }

    /// `methodColumn` of each of `Metrics.methods`, HEAD's that of GET.
    private static let columnOfMethodIndex: [Int?] = Metrics.methods.map { methodColumn($0 == "HEAD" ? "GET" : $0) }

    private static let byRouteAndMethod: [Endpoint?] = {
        var cells = [Endpoint?](repeating: nil, count: Metrics.Route.allCases.count * 3)
        for endpoint in table {
            if let column = methodColumn(endpoint.method) { cells[endpoint.route.index * 3 + column] = endpoint }
        }
        return cells
    }()

    /// A route's methods for `Allow`, OPTIONS included.
    static func allow(_ route: Metrics.Route) -> String {
        methods(of: table.filter { $0.route == route })
    }

    /// Every method some route serves. Any other, known or not, is 405 with the route's `Allow`:
    /// RFC 9110 §15.6.2 suggests 501 for a method the server does not recognize, but clients
    /// and API tools (schemathesis among them) take a 5xx for a server fault and expect 405.
    static let serverMethods = methods(of: table)

    private static func methods(of endpoints: [Endpoint]) -> String {
        var names: [String] = []
        for endpoint in endpoints where !names.contains(endpoint.method) {
            names.append(endpoint.method)
            if endpoint.method == "GET" { names.append("HEAD") }
        }
        return (names + ["OPTIONS"]).joined(separator: ", ")
    }
}

/// An endpoint acting on one session.
enum SessionEndpoint: CaseIterable {
    case read, delete, readState, readLog, postActions, openEvents, export

    /// Whether the token may come as `?access_token=` (RFC 6750 §2.3): for the reads a browser
    /// makes without headers (an `EventSource`, a link to the state).
    var acceptsQueryToken: Bool { self == .readState || self == .openEvents }
}
