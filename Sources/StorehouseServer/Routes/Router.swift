import Dispatch
import Glibc
import HTTPEngine
import StoreCore
import StoreKinds

/// The routes of docs/API.md: maps a parsed request to the operations and the sessions.
///
/// It runs on the engine's I/O thread. Everything it does there is short — parse
/// a body, take a session's lock, apply one reducer, encode the answer — and an
/// answer that must wait for the journal is sent once the loop commits its
/// iteration's appends (`eventLoopWillWait(loop:)`, the loop's last step), or from the journal's thread
/// once they are synced. Larger work (a big batch, a big state's encoding, a
/// load) runs on the `OffLoopPool` and answers from there (`isCostly`).
final class Router: HTTPHandler {
    let registry: SessionRegistry
    let metrics: Metrics
    let accessLog: AccessLog
    let readiness: Readiness
    let kindsBody: [UInt8]
    /// The operator's token and who may create sessions (`--admin-token`, `--create-sessions`).
    let access: AccessPolicy
    let inspector: Inspector
    /// `SessionContext`'s bounds of what runs on an event loop, copied here: `isCostly` reads
    /// them on every session request without copying the context (a struct of references).
    let offLoopBodyBytes: Int
    let offLoopStateBytes: Int

    init(registry: SessionRegistry, metrics: Metrics, accessLog: AccessLog, readiness: Readiness, access: AccessPolicy = AccessPolicy()) {
        self.registry = registry
        self.metrics = metrics
        self.accessLog = accessLog
        self.readiness = readiness
        self.access = access
        kindsBody = Router.encodeKinds(registry.context.kinds, environment: registry.context.effectEnvironment)
        inspector = Inspector(kindsBody: kindsBody)
        offLoopBodyBytes = registry.context.offLoopBodyBytes
        offLoopStateBytes = registry.context.offLoopStateBytes
    }

    /// The last step of loop `loop`'s iteration: the appends its requests made (with
    /// `Committer.eventLoop(loop)`) go to the journal as one group.
    func eventLoopWillWait(loop: Int) {
        registry.context.log.commit(loop: loop)
    }

    /// The engine's own refusals are answers too: counted, logged, and readable by a browser.
    func engineRefused(_ refused: RefusedRequest) -> HTTPHeaders {
        // Only what the parser accepted as a request line is shown; anything else is "-".
        func printable(_ s: String) -> String? { !s.isEmpty && s.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } ? s : nil }
        let method = printable(refused.method) ?? "-"
        let path = printable(refused.path)
        metrics.recordRequest(route: path.map(Self.route) ?? .other, method: method, status: refused.status, seconds: 0)
        if accessLog.enabled {
            accessLog.record(method: method, path: path ?? "-", status: refused.status, seconds: 0, now: registry.context.now())
        }
        var headers = HTTPHeaders()
        if refused.headers.isEmpty || !refused.headerBlockComplete {
            // Refused before every header was read (the request line, the connection limit, a
            // header block too large, 431): whether a browser sent it is unknown, and `*` lets a
            // page read why if one did.
            CORS.addHeaders(to: &headers)
        } else {
            CORS.addHeaders(for: refused.headers, to: &headers)
        }
        return headers
    }

    /// Every request's responder is its `Exchange`, routed as it is made.
    func responder(for request: consuming HTTPRequest, answering slot: HTTPResponder.Slot) -> Exchange {
        makeExchange(for: request, slot)
    }

    func handle(_ request: HTTPRequest, _ exchange: Exchange) { handle(exchange) }

    /// The engine's way in: the exchange holds the request (`HTTPResponder.request`).
    func handle(_ exchange: Exchange) {
        if Self.namesSession(exchange.route), let key = exchange.key, registry.isHibernated(key) {
            // Loading reads the disk: the request is handled off the event loop, whose other
            // connections go on, and loads the session there once its token is proved (an append
            // off a loop wakes the journal at once).
            return handleOffLoop(exchange)
        }
        handleAdmitted(exchange, onLoop: true)
    }

    /// On the loader queue the session id picks: a burst of loads holds its few threads only.
    private func handleOffLoop(_ exchange: Exchange) {
        registry.loader.run(for: exchange.name) { [self] in
            handleAdmitted(exchange, onLoop: false)
        }
    }

    /// Whether the route's second segment is a session id.
    private static func namesSession(_ route: Metrics.Route) -> Bool {
        switch route {
        case .session, .state, .actions, .events, .export: true
        default: false
        }
    }

    /// `onLoop`: the request runs on its connection's event loop, which must not block on a load.
    private func handleAdmitted(_ exchange: Exchange, onLoop: Bool) {
        guard let admitted = admit(exchange, mayLoad: !onLoop) else { return }
        switch admitted {
        case .hibernatedSession:
            // Hibernated by the sweep since `handle` looked: loaded off the loop as well.
            handleOffLoop(exchange)
        case .problem(let entry):
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/plain; charset=utf-8")
            exchange.send(HTTPResponse(status: 200, headers: headers, body: Array("\(entry.title)\n\n\(entry.explanation)\n".utf8)))
        case .preflight:
            exchange.send(CORS.optionsAnswer(for: exchange.request, allow: Endpoint.allow(exchange.route)))
        case .healthz:
            exchange.send(JSONAnswer.ok(Array(#"{"status":"ok"}"#.utf8)))
        case .readyz:
            if let problem = readiness.problem { exchange.send(problem) } else { exchange.send(JSONAnswer.ok(Array(#"{"status":"ready"}"#.utf8))) }
        case .metrics:
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            exchange.send(HTTPResponse(status: 200, headers: headers, body: Array(metrics.render().utf8)))
        case .kinds:
            exchange.send(JSONAnswer.ok(kindsBody))
        case .createSession:
            createSession(exchange)
        case .listSessions:
            listSessions(exchange)
        case .importSession:
            importSession(exchange)
        case .session(let session, let endpoint):
            // Off the event loop, a session's requests run in its lane (`OffLoopPool`), one at a
            // time in arrival order: those whose work is large, those behind one, and those
            // already off the loop (a session just loaded). The rest run here.
            // Here the loop commits what the request appends, at the end of its iteration;
            // off the loop the append wakes the journal's writer.
            if !onLoop || session.lane.isBusy || isCostly(endpoint, exchange, on: session) {
                return registry.context.offLoop.run(in: session.lane) { [self] in serve(endpoint, of: session, exchange, committer: .journalWriter) }
            }
            serve(endpoint, of: session, exchange, committer: .eventLoop(exchange.loopIndex))
        }
    }

    /// `committer`: who commits what the request appends (`.eventLoop` only on that loop's thread).
    private func serve(_ endpoint: SessionEndpoint, of session: Session, _ exchange: Exchange, committer: Committer) {
        switch endpoint {
        case .read: exchange.send(JSONAnswer.ok(session.metadataJSON()))
        case .delete: deleteSession(session, exchange)
        case .readState: readState(session, exchange)
        case .readLog: readLog(session, exchange)
        case .postActions: postActions(session, exchange, committer: committer)
        case .openEvents: openEvents(session, exchange)
        case .export: exportSession(session, exchange)
        }
    }

    /// RFC 9110 §10.1.1: a request waiting for `100 Continue` is refused from its head when the
    /// refusal needs no body (no such route or method, not ready, no such session, no valid token),
    /// so a client never uploads a body only to learn that. The checks are `handle`'s own, which
    /// runs them again once the body is in.
    func handleExpectation(_ head: HTTPRequest, _ exchange: Exchange) -> Bool {
        // A hibernated session is not loaded for a head: its token is checked against its summary.
        return admit(exchange, mayLoad: false) == nil
    }

    /// Where a request goes once every check that needs no body has passed.
    private enum Admitted {
        case healthz, readyz, metrics, kinds, createSession, listSessions, importSession, preflight
        case problem((title: String, explanation: String))
        case session(Session, SessionEndpoint)
        /// Every check passed but the session is hibernated and may not be loaded here.
        case hibernatedSession
    }

    private func makeExchange(for request: consuming HTTPRequest, _ slot: HTTPResponder.Slot) -> Exchange {
        // The route is read off the path's bytes, and a session's id packed from them: no string
        // is made for it (`Exchange.name` makes one when a rarer path needs it).
        let (route, second, key) = request.withPathBytes { path -> (Metrics.Route, Range<Int>, PackedSessionID?) in
            let (route, second) = Self.route(path: path)
            switch route {
            case .session, .state, .actions, .events, .export:
                return (route, second, PackedSessionID(wellFormed: UnsafeBufferPointer(rebasing: path[second])))
            case .problems:
                return (route, second, nil)
            default:
                return (route, 0..<0, nil)
            }
        }
        return Exchange(request: request, answering: slot, route: route, started: Exchange.monotonicNanos(),
                        now: registry.context.now(), router: self, nameRange: second, key: key)
    }

    private static func method(of request: HTTPRequest) -> String {
        request.method == "HEAD" ? "GET" : request.method
    }

    /// Answers what the head alone decides (no such route or method, not ready, no such session,
    /// no valid token, a damaged session) and returns nil; otherwise says where the request goes.
    /// `mayLoad`: whether a hibernated session may be loaded here (off the event loop).
    private func admit(_ exchange: Exchange, mayLoad: Bool) -> Admitted? {
        let route = exchange.route
        // Only a well-formed id with a node (`web-1.…`) can be another node's.
        if exchange.key?.hasNode == true,
           let misdirected = registry.context.routing.misdirection(route: route, method: exchange.request.method, id: exchange.name) {
            exchange.send(misdirected)
            return nil
        }
        let endpoint = Endpoint(route: route, methodIndex: exchange.methodIndex)
        if let endpoint, exchange.request.query != nil, let problem = Self.queryProblem(in: exchange.request, for: endpoint) {
            exchange.send(problem)
            return nil
        }
        switch endpoint {
        case .healthz: return .healthz
        case .readyz: return .readyz
        case .metrics: return .metrics
        case .kinds: return .kinds
        case .problem: return problemEntry(exchange.name, exchange).map(Admitted.problem)
        case .createSession:
            guard readyForSessions(exchange) else { return nil }
            if access.createSessions == .admin {
                guard authorizeAdmin(exchange.request, exchange) else { return nil }
            }
            return .createSession
        case .listSessions:
            guard authorizeAdmin(exchange.request, exchange), readyForSessions(exchange) else { return nil }
            return .listSessions
        case .importSession:
            guard authorizeAdmin(exchange.request, exchange), readyForSessions(exchange) else { return nil }
            return .importSession
        case .session(let endpoint):
            guard readyForSessions(exchange) else { return nil }
            guard let authorized = authorize(exchange.request, allowQueryToken: endpoint.acceptsQueryToken, mayLoad: mayLoad, exchange) else {
                return nil
            }
            guard let session = authorized else { return .hibernatedSession }
            if session.damaged && endpoint != .delete {
                exchange.send(SessionProblems.damaged)
                return nil
            }
            session.lifetime.touch(exchange.now)  // a request restarts the idle clock
            return .session(session, endpoint)
        case nil:
            break
        }
        switch (route, Self.method(of: exchange.request)) {
        case (.other, "OPTIONS") where exchange.request.target == "*":
            // RFC 9110 §9.3.7: OPTIONS * asks about the server as a whole.
            exchange.send(CORS.optionsAnswer(for: exchange.request, allow: Endpoint.serverMethods))
            return nil
        case (.other, _):
            // The browser's pages and scripts: asked only once every API route has missed.
            if let page = inspector.answer(to: exchange.request) { exchange.send(page); return nil }
            exchange.send(Problem(404, "not-found", "nothing is served at \(Problem.quote(exchange.request.path))"))
            return nil
        case (_, "OPTIONS"):
            // A preflight carries no token, so only existence is checked: an unknown or deleted
            // session is 404 here as everywhere (its id is 128 random bits, so this tells nothing).
            switch route {
            case .session, .state, .actions, .events, .export:
                guard readyForSessions(exchange) else { return nil }
                guard let key = exchange.key, registry.exists(key) else {
                    exchange.send(SessionProblems.notFound.response())
                    return nil
                }
            case .problems:
                guard problemEntry(exchange.name, exchange) != nil else { return nil }
            default:
                break
            }
            return .preflight
        default:
            let allow = Endpoint.allow(route)
            exchange.send(Problem(405, "method-not-allowed", "\(Problem.quote(exchange.request.method)) is not allowed here; use \(allow)", headers: [("Allow", allow)]))
            return nil
        }
    }

    /// The route family of a path and the byte range of its second segment (the id or slug);
    /// ids and slugs are not interpreted here.
    ///
    /// The segments are those after the first "/" (whatever precedes it is ignored), split at
    /// every "/" with empty segments kept: `/sessions/x/` has three, the last one empty.
    static func route(path p: UnsafeBufferPointer<UInt8>) -> (Metrics.Route, Range<Int>) {
        let slash = UInt8(ascii: "/")
        guard var start = p.firstIndex(of: slash).map({ $0 + 1 }) else { return (.other, 0..<0) }
        var segments: (Range<Int>, Range<Int>, Range<Int>) = (0..<0, 0..<0, 0..<0)
        var count = 0
        while true {
            // memchr: a word at a time, where a loop over the path's bytes cost ~4 instructions a byte.
            var end = p.count
            if start < p.count, let base = p.baseAddress, let found = memchr(base + start, Int32(slash), p.count - start) {
                end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            switch count {
            case 0: segments.0 = start..<end
            case 1: segments.1 = start..<end
            case 2: segments.2 = start..<end
            default: return (.other, 0..<0)
            }
            count += 1
            if end == p.count { break }
            start = end + 1
        }
        func segment(_ range: Range<Int>, is literal: StaticString) -> Bool {
            guard range.count == literal.utf8CodeUnitCount, let base = p.baseAddress else { return false }
            return memcmp(base + range.lowerBound, literal.utf8Start, range.count) == 0
        }
        let (first, second, third) = segments
        switch count {
        case 1:
            if segment(first, is: "healthz") { return (.healthz, second) }
            if segment(first, is: "readyz") { return (.readyz, second) }
            if segment(first, is: "metrics") { return (.metrics, second) }
            if segment(first, is: "kinds") { return (.kinds, second) }
            if segment(first, is: "sessions") { return (.sessions, second) }
            return (.other, second)
        case 2 where segment(first, is: "sessions") && segment(second, is: "import"): return (.sessionImport, second)
        case 2 where segment(first, is: "sessions") && !second.isEmpty: return (.session, second)
        case 2 where segment(first, is: "problems") && !second.isEmpty: return (.problems, second)
        case 3 where segment(first, is: "sessions") && !second.isEmpty:
            if segment(third, is: "state") { return (.state, second) }
            if segment(third, is: "actions") { return (.actions, second) }
            if segment(third, is: "events") { return (.events, second) }
            if segment(third, is: "export") { return (.export, second) }
            return (.other, second)
        default: return (.other, second)
        }
    }

    /// `route(path:)` for a path string (tests).
    static func route(_ path: String) -> Metrics.Route {
        var path = path
        return path.withUTF8 { route(path: $0).0 }
    }

    /// While sessions are being recovered (or the server drains), session routes answer 503 rather than a wrong 404.
    private func readyForSessions(_ exchange: Exchange) -> Bool {
        guard let problem = readiness.problem else { return true }
        exchange.send(Readiness.refusal(problem))
        return false
    }

    /// docs/API.md "Authentication": 404 for an unknown id whatever the token, then 401 for a missing or wrong token.
    /// The session, loaded from disk when it is hibernated only once the token is proved, so a
    /// request without it never makes the server read a journal; nil once a problem is answered.
    /// `.some(nil)`: the token is proved but the session is hibernated and `mayLoad` is false.
    private func authorize(_ request: HTTPRequest, allowQueryToken: Bool, mayLoad: Bool, _ exchange: Exchange) -> Session?? {
        guard let credential = authorizeUnloaded(request, key: exchange.key, allowQueryToken: allowQueryToken,
                                                 missing: "this session needs Authorization: Bearer <token>",
                                                 wrong: "the token is not this session's", exchange) else { return nil }
        // The session the credential found, unless the sweep or a delete let go of it since: one
        // lookup of the id per request, not two.
        if case .resident(let session) = credential, registry.markUsed(session, now: exchange.now) { return .some(session) }
        if let key = exchange.key, let session = registry.residentOnly(key, now: exchange.now) { return .some(session) }
        guard mayLoad else { return .some(nil) }
        // Deleted (or its load failed) since the check: as unknown.
        guard let session = registry.lookup(exchange.name) else {
            exchange.send(SessionProblems.notFound)
            return nil
        }
        return .some(session)
    }

    /// Checks the request's token against session `id`'s (or the admin token) without loading the
    /// session; what proved it, or nil once 404, 400 or 401 is answered. A malformed id (no `key`)
    /// is never looked up.
    func authorizeUnloaded(_ request: HTTPRequest, key: PackedSessionID?, allowQueryToken: Bool, missing: String, wrong: String,
                           _ exchange: Exchange) -> SessionCredential? {
        guard let key, let credential = registry.credential(key) else {
            exchange.send(SessionProblems.notFound)
            return nil
        }
        // The admin token opens every session (docs/API.md "Operators"); the session's own is
        // tried first, so a client's request pays for no second hash.
        let admin = access.adminToken
        let proved = checkBearer(request, allowQueryToken: allowQueryToken, missing: missing, wrong: wrong, exchange) { token in
            credential.accepts(token: token) || admin?.accepts(token) == true
        }
        return proved ? credential : nil
    }

    /// Whether the request carries the admin token; false once 403 `admin-disabled` (no token is
    /// configured) or 401 is answered.
    private func authorizeAdmin(_ request: HTTPRequest, _ exchange: Exchange) -> Bool {
        guard let admin = access.adminToken else {
            exchange.send(Problem(403, "admin-disabled",
                                  "this route needs the admin token, and none is configured: start the server with --admin-token (or STOREHOUSE_ADMIN_TOKEN) set to a secret of at least \(AdminToken.minimumLength) characters"))
            return false
        }
        return checkBearer(request, allowQueryToken: false, missing: "this route needs Authorization: Bearer <admin token>",
                           wrong: "the token is not the admin token", exchange) { admin.accepts($0) }
    }

    /// Whether the request's bearer token (the header, or `?access_token=` where `allowQueryToken`)
    /// passes `verify`; false once 400 or 401 is answered. The token's bytes are read in place.
    func checkBearer(_ request: HTTPRequest, allowQueryToken: Bool, missing: String, wrong: String, _ exchange: Exchange,
                             verify: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        // nil: no usable token was presented; otherwise whether it passed.
        var verdict: Bool?
        var bearerGiven = false
        // One pass over the fields finds the value and whether it is repeated.
        let authorization: HTTPHeaders.Single<Void> = request.headers.withSingleValue("Authorization") { field in
            guard let range = Self.bearerToken(in: field) else { return }
            bearerGiven = true
            if !range.isEmpty { verdict = verify(UnsafeBufferPointer(rebasing: field[range])) }
        }
        // RFC 6750 §3.1: credentials given twice are an invalid request, not a guess at which counts.
        if case .repeated = authorization {
            exchange.send(Problem(400, "invalid-header", "Authorization is given more than once",
                                  headers: [("WWW-Authenticate", #"Bearer realm="storehouse", error="invalid_request""#)]))
            return false
        }
        if !bearerGiven, allowQueryToken, var token = request.queryItems().first(where: { $0.name == "access_token" })?.value {
            if !token.isEmpty { verdict = token.withUTF8 { verify($0) } }
        }
        guard let verdict else {
            exchange.send(Problem(401, "unauthorized", missing, headers: [("WWW-Authenticate", #"Bearer realm="storehouse""#)]))
            return false
        }
        guard verdict else {
            exchange.send(Problem(401, "unauthorized", wrong,
                                  headers: [("WWW-Authenticate", #"Bearer realm="storehouse", error="invalid_token""#)]))
            return false
        }
        return true
    }

    /// 400 for the first query parameter `endpoint` does not read (`unknown-parameter`), or one
    /// it reads given twice (`invalid-query`: which of the two counts would be a guess); nil when
    /// the query is fine.
    static func queryProblem(in request: HTTPRequest, for endpoint: Endpoint) -> Problem? {
        let known = endpoint.parameters
        var seen: [String] = []
        for (name, _) in request.queryItems() {
            guard known.contains(name) else {
                return Problem(400, "unknown-parameter", unknownParameterDetail(name, endpoint), extra: [("parameter", .string(String(name.prefix(64))))])
            }
            if seen.contains(name) { return Problem(400, "invalid-query", "\(name) is given more than once") }
            seen.append(name)
        }
        return nil
    }

    private static func unknownParameterDetail(_ name: String, _ endpoint: Endpoint) -> String {
        // A client's name is quoted short: a megabyte parameter is not echoed back.
        let quoted = "'\(name.prefix(64))'"
        let known = endpoint.parameters
        return known.isEmpty ? "this route takes no query parameter, got \(quoted)"
            : "\(quoted) is not a parameter of this route; it takes \(known.joined(separator: ", "))"
    }

    /// The token's byte range in an `Authorization` value, nil when the value is not `Bearer <token>`;
    /// an empty range for `Bearer` with nothing but blanks after it.
    /// RFC 9110 §11.1: the scheme is case-insensitive; RFC 6750 §2.1: "Bearer" 1*SP b64token.
    static func bearerToken(in field: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        var start = 0
        while start < field.count && field[start] == space { start += 1 }
        let scheme: StaticString = "bearer "
        guard field.count - start > scheme.utf8CodeUnitCount else { return nil }
        for i in 0..<scheme.utf8CodeUnitCount {
            let b = field[start + i]
            if (b >= 0x41 && b <= 0x5A ? b | 0x20 : b) != scheme.utf8Start[i] { return nil }
        }
        start += scheme.utf8CodeUnitCount
        while start < field.count && field[start] == space { start += 1 }
        var end = field.count
        while end > start && (field[end - 1] == space || field[end - 1] == tab) { end -= 1 }
        return start..<end
    }

    /// The catalogue's entry for `slug`, or nil once 404 is answered.
    private func problemEntry(_ slug: String, _ exchange: Exchange) -> (title: String, explanation: String)? {
        guard let entry = ProblemCatalog.entries[slug] else {
            exchange.send(Problem(404, "not-found", "no problem type is called '\(Problem.quote(slug))'"))
            return nil
        }
        return entry
    }

    static func encodeKinds(_ kinds: KindRegistry, environment: EffectEnvironment) -> [UInt8] {
        var out: [UInt8] = []
        out += Array(#"{"kinds":["#.utf8)
        for (index, kind) in kinds.all.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"name":"#.utf8)
            out += JSONValue.string(kind.name).encoded()
            out += Array(#","actionTypes":"#.utf8)
            out += JSONValue.array(kind.actionTypes.map(JSONValue.string)).encoded()
            out += Array(#","internalActionTypes":"#.utf8)
            out += JSONValue.array(kind.internalActionTypes.map(JSONValue.string)).encoded()
            // Each client action with the JSON Schema of its payload, and the outputs likewise
            // (docs/API.md "GET /kinds"); `payloadSchema` is absent where none is taken.
            func described(_ type: String, _ schema: JSONValue?) -> JSONValue {
                var member: [String: JSONValue] = ["type": .string(type)]
                if let schema { member["payloadSchema"] = schema }
                return .object(member)
            }
            out += Array(#","actions":"#.utf8)
            out += JSONValue.array(kind.actionTypes.map { described($0, kind.payloadSchema(of: $0)) }).encoded()
            out += Array(#","outputs":"#.utf8)
            out += JSONValue.array(kind.outputTypes.map { described($0.type, $0.payloadSchema) }).encoded()
            out += Array(#","initialState":"#.utf8)
            if let store = try? kind.makeStore(state: nil, version: 0, environment: environment) {
                out += store.encodeState()
            } else {
                out += kind.initialState.encoded()
            }
            out.append(UInt8(ascii: "}"))
        }
        out += Array(#"],"preferMinimal":"#.utf8)
        out += JSONValue.string(Self.preferMinimalHint).encoded()
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// When to ask for `Prefer: return=minimal`, in `/kinds`: the default answer of a POST is the
    /// whole state (docs/API.md), whose cost grows with the state while the patch's does not.
    static let preferMinimalHint = "POST /sessions/{id}/actions answers with the whole state unless the request sends Prefer: return=minimal, which answers with the patch of its actions instead: its size follows the change, not the state. Send it once a state holds more than a few thousand entities (a tasks session): the whole state then costs its full size to encode and send on every action, the patch a few dozen bytes."
}
