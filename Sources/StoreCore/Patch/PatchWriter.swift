/// Writes an RFC 6902 patch (a JSON array of operations) straight to bytes while a store
/// compares before and after. Paths are RFC 6901 pointers; callers escape tokens with
/// `JSONPointer.escape`.
///
///     var p = PatchWriter()
///     p.replace("/count", 3)
///     p.bytes   // [{"op":"replace","path":"/count","value":3}]
public struct PatchWriter: Sendable {
    var writer = JSONWriter(capacity: 64)
    public private(set) var count = 0

    public init() { writer.beginArray() }

    /// The finished patch. Reading it does not end the writer.
    public var bytes: [UInt8] {
        var b = writer.bytes
        b.append(UInt8(ascii: "]"))
        return b
    }

    public var isEmpty: Bool { count == 0 }

    mutating func open(_ op: StaticString, _ path: String) {
        writer.beginObject()
        writer.key("op")
        writer.separate()
        writer.bytes.append(UInt8(ascii: "\""))
        op.withUTF8Buffer { writer.bytes.append(contentsOf: $0) }
        writer.bytes.append(UInt8(ascii: "\""))
        writer.needsComma = true
        writer.key("path"); writer.write(path)
    }

    public mutating func replace(_ path: String, _ value: some JSONEncodable) {
        open("replace", path)
        writer.key("value"); value.writeJSON(to: &writer)
        writer.endObject()
        count += 1
    }

    public mutating func add(_ path: String, _ value: some JSONEncodable) {
        open("add", path)
        writer.key("value"); value.writeJSON(to: &writer)
        writer.endObject()
        count += 1
    }

    public mutating func remove(_ path: String) {
        open("remove", path)
        writer.endObject()
        count += 1
    }
}
