/// Writes JSON at a pointer into room a `JSONWriter` reserved (`JSONWriter.withCursor`): each
/// write is a store or a `memcpy`, where an `Array.append` costs 40 to 150 instructions.
///
/// For runs of members whose size is bounded (numbers, booleans, `null`, identifier keys, arrays
/// of numbers); strings, which need escaping, go through the writer. Every write checks the
/// reserved end: a wrong bound stops the process instead of writing past the room.
///
///     w.withCursor(maxBytes: 64) { c in
///         c.beginObject(); c.key("count"); c.write(3); c.endObject()
///     }
///     // w.bytes == Array(#"{"count":3}"#.utf8)
public struct JSONCursor {
    @usableFromInline var at: UnsafeMutablePointer<UInt8>
    @usableFromInline let end: UnsafeMutablePointer<UInt8>
    /// As `JSONWriter.needsComma`.
    @usableFromInline var needsComma: Bool

    /// The most bytes one `write(_: Int)` takes: a comma, a sign and 19 digits.
    public static let maxIntBytes = 21

    @inlinable init(_ start: UnsafeMutablePointer<UInt8>, end: UnsafeMutablePointer<UInt8>, needsComma: Bool) {
        at = start
        self.end = end
        self.needsComma = needsComma
    }

    /// A cursor over `count` bytes of room at `start`, which the caller owns.
    ///
    ///     withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { room in
    ///         var c = JSONCursor(start: room.baseAddress!, count: 32)
    ///         c.write(42)   // c.written(from: room.baseAddress!) == 2
    ///     }
    @inlinable public init(start: UnsafeMutablePointer<UInt8>, count: Int) {
        self.init(start, end: start + count, needsComma: false)
    }

    /// How many bytes were written from `start`, where the cursor began.
    @inlinable public func written(from start: UnsafeMutablePointer<UInt8>) -> Int { at - start }

    @inlinable @inline(__always) mutating func room(_ n: Int) {
        precondition(end - at >= n, "JSONCursor: more bytes than withCursor reserved")
    }

    @inlinable @inline(__always) mutating func put(_ byte: UInt8) {
        room(1)
        at.initialize(to: byte)
        at += 1
    }

    @inlinable @inline(__always) mutating func put(_ s: StaticString) {
        // `withUTF8Buffer`: a one-scalar `StaticString` may have no pointer.
        s.withUTF8Buffer { utf8 in
            room(utf8.count)
            if let base = utf8.baseAddress { at.initialize(from: base, count: utf8.count) }
            at += utf8.count
        }
    }

    @inlinable @inline(__always) mutating func separate() {
        if needsComma { put(UInt8(ascii: ",")) }
    }

    /// Bytes verbatim: a fixed JSON fragment (no separator, no quoting).
    @inlinable @inline(__always) public mutating func writeRawStatic(_ s: StaticString) { put(s) }

    @inlinable @inline(__always) public mutating func beginObject() { separate(); put(UInt8(ascii: "{")); needsComma = false }
    @inlinable @inline(__always) public mutating func endObject() { put(UInt8(ascii: "}")); needsComma = true }
    @inlinable @inline(__always) public mutating func beginArray() { separate(); put(UInt8(ascii: "[")); needsComma = false }
    @inlinable @inline(__always) public mutating func endArray() { put(UInt8(ascii: "]")); needsComma = true }

    /// `"name":` for an identifier key (no escaping); the next write is its value.
    @inlinable @inline(__always) public mutating func key(_ name: StaticString) {
        separate()
        put(UInt8(ascii: "\""))
        put(name)
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
        needsComma = false
    }

    @inlinable @inline(__always) public mutating func writeNull() { separate(); put("null"); needsComma = true }

    @inlinable @inline(__always) public mutating func write(_ value: Bool) {
        separate()
        if value { put("true") } else { put("false") }
        needsComma = true
    }

    @inlinable @inline(__always) public mutating func write(_ value: Int) {
        separate()
        room(20)
        if value < 0 { at.initialize(to: UInt8(ascii: "-")); at += 1 }
        var magnitude = value.magnitude, digits = 1
        var rest = magnitude / 10
        while rest > 0 { digits += 1; rest /= 10 }
        var i = digits
        repeat {
            i -= 1
            (at + i).initialize(to: UInt8(truncatingIfNeeded: magnitude % 10) &+ 48)
            magnitude /= 10
        } while i > 0
        at += digits
        needsComma = true
    }

    @inlinable @inline(__always) public mutating func write(_ value: Int?) {
        if let value { write(value) } else { writeNull() }
    }

    /// `[a,b,…]`: at most `2 + values.count * maxIntBytes` bytes (and a comma before).
    @inlinable @inline(__always) public mutating func write(_ values: [Int]) {
        beginArray()
        for value in values { write(value) }
        endArray()
    }

    /// `write(_: [Int])` for numbers seen through a pointer (a caller's closure that captures no array).
    @inlinable @inline(__always) public mutating func write(_ values: UnsafeBufferPointer<Int>) {
        beginArray()
        for value in values { write(value) }
        endArray()
    }
}

extension JSONWriter {
    /// Writes through a `JSONCursor` into `maxBytes` of room on the stack, then appends them in
    /// one `append`: for a run of bounded members, one append (~100 instructions whatever its
    /// size) instead of one per key and value. `maxBytes` must bound what `body` writes (a comma
    /// before the first value counts).
    @inlinable @inline(__always) public mutating func withCursor(maxBytes: Int, _ body: (inout JSONCursor) -> Void) {
        // No closure is stored or escapes (a heap-allocated context costs more than the appends
        // saved), and the array's own storage cannot grow by an unknown count without one.
        let comma = needsComma
        needsComma = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxBytes) { room in
            let start = room.baseAddress.unsafelyUnwrapped
            var cursor = JSONCursor(start, end: start + maxBytes, needsComma: comma)
            body(&cursor)
            bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: cursor.at - start))
            return cursor.needsComma
        }
    }
}
