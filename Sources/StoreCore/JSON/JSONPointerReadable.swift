/// A value that can answer a JSON Pointer lookup without encoding all of itself, so
/// `GET …/state?path=/tasks/byId/3` costs the same at ten tasks or a million.
/// The default encodes the value and walks the result; large parts override it.
public protocol JSONPointerReadable {
    /// The bytes of the value at `tokens` (RFC 6901 reference tokens, already unescaped), nil
    /// when none: exactly the bytes that stand there in the whole value's encoding, in the same
    /// key order.
    func encodedValue(at tokens: ArraySlice<String>) -> [UInt8]?
}

extension JSONPointer {
    /// The bytes at `tokens` in `bytes`, a JSON text (all of it, uncopied, for no tokens).
    public static func value(at tokens: ArraySlice<String>, in bytes: [UInt8]) -> [UInt8]? {
        if tokens.isEmpty { return bytes }
        return locate(tokens, in: bytes).map { Array(bytes[$0]) }
    }

    /// The bytes at `tokens` in `value`'s encoding: encode, then locate.
    public static func encodedValue(of value: some JSONEncodable, at tokens: ArraySlice<String>) -> [UInt8]? {
        self.value(at: tokens, in: value.jsonBytes())
    }
}

extension JSONPointerReadable where Self: JSONEncodable {
    public func encodedValue(at tokens: ArraySlice<String>) -> [UInt8]? {
        JSONPointer.encodedValue(of: self, at: tokens)
    }
}

extension EntityTable: JSONPointerReadable {
    /// `/byId/<key>/...` and `/allIds/<n>` look up one entity or id; the whole table only
    /// when the pointer stops at it or at `byId`/`allIds`.
    public func encodedValue(at tokens: ArraySlice<String>) -> [UInt8]? {
        let rest = tokens.dropFirst()
        switch tokens.first {
        case "byId"? where !rest.isEmpty:
            guard let key = rest.first, let id = E.ID(key: key), let entity = self[id] else { return nil }
            return JSONPointer.encodedValue(of: entity, at: rest.dropFirst())
        case "allIds"? where !rest.isEmpty:
            guard rest.count == 1, let index = rest.first, let i = JSONPointer.arrayIndex(index), i < count else { return nil }
            // The i-th live id: positions are what the slot trie counts.
            return nthId(i).map { $0.jsonBytes() }
        case nil, "byId"?, "allIds"?:
            return JSONPointer.encodedValue(of: self, at: tokens)
        default:
            return nil
        }
    }

    /// The id at position `i` of `allIds`, by the slot trie's counts (O(log n)).
    func nthId(_ i: Int) -> E.ID? { order.select(i)?.element }
}

