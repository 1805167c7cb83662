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
