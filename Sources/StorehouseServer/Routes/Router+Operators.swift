import HTTPEngine
import StoreCore
import StoreKinds

extension Router {
    /// `GET /sessions?kind=K&limit=L&cursor=C` (admin): the sessions in id order, a page at a
    /// time. The cursor is the last id of the page before, so a page never repeats or skips a
    /// session that outlives the listing, whatever is created or deleted between pages.
    func listSessions(_ exchange: Exchange) {
        var kind: String?
        var limit = 100
        var cursor: String?
        for (name, value) in exchange.request.queryItems() {
            switch name {
            case "kind":
                guard registry.context.kinds.kind(named: value) != nil else {
                    return exchange.send(Problem(422, "unknown-kind", "no store kind is called '\(value.prefix(64))'",
                                                 extra: [("validKinds", .array(registry.context.kinds.all.map { .string($0.name) }))]))
                }
                kind = value
            case "limit":
                guard let parsed = Self.decimal(value), parsed >= 1 else {
                    return exchange.send(Problem(400, "invalid-query", "limit must be a positive 64-bit integer (more than 1000 reads as 1000), got '\(value.prefix(64))'"))
                }
                limit = min(parsed, 1_000)
            case "cursor":
                // Any id-shaped string is a position in the order (openapi.yaml's pattern).
                guard (1...64).contains(value.utf8.count), value.utf8.allSatisfy({ Self.isCursorByte($0) }) else {
                    return exchange.send(Problem(400, "invalid-query", "cursor must be the next of an earlier page, got '\(value.prefix(64))'"))
                }
                cursor = value
            default:
                break  // `admit` refused any other
            }
        }
        let (sessions, more) = registry.page(after: cursor, kind: kind, limit: limit)
        var out: [UInt8] = []
        out.reserveCapacity(64 + sessions.count * 220)
        out += Array(#"{"sessions":["#.utf8)
        for (index, session) in sessions.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            session.appendMetadataJSON(to: &out)
        }
        out += Array(#"],"next":"#.utf8)
        if more, let last = sessions.last {
            out += JSONValue.string(last.id).encoded()
        } else {
            out += Array("null".utf8)
        }
        out.append(UInt8(ascii: "}"))
        exchange.send(JSONAnswer.ok(out))
    }

    /// `[A-Za-z0-9_.-]`: the bytes of a session id, with or without a node.
    private static func isCursorByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
    }

    /// `GET /sessions/{id}/export`: the whole session as one document (`Session.exportDocument`).
    func exportSession(_ session: Session, _ exchange: Exchange) {
        do { exchange.send(JSONAnswer.ok(try session.exportDocument())) } catch { exchange.send(error) }
    }

    /// `POST /sessions/import` (admin): 201 as for a created session, without a token (the
    /// exported session's own keeps working).
    func importSession(_ exchange: Exchange) {
        guard registry.context.memoryBudget.admitsWrites else { return exchange.send(MemoryBudget.refusal) }
        let value: JSONValue
        do { value = try JSONReader.parse(exchange.request.body, maxDepth: 10_000) } catch {
            return exchange.send(Problem(400, "malformed-json", "the body is not JSON: \(error)"))
        }
        let export: SessionExport
        do throws(Problem) { export = try SessionExport(json: value, kinds: registry.context.kinds) } catch { return exchange.send(error) }
        // An id that names another node is imported there, never here (docs/API.md "Cluster").
        if let misdirected = registry.context.routing.misdirection(for: export.id) { return exchange.send(misdirected) }
        registry.importSession(export) { result in
            switch result {
            case .failure(let problem):
                exchange.send(problem)
            case .success(let imported):
                let session = imported.session
                var body = Array(#"{"id":"\#(session.id)","kind":"\#(session.kind.name)","version":\#(imported.version),"state":"#.utf8)
                body += imported.state
                body.append(UInt8(ascii: "}"))
                var response = JSONAnswer.ok(body, status: 201, etagVersion: imported.version)
                response.headers.add("Location", "/sessions/\(session.id)")
                exchange.send(response)
            }
        }
    }
}
