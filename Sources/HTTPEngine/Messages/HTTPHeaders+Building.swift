extension HTTPHeaders {
    /// Empty headers with room for `bytes` bytes of fields, allocated once (a field takes its
    /// name's and value's bytes and 8 more): for an answer whose fields are known, one allocation
    /// and a copy per field.
    ///
    /// ```swift
    /// var headers = HTTPHeaders(reservingBytes: 64)
    /// headers.add(static: "Content-Type", "application/json")
    /// ```
    public init(reservingBytes bytes: Int) {
        self.init()
        // The room is never read before a field is copied into it (`storage[..<used]` only).
        storage.appendUninitialized(bytes)
    }

    /// Appends a field whose name and value are literals, without building strings.
    @inlinable
    public mutating func add(static name: StaticString, _ value: StaticString) {
        name.withUTF8Buffer { n in value.withUTF8Buffer { v in append(name: n, value: v) } }
    }

    /// Removes every field and keeps the storage as room for the next ones (copied on the first
    /// write if another value shares it): headers rebuilt for every answer allocate nothing.
    public mutating func removeAllKeepingRoom() {
        removeAll(keepingCapacity: true)
    }

    /// Lets `write` write over the value of the first field named `name` (case-insensitive) in
    /// place, when that value has `count` bytes: an answer rebuilt for every version whose fields
    /// differ only in a number of the same width (a session head's `ETag`) writes those bytes
    /// alone. False, and the headers unchanged, when there is no such field or its value's length
    /// differs. `write` must write only what a field value may hold (RFC 9110 §5.5): an answer
    /// whose fields were checked (`HTTPResponse.checkHeaders`) is not checked again.
    ///
    /// ```swift
    /// var headers = HTTPHeaders()
    /// headers.add(static: "ETag", "\"41\"")
    /// headers.rewriteValue(static: "ETag", count: 4) { $0[2] = UInt8(ascii: "2") }  // true: "42"
    /// ```
    @inlinable @discardableResult
    public mutating func rewriteValue(static name: StaticString, count: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> Bool {
        guard name.hasPointerRepresentation else { return false }
        let wanted = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        guard mayContain(wanted) else { return false }
        // Found first, written after: the write copies fields shared with another value.
        var at = -1
        withFieldBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let (fieldName, fieldValue, next) = Self.field(in: bytes, at: offset)
                if Self.equalsIgnoringCase(fieldName, wanted) {
                    if fieldValue.count == count { at = start + next - count }
                    return
                }
                offset = next
            }
        }
        guard at >= 0 else { return false }
        storage.withUnsafeMutableBufferPointer { bytes in
            write(UnsafeMutableBufferPointer(start: bytes.baseAddress.unsafelyUnwrapped + at, count: count))
        }
        return true
    }

    /// Whether a field named `name` (case-insensitive) has exactly the value `value`, for
    /// literals, without making or reading a `String`.
    ///
    /// ```swift
    /// if !headers.contains(static: "Vary", "Origin") { headers.add(static: "Vary", "Origin") }
    /// ```
    @inlinable
    public func contains(static name: StaticString, _ value: StaticString) -> Bool {
        // A one-scalar literal may have no pointer; such a field is looked up as strings.
        guard name.hasPointerRepresentation, value.hasPointerRepresentation else {
            return contains(name.description, value: value.description)
        }
        let wanted = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        let wantedValue = UnsafeBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount)
        return withFieldBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let (fieldName, fieldValue, next) = Self.field(in: bytes, at: offset)
                if fieldValue.count == wantedValue.count, Self.equalsIgnoringCase(fieldName, wanted) {
                    var i = 0
                    while i < wantedValue.count && fieldValue[i] == wantedValue[i] { i += 1 }
                    if i == wantedValue.count { return true }
                }
                offset = next
            }
            return false
        }
    }
}
