/// A value that reads itself straight from JSON bytes (`JSONStreamReader`), without a
/// `JSONValue` tree: what a kind's state adopts when it can be large, so a snapshot of a million
/// entities decodes in one pass. It must accept and build exactly what `init(json:path:)` does
/// from the same document; errors name the path (decoders prefix it as it travels up) and the
/// byte offset.
///
///     struct Point: JSONStreamDecodable {
///         var x = 0
///         init(reading r: inout JSONStreamReader) throws(StateDecodingError) {
///             try r.beginObject()
///             while let key = try r.nextKey() {
///                 if key == "x" { x = try r.readInt() } else { try r.skipValue() }
///             }
///         }
///     }
public protocol JSONStreamDecodable {
    init(reading r: inout JSONStreamReader) throws(StateDecodingError)
}

extension StateDecodingError {
    /// The same error with `prefix` (a pointer such as "/tasks") before its path.
    @inlinable
    public func under(_ prefix: String) -> StateDecodingError {
        StateDecodingError(path: prefix + path, message: message)
    }
}

extension Int: JSONStreamDecodable {
    @inlinable public init(reading r: inout JSONStreamReader) throws(StateDecodingError) { self = try r.readInt() }
}

extension Bool: JSONStreamDecodable {
    @inlinable public init(reading r: inout JSONStreamReader) throws(StateDecodingError) { self = try r.readBool() }
}

extension String: JSONStreamDecodable {
    @inlinable public init(reading r: inout JSONStreamReader) throws(StateDecodingError) { self = try r.readString() }
}

extension JSONValue: JSONStreamDecodable {
    @inlinable public init(reading r: inout JSONStreamReader) throws(StateDecodingError) { self = try r.readValue() }
}

extension Array: JSONStreamDecodable where Element: JSONStreamDecodable {
    @inlinable
    public init(reading r: inout JSONStreamReader) throws(StateDecodingError) {
        self = []
        try r.beginArray()
        while try r.nextElement() {
            do { append(try Element(reading: &r)) } catch { throw error.under("/\(count)") }
        }
    }
}
