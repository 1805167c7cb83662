import Dispatch
import HTTPEngine
import StoreCore
import StoreKinds

extension Router {
    /// `POST /sessions`: `{"kind"?: string, "state"?: object}`, an empty body meaning the default
    /// kind (the first the server was given); or `{"from": {"id", "version"?}}`, a fork (`forkSession`).
    func createSession(_ exchange: Exchange) {
        // Memory budget: as for actions (`postActions`), a given state counts while it is read.
        let budget = registry.context.memoryBudget
        let reservation = MemoryBudget.parsedSize(ofBody: exchange.request.body.count)
        guard budget.reserve(reservation) else { return exchange.send(MemoryBudget.refusal) }
        defer { budget.release(reservation) }
        var givenKind: String?
        var state: JSONValue?
        var from: (id: String, version: Int?)?
        var ttlSeconds = access.sessionTTLSeconds
        // Only a body of no bytes means `{}` (what `curl -X POST` sends); whitespace alone is not
        // a JSON text (RFC 8259 §2), so it is a malformed body like any other.
        if !exchange.request.body.isEmpty {
            let value: JSONValue
            do { value = try JSONReader.parse(exchange.request.body) } catch {
                return exchange.send(Problem(400, "malformed-json", "the body is not JSON: \(error)"))
            }
            guard case .object(let object) = value else {
                return exchange.send(Problem(422, "invalid-body", #"the body must be an object like {"kind": "counter"}"#))
            }
            switch object["kind"] {
            case nil, .null?: break
            case .string(let name)?: givenKind = name
            default: return exchange.send(Problem(422, "invalid-body", "kind must be a string"))
            }
            if let given = object["state"], given != .null { state = given }
            switch object["ttlSeconds"] {
            case nil, .null?: break
            case .int(let seconds)? where (0...SessionLifetime.maxTTLSeconds).contains(seconds): ttlSeconds = seconds
            default:
                return exchange.send(Problem(422, "invalid-body", "ttlSeconds must be an integer from 0 (never expires) to \(SessionLifetime.maxTTLSeconds)"))
            }
            switch object["from"] {
            case nil, .null?: break
            case .object(let origin)?:
                guard case .string(let id)? = origin["id"] else {
                    return exchange.send(Problem(422, "invalid-body", "from.id must be the id of the session to fork"))
                }
                switch origin["version"] {
                case nil, .null?: from = (id, nil)
                case .int(let version)? where version >= 0: from = (id, version)
                default: return exchange.send(Problem(422, "invalid-body", "from.version must be an integer of at least 0"))
                }
            default:
                return exchange.send(Problem(422, "invalid-body", #"from must be an object like {"id": "…", "version": 3}"#))
            }
        }
        if let from {
            guard state == nil else {
                return exchange.send(Problem(422, "invalid-body", "a fork starts from its origin's state: give from or state, not both"))
            }
            return forkSession(from: from.id, at: from.version, kind: givenKind, ttlSeconds: ttlSeconds, exchange)
        }
        let kindName = givenKind ?? registry.context.kinds.defaultKindName
        guard let kind = registry.context.kinds.kind(named: kindName) else {
            return exchange.send(Problem(422, "unknown-kind", "no store kind is called '\(Problem.quote(kindName))'",
                                         extra: [("validKinds", .array(registry.context.kinds.all.map { .string($0.name) }))]))
        }
        create(kind: kind, state: state, forkedFrom: nil, ttlSeconds: ttlSeconds, exchange)
    }

    /// A fork: a new session whose state is session `id`'s at `version` (its newest durable one
    /// when nil), proved by that session's token or the admin token (docs/API.md "Operators").
    private func forkSession(from id: String, at version: Int?, kind kindName: String?, ttlSeconds: Int, _ exchange: Exchange) {
        let key = Secrets.isWellFormedID(id) ? PackedSessionID(id) : nil
        guard let credential = authorizeUnloaded(exchange.request, key: key, allowQueryToken: false,
                                                 missing: "a fork needs Authorization: Bearer <the token of the session it forks>",
                                                 wrong: "the token is not that of the session to fork", exchange) else { return }
        // Marked used, so the sweep leaves a resident origin so.
        guard !credential.isHibernated, let origin = registry.residentOnly(id) else {
            // A hibernated origin is loaded off the event loop (it reads the disk), and only now
            // that its token is proved, on the loader queue its id picks.
            return registry.loader.run(for: id) { [self] in
                guard let origin = registry.lookup(id) else { return exchange.send(SessionProblems.notFound) }
                fork(origin, at: version, kind: kindName, ttlSeconds: ttlSeconds, exchange)
            }
        }
        fork(origin, at: version, kind: kindName, ttlSeconds: ttlSeconds, exchange)
    }

    /// `forkSession`'s work once the origin is resident and its token proved.
    private func fork(_ origin: Session, at version: Int?, kind kindName: String?, ttlSeconds: Int, _ exchange: Exchange) {
        guard !origin.damaged else { return exchange.send(SessionProblems.damaged) }
        if let kindName, kindName != origin.kind.name {
            return exchange.send(Problem(422, "invalid-body", "a fork has its origin's kind, \(origin.kind.name), not '\(kindName.prefix(64))'"))
        }
        // The state at an older version is rebuilt from a kept state and the history: off the I/O
        // thread, as `?version=` is.
        registry.context.offLoop.run { [self] in
            let at = version ?? origin.durableVersionNow()
            let bytes: [UInt8]
            do throws(Problem) { bytes = try origin.state(at: at) } catch { return exchange.send(error) }
            guard let state = try? JSONReader.parse(bytes, maxDepth: 10_000) else {
                return exchange.send(Problem(500, "replay-failed", "the state at version \(at) could not be read back"))
            }
            create(kind: origin.kind, state: state, forkedFrom: ForkOrigin(id: origin.id, version: at), ttlSeconds: ttlSeconds, exchange)
        }
    }

    /// Creates the session and answers 201 with its token, once its creation is durable.
    private func create(kind: any StoreKind, state: JSONValue?, forkedFrom: ForkOrigin?, ttlSeconds: Int, _ exchange: Exchange) {
        registry.create(kind: kind, state: state, forkedFrom: forkedFrom, ttlSeconds: ttlSeconds) { result in
            switch result {
            case .failure(let problem):
                exchange.send(problem)
            case .success(let created):
                let (version, stateBytes) = created.session.currentState()
                var body = Array(#"{"id":"\#(created.session.id)","kind":"\#(kind.name)","token":"\#(created.token)","version":\#(version),"state":"#.utf8)
                body += stateBytes
                body.append(UInt8(ascii: "}"))
                var response = JSONAnswer.ok(body, status: 201, etagVersion: version)
                response.headers.add("Location", "/sessions/\(created.session.id)")
                exchange.send(response)
            }
        }
    }

    /// `DELETE /sessions/{id}`: answered once the session's files are gone.
    func deleteSession(_ session: Session, _ exchange: Exchange) {
        let found = registry.delete(session.id) {
            exchange.send(HTTPResponse(status: 204, headers: HTTPHeaders(), body: []))
        }
        if !found { exchange.send(SessionProblems.notFound) }
    }

    /// `GET /sessions/{id}/state` with `If-None-Match`, `?path=` and `?version=`.
    func readState(_ session: Session, _ exchange: Exchange) {
        let query = exchange.request.queryItems()
        var version: Int?
        if let text = query.first(where: { $0.name == "version" })?.value {
            guard let parsed = Self.decimal(text) else {
                return exchange.send(Problem(400, "invalid-query", "version must be an integer from 0 to \(Int.max), got '\(Problem.quote(text))'"))
            }
            version = parsed
        }
        var pointer: JSONPointer?
        var pointerText = ""
        if let text = query.first(where: { $0.name == "path" })?.value {
            do { pointer = try JSONPointer(text) } catch {
                return exchange.send(Problem(400, "invalid-query", "path is not an RFC 6901 JSON Pointer: '\(Problem.quote(text))'"))
            }
            pointerText = text
        }

        let ifNoneMatch = exchange.request.headers.combined("If-None-Match").flatMap(EntityTag.parseList)
        if let version {
            // A replay from a kept state can take a while on a large state: it runs off the I/O
            // thread, so the other connections of this loop are not held up meanwhile.
            let pointer = pointer, pointerText = pointerText
            registry.context.offLoop.run {
                guard let pointer else {
                    let stateBytes: [UInt8]
                    do throws(Problem) { stateBytes = try session.state(at: version) } catch {
                        return exchange.send(error)
                    }
                    return Self.sendUnlessNotModified(JSONAnswer.state(version: version, state: stateBytes), of: version, ifNoneMatch, exchange)
                }
                // Only the value at the path is encoded, not the state around it.
                let value: [UInt8]?
                do throws(Problem) { value = try session.value(at: version, pointer: pointer) } catch {
                    return exchange.send(error)
                }
                guard let value else {
                    return exchange.send(Problem(404, "path-not-found", "nothing is at '\(Problem.quote(pointerText))' in the state at version \(version)"))
                }
                Self.sendUnlessNotModified(Self.pointerAnswer(version: version, path: pointerText, value: value), of: version, ifNoneMatch, exchange)
            }
        } else {
            // The head's answer (the state's is built once per version and shared by every reader),
            // at once when the head is durable, else once it is.
            let read = HeadRead(target: pointer.map { .value($0, path: pointerText) } ?? .state, exchange: exchange, ifNoneMatch: ifNoneMatch)
            if let answer = session.withDurableHead({ session.headAnswerLocked(read.target) }) { return Self.send(answer, to: read) }
            session.answerWhenDurable(read)
        }
    }

    /// Sends what `read` read of the head: the state, the value at its pointer, or 404 when
    /// nothing is there; a 304 when its `If-None-Match` names the version.
    static func send(_ answer: consuming HeadAnswer, to read: HeadRead) {
        let version = answer.version
        // Taken out of the answer, not copied: the state's answer is handed to the exchange.
        switch (consume answer).content {
        case .state(let response):
            sendUnlessNotModified(response, of: version, read.ifNoneMatch, read.exchange)
        case .value(let value?, let path):
            sendUnlessNotModified(pointerAnswer(version: version, path: path, value: value), of: version, read.ifNoneMatch, read.exchange)
        case .value(nil, let path):
            read.exchange.send(Problem(404, "path-not-found", "nothing is at '\(Problem.quote(path))' in the state"))
        }
    }

    /// `answer`, or 304 when `If-None-Match` names the version it is of (RFC 9110 §13.1.2). Only
    /// what would otherwise be a 200 comes here (§13.2.1): a path or a version that is not there
    /// stays a 404. A version's state never changes, so a past version is as cacheable as the head.
    private static func sendUnlessNotModified(_ answer: consuming HTTPResponse, of version: Int, _ ifNoneMatch: [EntityTag]?, _ exchange: Exchange) {
        // `answer` is a `JSONAnswer`'s, which says `Vary: Origin`; the 304 says it as the 200 would.
        guard let ifNoneMatch, EntityTag.ifNoneMatch(ifNoneMatch, version: version) else { return exchange.send(answer, saysVary: true) }
        var headers = HTTPHeaders()
        headers.add("ETag", "\"\(version)\"")
        headers.add(static: "Vary", "Origin")
        exchange.send(HTTPResponse(status: 304, headers: headers, body: []), saysVary: true)
    }

    /// `{"version","path","value"}`, the value's bytes as they stand in the state's encoding.
    private static func pointerAnswer(version: Int, path: String, value: some Collection<UInt8>) -> HTTPResponse {
        var out: [UInt8] = []
        out += Array(#"{"version":\#(version),"path":"#.utf8)
        out += JSONValue.string(path).encoded()
        out += Array(#","value":"#.utf8)
        out += value
        out.append(UInt8(ascii: "}"))
        return JSONAnswer.ok(out, etagVersion: version)
    }

    /// `GET /sessions/{id}/actions?since=V&limit=L`.
    func readLog(_ session: Session, _ exchange: Exchange) {
        let query = exchange.request.queryItems()
        var since: Int?
        var limit = 100
        if let text = query.first(where: { $0.name == "since" })?.value {
            guard let value = Self.decimal(text) else {
                return exchange.send(Problem(400, "invalid-query", "since must be an integer from 0 to \(Int.max), got '\(Problem.quote(text))'"))
            }
            since = value
        }
        if let text = query.first(where: { $0.name == "limit" })?.value {
            guard let value = Self.decimal(text), value >= 1 else {
                return exchange.send(Problem(400, "invalid-query", "limit must be an integer from 1 to \(Int.max), got '\(Problem.quote(text))'"))
            }
            limit = min(value, 1_000)
        }
        do { exchange.send(JSONAnswer.ok(try session.logPage(since: since, limit: limit))) } catch { exchange.send(error) }
    }

    /// `POST /sessions/{id}/actions`: one FSA or a batch of them.
    func postActions(_ session: Session, _ exchange: Exchange, committer: Committer) {
        // Memory budget: the parsed actions count from here; once applied the session holds them.
        let budget = registry.context.memoryBudget
        let reservation = MemoryBudget.parsedSize(ofBody: exchange.request.body.count)
        guard budget.reserve(reservation) else { return exchange.send(MemoryBudget.refusal) }
        defer { budget.release(reservation) }
        let now = exchange.now
        let records: [ActionRecord]
        if let record = Self.singleAction(exchange.request.body, at: now, names: session.kind.actionTypeNames) {
            records = [record]
        } else {
            guard let parsed = parseActions(exchange.request.body, at: now, exchange) else { return }
            records = parsed
        }
        // A body within the limit holds no action past it: most are checked by their length alone.
        if exchange.request.body.count > registry.context.maxActionBytes,
           let problem = Self.oversizedAction(records, limit: registry.context.maxActionBytes) {
            return exchange.send(problem)
        }

        var ifMatch: [EntityTag]?
        if let field = exchange.request.headers.combined("If-Match") {
            // An If-Match that is not an entity-tag list can match nothing (RFC 9110 §13.1.1).
            ifMatch = EntityTag.parseList(field) ?? []
        }
        var idempotency: (key: String, bodyHash: [UInt8])?
        if let key = exchange.request.headers["Idempotency-Key"] {
            // RFC 9110 §5.3: two field lines mean their values joined by a comma; a key that is
            // two keys is refused, not cut to its first (the same rule as Authorization's).
            guard exchange.request.headers.count("Idempotency-Key") == 1 else {
                return exchange.send(Problem(400, "invalid-header", "Idempotency-Key is given more than once"))
            }
            guard !key.isEmpty, key.utf8.count <= 255 else {
                return exchange.send(Problem(400, "invalid-header", "Idempotency-Key must be 1 to 255 bytes"))
            }
            idempotency = (key, SHA256.hash(Self.canonicalBody(exchange.request.body)))
        }
        let minimal = Self.prefersMinimal(exchange.request)
        session.submit(ActionSubmission(records: records, ifMatch: ifMatch, idempotency: idempotency, minimal: minimal),
                       committer: committer, replyTo: .client(exchange))
    }

    /// `Prefer: return=minimal` (RFC 7240 §4.2): the answer is the patches, not the state.
    static func prefersMinimal(_ request: HTTPRequest) -> Bool {
        request.headers.values("Prefer").contains { field in
            // RFC 7240 §2: a list of preferences, each token [BWS "=" BWS word] with parameters
            // after ';', where a word is a token or a quoted-string.
            field.split(separator: ",").contains { preference in
                let nameAndValue = (preference.split(separator: ";").first ?? "").split(separator: "=", maxSplits: 1)
                guard nameAndValue.count == 2, nameAndValue[0].trimmingSpaces().lowercased() == "return" else { return false }
                var value = nameAndValue[1].trimmingSpaces()
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
                return value.lowercased() == "minimal"
            }
        }
    }

    /// Whether a session request's work is too large for the event loop that read it, whose
    /// other connections would wait for it: a body past `offLoopBodyBytes` (reading and applying
    /// a batch), or an answer that encodes a state past `offLoopStateBytes` (a full POST answer,
    /// the head, a new subscriber's snapshot, an export). Decided from the head and what the
    /// session last encoded, so a small request pays three comparisons.
    func isCostly(_ endpoint: SessionEndpoint, _ exchange: Exchange, on session: Session) -> Bool {
        if exchange.request.body.count > offLoopBodyBytes { return true }
        guard session.stateBytesEstimate.load(ordering: .relaxed) > offLoopStateBytes
                || session.journalSnapshotBytes.load(ordering: .relaxed) > offLoopStateBytes else { return false }
        let request = exchange.request
        switch endpoint {
        case .postActions: return !Self.prefersMinimal(request)
        // `?version=` replays off the loop by itself; `?path=` alone encodes one value.
        case .readState: return request.query == nil || !request.queryItems().contains { $0.name == "version" || $0.name == "path" }
        case .openEvents, .export: return true
        case .read, .delete, .readLog: return false
        }
    }

    /// The body as a JSON value re-encoded by the project's writer (keys sorted, no spacing), so
    /// that an Idempotency-Key compares what a request means, not how its client spaced or
    /// ordered it (docs/API.md "Operators"); a body that is not JSON stays as it came, and is
    /// refused as malformed anyway.
    static func canonicalBody(_ body: [UInt8]) -> [UInt8] {
        guard let value = try? JSONReader.parse(body) else { return body }
        return value.encoded()
    }

    /// 413 `action-too-large` for the first action whose payload and meta together encode to
    /// more than `limit` bytes of JSON (`--max-action-bytes`): what one action may make the
    /// server keep in its history, its journal and its subscribers' streams.
    static func oversizedAction(_ records: [ActionRecord], limit: Int) -> Problem? {
        for (index, record) in records.enumerated() {
            let bytes = (record.payload?.encoded().count ?? 0) + (record.meta?.encoded().count ?? 0)
            guard bytes > limit else { continue }
            let batch = records.count > 1
            return Problem(413, "action-too-large",
                           (batch ? "action \(index): " : "") + "payload and meta hold \(bytes) bytes of JSON, more than --max-action-bytes (\(limit))",
                           extra: (batch ? [("index", .int(index))] : []) + [("maxActionBytes", .int(limit))])
        }
        return nil
    }

    /// The usual body, one FSA object with a string `type`, read from its bytes with the type
    /// matched against the session's kind's `names` (no `String` per request, no object built);
    /// nil for anything else (a batch, another shape, bad JSON), which `parseActions` answers.
    static func singleAction(_ body: [UInt8], at now: Int64, names: ActionTypeNames = .none) -> ActionRecord? {
        ActionRecord.read(fsa: body, names: names, at: now, source: .client)
    }

    /// The body's actions, one or a batch; nil once the refusal is sent.
    private func parseActions(_ body: [UInt8], at now: Int64, _ exchange: Exchange) -> [ActionRecord]? {
        let value: JSONValue
        do { value = try JSONReader.parse(body) } catch {
            exchange.send(Problem(400, "malformed-json", "the body is not JSON: \(error)"))
            return nil
        }
        let items: [JSONValue]
        let isBatch: Bool
        switch value {
        case .array(let list): items = list; isBatch = true
        default: items = [value]; isBatch = false
        }
        guard !items.isEmpty else {
            exchange.send(Problem(422, "empty-batch", "a batch must hold at least one action"))
            return nil
        }
        var records: [ActionRecord] = []
        records.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .object(let object) = item, case .string(let type)? = object["type"] else {
                let detail = #"an action is an object with a string "type""#
                exchange.send(Problem(422, "invalid-action", isBatch ? "action \(index): \(detail)" : detail,
                                      extra: isBatch ? [("index", .int(index))] : []))
                return nil
            }
            let payload = object["payload"].flatMap { $0 == .null ? nil : $0 }
            let meta = object["meta"].flatMap { $0 == .null ? nil : $0 }
            records.append(ActionRecord(type: type, payload: payload, meta: meta, at: now, source: .client))
        }
        return records
    }

    /// `GET /sessions/{id}/events`: the SSE stream.
    func openEvents(_ session: Session, _ exchange: Exchange) {
        let request = exchange.request
        var resumeAfter: Int?
        if let text = request.queryItems().first(where: { $0.name == "since" })?.value {
            guard let value = Self.decimal(text) else {
                return exchange.send(Problem(400, "invalid-query", "since must be an integer from 0 to \(Int.max), got '\(Problem.quote(text))'"))
            }
            resumeAfter = value
        }
        if let text = request.headers["Last-Event-ID"], let value = Self.decimal(text.trimmingSpacesAround()) {
            // WHATWG HTML §9.2.4: the header carries the last id the client saw; it wins over ?since.
            resumeAfter = value
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/event-stream")
        headers.add("Cache-Control", "no-cache")
        headers.add("X-Accel-Buffering", "no")
        if request.method == "HEAD" {
            // The stream's own head, chunked and without Content-Length, as GET would start it
            // (RFC 9110 §9.3.2); the engine sends no body for HEAD and ends the stream at once.
            _ = exchange.sendStream(status: 200, headers: headers)
            return exchange.record(status: 200)
        }
        let stream = exchange.sendStream(status: 200, headers: headers)
        exchange.record(status: 200)
        if !session.subscribe(stream, resumeAfter: resumeAfter) {
            _ = stream.write(EventFrames.end(reason: "deleted"))
            stream.finish()
        }
    }
}

extension Router {
    /// A version, count or event id as the API writes them: decimal digits only, so `+1`, `-0`
    /// and ` 1` are refused rather than read as numbers; nil also past `Int.max`.
    static func decimal(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }
}

extension String {
    func trimmingSpacesAround() -> String { Substring(self).trimmingSpaces() }
}
