/// Writes an RFC 6902 patch (a JSON array of operations) straight to bytes while a store
/// compares before and after. Paths are RFC 6901 pointers; callers escape tokens with
/// `JSONPointer.escape`.
///
///     var p = PatchWriter()
///     p.replace("/count", 3)
///     p.finish()   // [{"op":"replace","path":"/count","value":3}]
public struct PatchWriter: Sendable {
    @usableFromInline var writer: JSONWriter
    @usableFromInline var _count = 0
    /// Operations written so far.
    public var count: Int { _count }

    /// The `[` goes in with the first operation (an append of its own costs ~45 instructions).
    @inlinable public init() {
        writer = JSONWriter(capacity: 96)
    }

    /// The finished patch bytes, moved out: the writer is left empty.
    ///
    /// Mutating, with the bytes swapped out, so `"]"` goes into a uniquely referenced buffer that
    /// is then handed over as is (a `consuming` one appends to a copy while the caller's reference
    /// is alive: a copy of the whole patch per action).
    @inlinable public mutating func finish() -> [UInt8] {
        if _count == 0 { writer.bytes.append(UInt8(ascii: "[")) }
        writer.bytes.append(UInt8(ascii: "]"))
        var bytes: [UInt8] = []
        swap(&bytes, &writer.bytes)
        return bytes
    }

    public var isEmpty: Bool { count == 0 }

    /// Writes `{"op":"<op>","path":"<path>"` with the constant parts as one append each.
    @inlinable mutating func open(_ prefix: StaticString, _ path: String) {
        writer.bytes.append(UInt8(ascii: _count == 0 ? "[" : ","))
        writer.writeRawStatic(prefix)
        writer.writeStringLiteral(path)
    }

    @inlinable public mutating func replace(_ path: String, _ value: some JSONEncodable) {
        open(#"{"op":"replace","path":"#, path)
        writer.writeRawStatic(#","value":"#)
        writer.needsComma = false
        value.writeJSON(to: &writer)
        writer.writeRawStatic("}")
        _count += 1
    }

    @inlinable public mutating func add(_ path: String, _ value: some JSONEncodable) {
        open(#"{"op":"add","path":"#, path)
        writer.writeRawStatic(#","value":"#)
        writer.needsComma = false
        value.writeJSON(to: &writer)
        writer.writeRawStatic("}")
        _count += 1
    }

    @inlinable public mutating func remove(_ path: String) {
        open(#"{"op":"remove","path":"#, path)
        writer.writeRawStatic("}")
        _count += 1
    }

    /// Diffs one field, building its path only when it changed (most fields do not). `member` is
    /// one RFC 6901 token that needs no escaping, with its slash.
    ///
    ///     patch.field(count, old.count, path, "/count")
    @inlinable public mutating func field<T: PatchDiffable>(_ new: T, _ old: T, _ path: String, _ member: StaticString) {
        if new == old { return }
        guard T.diffReplacesWhole, path.isEmpty else { return new.diff(from: old, at: path + member.description, into: &self) }
        // A top-level scalar: `{"op":"replace","path":"<member>","value":` in place, with no path
        // string built, and a number in the same append (the counter's POST writes one of these;
        // in specialized code `as? Int` is decided at compile time).
        let number = new as? Int
        let first = _count == 0
        writer.withCursor(maxBytes: 40 + member.utf8CodeUnitCount + JSONCursor.maxIntBytes) { c in
            c.writeRawStatic(first ? "[" : ",")
            c.writeRawStatic(#"{"op":"replace","path":""#)
            c.writeRawStatic(member)
            c.writeRawStatic(#"","value":"#)
            c.needsComma = false
            if let number { c.write(number); c.writeRawStatic("}") }
        }
        if number == nil {
            writer.needsComma = false
            new.writeJSON(to: &writer)
            writer.bytes.append(UInt8(ascii: "}"))
        }
        _count += 1
    }
}
