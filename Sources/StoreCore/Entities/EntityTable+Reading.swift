extension EntityTable: JSONStreamDecodable where E: JSONStreamDecodable {
    /// `init(json:path:)` straight from the bytes: each entity is read once, and while `byId`
    /// comes with increasing dense ids that `allIds` lists in the same order (the way `writeJSON`
    /// writes a table of counter ids) it moves straight into tries built bottom-up; otherwise the
    /// ids are checked as `init(json:path:)` checks them. Inlinable, so the kind's module reads
    /// with code specialized for its entity.
    @inlinable
    public init(reading r: inout JSONStreamReader) throws(StateDecodingError) {
        try self.init(reading: &r) { (r) throws(StateDecodingError) -> E in try E(reading: &r) }
    }
}

extension EntityTable {
    /// `{"byId": {...}, "allIds": [...]}` read by `entity` for each `byId` member: accepts and
    /// builds what `init(json:path:)` does, with one exception — of a `byId` member named twice
    /// (RFC 8259 §4 leaves it undefined; the last one counts, as in `JSONReader`), each must be
    /// an entity.
    ///
    ///     let table = try JSONStreamReader.read(bytes) { (r) throws(StateDecodingError) in
    ///         try EntityTable<Row>(reading: &r) { (r) throws(StateDecodingError) in try Row(json: r.readValue(), path: "") }
    ///     }
    @inlinable
    public init(reading r: inout JSONStreamReader, entity: (inout JSONStreamReader) throws(StateDecodingError) -> E) throws(StateDecodingError) {
        // `byId` goes straight into the rows while its ids come in increasing dense order (how
        // `writeJSON` writes a table of counter ids); from the first that does not, into a list.
        var built: EntityRows<E>.Builder?
        var listed: [E]?
        var byIdOrder: [E.ID] = []
        var allIds: [E.ID]?
        try r.beginObject()
        while let key = try r.nextKey() {
            if key == "byId" {
                var builder = EntityRows<E>.Builder()
                var list: [E]?
                byIdOrder = []
                try r.beginObject()
                while let name = try r.nextKey() {
                    let id = try Self.id(named: name)
                    let e: E
                    do { e = try entity(&r) } catch { throw error.under("/byId/" + JSONPointer.escape(name.string)) }
                    guard e.id == id else {
                        throw StateDecodingError(path: "/byId/" + JSONPointer.escape(name.string) + "/id", message: "does not match its key")
                    }
                    byIdOrder.append(id)
                    if list == nil {
                        if builder.append(e) { continue }
                        list = builder.entities()
                    }
                    list?.append(e)
                }
                built = builder
                listed = list
            } else if key == "allIds" {
                var ids: [E.ID] = []
                try r.beginArray()
                while try r.nextElement() {
                    let value: JSONValue
                    do { value = try r.readValue() } catch { throw error.under("/allIds/\(ids.count)") }
                    ids.append(try JSONValue.decode(E.ID.self, from: value) { "/allIds/\(ids.count)" })
                }
                allIds = ids
            } else {
                try r.skipValue()
            }
        }
        guard let built else { throw StateDecodingError(path: "/byId", message: "missing") }
        guard let allIds else { throw StateDecodingError(path: "/allIds", message: "missing") }
        self.init()
        if listed == nil, byIdOrder == allIds {
            // Strictly increasing ids: none repeats, and `allIds` names each member once.
            var order = SlotTrie<E.ID>.Builder()
            for (slot, id) in allIds.enumerated() { _ = order.append(slot, id) }
            rows = built.build()
            self.order = order.build()
            slotCount = allIds.count
            return
        }
        let byId = listed ?? built.entities()
        var members: [E.ID: E] = [:]
        members.reserveCapacity(byId.count)
        for e in byId { members[e.id] = e }
        var entities: [E] = []
        entities.reserveCapacity(allIds.count)
        var seen = Set<E.ID>()
        for (i, id) in allIds.enumerated() {
            guard seen.insert(id).inserted else { throw StateDecodingError(path: "/allIds/\(i)", message: "duplicate id") }
            guard let e = members[id] else { throw StateDecodingError(path: "/allIds/\(i)", message: "no such member in byId") }
            entities.append(e)
        }
        if members.count != allIds.count, let extra = members.keys.map(\.key).sorted().first(where: { E.ID(key: $0).map { !seen.contains($0) } ?? true }) {
            throw StateDecodingError(path: "/byId/" + JSONPointer.escape(extra), message: "not listed in allIds")
        }
        self.init(entities)
    }
}

extension EntityTable {
    /// The id a `byId` member name spells. `init?(key:)` takes only the spelling `key` gives, so a
    /// name that is no id's key is one `allIds` cannot list.
    @inlinable
    static func id(named name: JSONKey) throws(StateDecodingError) -> E.ID {
        // An `Int` id straight from the name's bytes: no string made and printed back.
        if E.ID.self == Int.self, let value = name.canonicalInt, let id = value as? E.ID { return id }
        let text = name.string
        guard let id = E.ID(key: text) else { throw StateDecodingError(path: "/byId/" + JSONPointer.escape(text), message: "not listed in allIds") }
        return id
    }
}
