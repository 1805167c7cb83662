extension HTTPHeaders {
    /// How often a field that may appear at most once was given, with what `body` made of its
    /// value when it was given once.
    public enum Single<R> {
        /// No field of that name.
        case absent
        /// Exactly one field of that name, and `body`'s result for its value.
        case once(R)
        /// More than one field of that name: which one counts would be a guess.
        case repeated
    }

    /// Calls `body` with the bytes of the only field named `name` (case-insensitive), in one pass
    /// over the fields and without building a string; `body` is not called when the field is
    /// absent or repeated.
    ///
    /// ```swift
    /// switch request.headers.withSingleValue("Authorization", { $0.count }) {
    /// case .absent: print("no credentials")
    /// case .once(let length): print("\(length) bytes of credentials")
    /// case .repeated: print("credentials given twice")
    /// }
    /// ```
    @inlinable
    public func withSingleValue<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> Single<R> {
        var found: UnsafeBufferPointer<UInt8>?
        var repeated = false
        var name = name
        return try name.withUTF8 { wanted in
            guard mayContain(wanted) else { return .absent }
            return try withFieldBytes { bytes in
                Self.forEach(in: bytes) { fieldName, value in
                    guard Self.equalsIgnoringCase(fieldName, wanted) else { return true }
                    if found != nil {
                        repeated = true
                        return false
                    }
                    found = value
                    return true
                }
                if repeated { return .repeated }
                guard let found else { return .absent }
                return .once(try body(found))
            }
        }
    }
}

extension HTTPHeaders.Single: Sendable where R: Sendable {}
