/// A normalized collection: `byId` plus ordered `allIds`, as `{"byId": {...}, "allIds": [...]}`.
///
/// A persistent value: a copy (`let kept = table`) costs O(1) and shares every entity; a change
/// afterwards copies only the few trie nodes on its path (O(log n) memory), so a session can
/// keep the state at many versions for the price of what changed between them.
///
/// Rows live in `EntityRows` (a radix trie by small integer id, a hash trie for other ids), the
/// `allIds` order in a `SlotTrie` from slot to id. Insert takes the next slot; remove leaves a
/// hole there, and the trie's counts give the removed id's position in `allIds` (needed for the
/// patch) in O(log n); holes are compacted at commit once they outnumber live ids (amortized
/// O(1)).
///
/// Every change is logged with the old entity while an action runs, which gives the
/// Store O(change) patches (`writePatch(since:at:into:)`) and rollbacks (`rollback(to:)`)
/// without copying the table. `commit()` forgets the log.
///
///     var t = EntityTable<Task>()
///     t.insert(Task(id: 1, title: "a", done: false))
///     let kept = t                       // O(1), shares every task
///     t.update(1) { $0.done.toggle() }   // kept[1]?.done is still false
public struct EntityTable<E: Entity>: Sendable {
    @usableFromInline typealias Row = EntityRows<E>.Row

    @usableFromInline enum LogEntry: Sendable {
        case inserted(E.ID, position: Int)
        case updated(E.ID, old: E)
        case fieldUpdated(E.ID, AnyFieldChange<E>)
        case removed(E.ID, old: E, slot: Int, position: Int)

        @inlinable var id: E.ID {
            switch self {
            case .inserted(let id, _), .updated(let id, _), .fieldUpdated(let id, _), .removed(let id, _, _, _): return id
            }
        }
    }

    @usableFromInline var rows = EntityRows<E>()
    /// `allIds` by slot, with holes where an id was removed.
    @usableFromInline var order = SlotTrie<E.ID>()
    /// The slot the next insert takes.
    @usableFromInline var slotCount = 0
    @usableFromInline var log: [LogEntry] = []

    /// Slots whose id was removed.
    @inlinable var tombstones: Int { slotCount - order.count }

    @inlinable
    public init() {}

    @inlinable
    public init(_ entities: some Sequence<E>) {
        for e in entities where rows[e.id] == nil {
            rows.insertNew(e.id, Row(entity: e, slot: slotCount))
            order.set(slotCount, e.id)
            slotCount += 1
        }
    }

    @inlinable
    public var count: Int { rows.count }
    @inlinable
    public var isEmpty: Bool { rows.count == 0 }

    @inlinable
    public subscript(id: E.ID) -> E? { rows[id]?.entity }

    @inlinable
    public func contains(_ id: E.ID) -> Bool { rows[id] != nil }

    /// Ids in `allIds` order.
    @inlinable
    public var ids: [E.ID] {
        var ids: [E.ID] = []
        ids.reserveCapacity(count)
        order.forEach { ids.append($0) }
        return ids
    }

    /// Entities in `allIds` order.
    @inlinable
    public var values: [E] {
        var values: [E] = []
        values.reserveCapacity(count)
        order.forEach { id in if let row = rows[id] { values.append(row.entity) } }
        return values
    }

    /// Appends `entity`; false (and no change) when its id is already present.
    @discardableResult
    @inlinable
    public mutating func insert(_ entity: E) -> Bool {
        guard rows[entity.id] == nil else { return false }
        log.append(.inserted(entity.id, position: rows.count))
        rows.insertNew(entity.id, Row(entity: entity, slot: slotCount))
        order.set(slotCount, entity.id)
        slotCount += 1
        return true
    }

    /// Changes the entity in place; false when the id is absent. The id must not change.
    @discardableResult
    @inlinable
    public mutating func update(_ id: E.ID, _ body: (inout E) -> Void) -> Bool {
        guard let old = rows[id]?.entity else { return false }
        log.append(.updated(id, old: old))
        rows.modify(id) { body(&$0.entity) }
        return true
    }

    /// Changes one field in place; false when the id is absent. Only the field's old value is
    /// logged and the patch names only that field, so a large entity (or one whose strings
    /// live on the heap) is not copied or touched beyond the field.
    ///
    ///     tasks.update(id, \.done, member: "done") { $0.toggle() }
    @discardableResult
    @inlinable
    public mutating func update<V: PatchDiffable>(_ id: E.ID, _ field: WritableKeyPath<E, V>, member: String,
                                                  _ body: (inout V) -> Void) -> Bool {
        var old: V?, new: V?
        rows.modify(id) { row in
            old = row.entity[keyPath: field]
            body(&row.entity[keyPath: field])
            new = row.entity[keyPath: field]
        }
        guard let old, let new else { return false }
        log.append(.fieldUpdated(id, FieldChange(field: field, old: old, new: new, token: "/" + JSONPointer.escape(member))))
        return true
    }

    /// Removes and returns the entity; nil when absent.
    @discardableResult
    @inlinable
    public mutating func remove(_ id: E.ID) -> E? {
        guard let row = rows.remove(id) else { return nil }
        let position = order.rank(row.slot)
        log.append(.removed(id, old: row.entity, slot: row.slot, position: position))
        order.set(row.slot, nil)
        return row.entity
    }

    // MARK: change tracking

    /// A point in the change log to write a patch or roll back from.
    @inlinable
    public var mark: Int { log.count }

    /// Undoes, newest first, every change logged since `mark`.
    @inlinable
    public mutating func rollback(to mark: Int) {
        while log.count > mark {
            switch log.removeLast() {
            case .inserted(let id, _):
                rows.remove(id)
                slotCount -= 1  // compaction never runs while a log is open, so it is the last slot
                order.set(slotCount, nil)
            case .updated(let id, let old):
                rows.modify(id) { $0.entity = old }
            case .fieldUpdated(let id, let change):
                rows.modify(id) { change.undo(&$0.entity) }
            case .removed(let id, let old, let slot, _):
                rows.insertNew(id, Row(entity: old, slot: slot))
                order.set(slot, id)
            }
        }
    }

    /// Forgets the log (the batch is final) and compacts tombstones when they dominate.
    @inlinable
    public mutating func commit() {
        log.removeAll(keepingCapacity: log.count < 1024)
        if tombstones > 64 && tombstones > rows.count { compact() }
    }

    @usableFromInline mutating func compact() {
        var newOrder = SlotTrie<E.ID>()
        for (slot, id) in ids.enumerated() {
            rows.modify(id) { $0.slot = slot }
            newOrder.set(slot, id)
        }
        slotCount = newOrder.count
        order = newOrder
    }

    /// Patch operations for every change since `mark`, under `path` (e.g. "/tasks"):
    /// `allIds` adds/removes at the positions they had, in order; one operation (or a field
    /// diff) per touched id in `byId`, from its value before the first change to its value now.
    @inlinable
    public func writePatch(since mark: Int, at path: String, into patch: inout PatchWriter) {
        guard mark < log.count else { return }
        let allIds = path + "/allIds/"
        for entry in log[mark...] {
            switch entry {
            case .inserted(let id, let position): patch.add(allIds + String(position), id)
            case .removed(_, _, _, let position): patch.remove(allIds + String(position))
            case .updated, .fieldUpdated: break
            }
        }
        let byId = path + "/byId/"
        // Usually one entry: dedupe by scanning the few before it, a set only for long logs
        // (an empty Set does not allocate).
        let useSet = log.count - mark > 16
        var seen = Set<E.ID>()
        for offset in mark..<log.count {
            let entry = log[offset]
            let id = entry.id
            if useSet {
                guard seen.insert(id).inserted else { continue }
            } else if log[mark..<offset].contains(where: { $0.id == id }) {
                continue
            }
            let key = JSONPointer.escape(id.key)
            if case .fieldUpdated = entry {
                // Only field changes for this id: each writes its own old-to-new diff, in order,
                // without reading the entity. Mixed with whole-entity changes (or too many to
                // scan): the entity, which existed before the action, is replaced or removed.
                if !useSet, log[offset...].allSatisfy({ $0.id != id || $0.isFieldUpdate }) {
                    for case .fieldUpdated(let other, let change) in log[offset...] where other == id {
                        change.write(byId: byId, key: key, into: &patch)
                    }
                    continue
                }
                let member = byId + key
                if let now = rows[id]?.entity {
                    patch.replace(member, now)
                } else {
                    patch.remove(member)
                }
                continue
            }
            let member = byId + key
            let now = rows[id]?.entity
            let before: E?
            switch entry {
            case .inserted, .fieldUpdated: before = nil
            case .updated(_, let old), .removed(_, let old, _, _): before = old
            }
            switch (before, now) {
            case (nil, nil): break
            case (nil, let now?): patch.add(member, now)
            case (_?, nil): patch.remove(member)
            case (let old?, let now?): now.diff(from: old, at: member, into: &patch)
            }
        }
    }
}

extension EntityTable.LogEntry {
    @inlinable var isFieldUpdate: Bool { if case .fieldUpdated = self { return true } else { return false } }
}

extension EntityTable: JSONEncodable {
    /// `{"byId": {...}, "allIds": [...]}`; `byId` members follow `allIds` order, so one state
    /// always gives the same bytes.
    @inlinable
    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("byId")
        w.beginObject()
        order.forEach { id in
            guard let row = rows[id] else { return }
            w.key(id.key)
            row.entity.writeJSON(to: &w)
        }
        w.endObject()
        w.key("allIds")
        w.beginArray()
        order.forEach { $0.writeJSON(to: &w) }
        w.endArray()
        w.endObject()
    }
}

extension EntityTable: JSONDecodable {
    /// Checks that `allIds` lists every `byId` member exactly once and that each entity's
    /// `id` matches its member name. Inlinable, so the kind's module decodes (and builds the
    /// tries) with code specialized for its entity.
    @inlinable
    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        // The object as it was parsed: no copy of a million members, no path built for each.
        guard case .object(let root) = json else { throw StateDecodingError(path: path, message: "expected an object, got \(json.typeName)") }
        guard let byIdJSON = root["byId"] else { throw StateDecodingError(path: path + "/byId", message: "missing") }
        guard case .object(let byIdValue) = byIdJSON else {
            throw StateDecodingError(path: path + "/byId", message: "expected an object, got \(byIdJSON.typeName)")
        }
        let allIds: [E.ID] = try json.decodeMember("allIds", at: path)
        var entities: [E] = []
        entities.reserveCapacity(allIds.count)
        var seen = Set<E.ID>()
        for (i, id) in allIds.enumerated() {
            guard seen.insert(id).inserted else { throw StateDecodingError(path: path + "/allIds/\(i)", message: "duplicate id") }
            let key = id.key
            guard let value = byIdValue[key] else { throw StateDecodingError(path: path + "/allIds/\(i)", message: "no such member in byId") }
            let entity = try JSONValue.decode(E.self, from: value) { path + "/byId/" + JSONPointer.escape(key) }
            guard entity.id == id else { throw StateDecodingError(path: path + "/byId/" + JSONPointer.escape(key) + "/id", message: "does not match its key") }
            entities.append(entity)
        }
        if byIdValue.count != allIds.count, let extra = byIdValue.keys.sorted().first(where: { E.ID(key: $0).map { !seen.contains($0) } ?? true }) {
            throw StateDecodingError(path: path + "/byId/" + JSONPointer.escape(extra), message: "not listed in allIds")
        }
        self.init(entities)
    }
}

extension Dictionary: JSONDecodable where Key == String, Value: JSONDecodable {
    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        guard case .object(let o) = json else { throw StateDecodingError(path: path, message: "expected an object, got \(json.typeName)") }
        var out: [String: Value] = [:]
        for (k, v) in o { out[k] = try Value(json: v, path: path + "/" + JSONPointer.escape(k)) }
        self = out
    }
}

extension EntityTable: Equatable {
    /// Same entities in the same order (tombstones and logs do not count); O(1) for a copy
    /// that shares everything.
    public static func == (a: EntityTable, b: EntityTable) -> Bool {
        if a.rows.isIdentical(to: b.rows), a.order.isIdentical(to: b.order) { return true }
        return a.count == b.count && a.ids == b.ids && a.ids.allSatisfy { a[$0] == b[$0] }
    }
}

extension EntityTable: Encodable where E: Encodable, E.ID: Encodable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The same shape as `writeJSON`, for comparing against Foundation's `JSONEncoder`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        var byId = c.nestedContainer(keyedBy: Key.self, forKey: Key("byId"))
        for id in ids {
            if let row = rows[id] { try byId.encode(row.entity, forKey: Key(id.key)) }
        }
        try c.encode(ids, forKey: Key("allIds"))
    }
}
