/// Appends UTF-8 JSON to a byte buffer, without an intermediate tree.
///
/// Typed states drive it directly and so choose their key order (the order docs/API.md shows);
/// `write(_ value: JSONValue)` sorts object keys so output is stable.
///
///     var w = JSONWriter()
///     w.beginObject(); w.key("count"); w.write(3); w.endObject()
///     // w.bytes == Array(#"{"count":3}"#.utf8)
public struct JSONWriter: Sendable {
    public var bytes: [UInt8]
    /// True when the next key or array element needs a leading comma.
    /// One flag suffices: right after `[`/`{` it is false, after any value it is true.
    @usableFromInline var needsComma = false

    @inlinable public init(capacity: Int = 256) {
        bytes = []
        // Not for 0 (a writer given its bytes by `swap`): reserving nothing still costs a call.
        if capacity > 0 { bytes.reserveCapacity(capacity) }
    }

    @inlinable public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    @inlinable public mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    @inlinable public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    @inlinable public mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// Writes `"name":`; the next write is its value.
    @inlinable public mutating func key(_ name: String) {
        separate()
        writeStringLiteral(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// `"name":` for a key the caller knows needs no escaping (an identifier), without scanning it.
    @inlinable public mutating func key(static name: StaticString) {
        // `,"name":` written in place in one append: an append per part cost ~180 instructions a
        // key, and a state writes one per member.
        withCursor(maxBytes: name.utf8CodeUnitCount + 4) { $0.key(name) }
    }

    @inlinable mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    @inlinable public mutating func writeNull() { separate(); appendASCII("null"); needsComma = true }
    @inlinable public mutating func write(_ value: Bool) {
        separate()
        if value { appendASCII("true") } else { appendASCII("false") }
        needsComma = true
    }

    @inlinable public mutating func write(_ value: Int) {
        withCursor(maxBytes: JSONCursor.maxIntBytes) { $0.write(value) }
    }

    public mutating func write(_ value: Double) {
        separate()
        if !value.isFinite {
            appendASCII("null")  // JSON has no NaN/Infinity (RFC 8259 §6)
        } else if value == value.rounded(.towardZero), abs(value) < 1e15 {
            // Integral doubles keep a fraction so they read back as doubles.
            writeIntDigits(Int(value)); appendASCII(".0")
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
        needsComma = true
    }

    @inlinable public mutating func write(_ value: String) {
        separate()
        writeStringLiteral(value)
        needsComma = true
    }

    /// Splices already-encoded JSON (e.g. a cached state) as one value.
    public mutating func writeRaw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let b): write(b)
        case .int(let i): write(i)
        case .double(let d): write(d)
        case .string(let s): write(s)
        case .array(let a):
            beginArray()
            for e in a { write(e) }
            endArray()
        case .object(let o):
            beginObject()
            for k in o.keys.sorted() {
                key(k)
                write(o[k] ?? .null)
            }
            endObject()
        }
    }

    @inlinable mutating func appendASCII(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends bytes verbatim (no separator, no quoting): for callers that write fixed JSON fragments.
    @inlinable public mutating func writeRawStatic(_ s: StaticString) {
        // One byte (a patch's brackets, a comma) goes in as an element: `append(contentsOf:)`
        // costs ~100 instructions whatever the count, an element a quarter of that.
        s.withUTF8Buffer { utf8 in
            if utf8.count == 1 { bytes.append(utf8[0]) } else { bytes.append(contentsOf: utf8) }
        }
    }

    /// Writes a static ASCII string as a JSON string (no escaping needed by the caller's promise).
    @inlinable public mutating func writeStatic(_ s: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    @inlinable mutating func writeIntDigits(_ value: Int) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(truncatingIfNeeded: value) &+ 48)
            return
        }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // 20 digits hold UInt64.max; fill from the right, then copy.
        var buf: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &buf) { raw in
            var i = 24
            repeat {
                i -= 1
                raw[i] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 48
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[i..<24]))
        }
    }

    /// Writes a quoted string, escaping per RFC 8259 §7 (control characters, `"` and `\`).
    @usableFromInline mutating func writeStringLiteral(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var start = 0
            for i in 0..<utf8.count {
                let c = utf8[i]
                if c >= 0x20 && c != 0x22 && c != 0x5C { continue }
                if start < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i])) }
                start = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch c {
                case 0x22: bytes.append(0x22)
                case 0x5C: bytes.append(0x5C)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 48, 48, hex[Int(c >> 4)], hex[Int(c & 15)]])
                }
            }
            if start < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
