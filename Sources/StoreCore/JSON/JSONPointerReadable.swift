/// A value that can answer a JSON Pointer lookup without encoding all of itself, so
/// `GET …/state?path=/tasks/byId/3` costs the same at ten tasks or a million.
/// The default encodes the value and walks the result; large parts override it.
public protocol JSONPointerReadable {
    /// The value at `tokens` (RFC 6901 reference tokens, already unescaped), nil when none.
    func jsonValue(at tokens: ArraySlice<String>) -> JSONValue?
}

extension JSONPointerReadable where Self: JSONEncodable {
    public func jsonValue(at tokens: ArraySlice<String>) -> JSONValue? {
        jsonValue().value(at: JSONPointer(tokens: Array(tokens)))
    }
}

extension EntityTable: JSONPointerReadable {
    /// `/byId/<key>/...` and `/allIds/<n>` look up one entity or id; the whole table only
    /// when the pointer stops at it or at `byId`/`allIds`.
    public func jsonValue(at tokens: ArraySlice<String>) -> JSONValue? {
        guard let first = tokens.first else { return jsonValue() }
        let rest = tokens.dropFirst()
        switch first {
        case "byId":
            guard let key = rest.first else { return jsonValue()["byId"] }
            guard let id = E.ID(key: key), let entity = self[id] else { return nil }
            return entity.jsonValue().value(at: JSONPointer(tokens: Array(rest.dropFirst())))
        case "allIds":
            guard let index = rest.first else { return jsonValue()["allIds"] }
            guard rest.count == 1, let i = JSONPointer.arrayIndex(index), i < count else { return nil }
            // The i-th live id: positions are what the Fenwick tree counts.
            return nthId(i).map { $0.jsonValue() }
        default:
            return nil
        }
    }

    /// The id at position `i` of `allIds`, by a binary search on live-slot counts (O(log² n)).
    func nthId(_ i: Int) -> E.ID? {
        var low = 0, high = slots.count  // the answer is the smallest slot s with prefix(s + 1) > i
        while low < high {
            let mid = (low + high) / 2
            if live.prefix(mid + 1) > i { high = mid } else { low = mid + 1 }
        }
        return low < slots.count ? slots[low] : nil
    }
}

