/// A value that writes itself as JSON, straight into a `JSONWriter` (no tree, no reflection).
public protocol JSONEncodable {
    func writeJSON(to writer: inout JSONWriter)
}

extension JSONEncodable {
    /// The value's JSON bytes.
    @inlinable public func jsonBytes(capacity: Int = 256) -> [UInt8] {
        var w = JSONWriter(capacity: capacity)
        writeJSON(to: &w)
        return w.bytes
    }

    /// The value as a `JSONValue` (encode, then parse; for listings and tests, not hot paths).
    public func jsonValue() -> JSONValue {
        // Our own writer's output always parses; the fallback only satisfies the type checker.
        (try? JSONReader.parse(jsonBytes(), maxDepth: 1_000)) ?? .null
    }
}

extension Int: JSONEncodable { @inlinable public func writeJSON(to w: inout JSONWriter) { w.write(self) } }
extension Bool: JSONEncodable { @inlinable public func writeJSON(to w: inout JSONWriter) { w.write(self) } }
extension String: JSONEncodable { @inlinable public func writeJSON(to w: inout JSONWriter) { w.write(self) } }
extension Double: JSONEncodable { public func writeJSON(to w: inout JSONWriter) { w.write(self) } }
extension JSONValue: JSONEncodable { public func writeJSON(to w: inout JSONWriter) { w.write(self) } }

extension Optional: JSONEncodable where Wrapped: JSONEncodable {
    @inlinable public func writeJSON(to w: inout JSONWriter) {
        if let v = self { v.writeJSON(to: &w) } else { w.writeNull() }
    }
}

extension Array: JSONEncodable where Element: JSONEncodable {
    @inlinable public func writeJSON(to w: inout JSONWriter) {
        w.beginArray()
        for e in self { e.writeJSON(to: &w) }
        w.endArray()
    }
}
