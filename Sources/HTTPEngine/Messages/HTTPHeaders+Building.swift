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
}
