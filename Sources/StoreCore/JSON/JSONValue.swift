/// A JSON document as a value: what clients send, what `?path=` lookups return.
///
/// Objects are unordered here; `JSONWriter` writes their keys sorted so the same value
/// always gives the same bytes.
///
///     let v: JSONValue = .object(["count": .int(1)])
///     v.value(at: try JSONPointer("/count"))   // .int(1)
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    /// The member `key` of an object, nil for anything else.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// A short name of the JSON type, for error messages ("expected a string, got an array").
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value's bytes (object keys sorted).
    public func encoded() -> [UInt8] {
        var w = JSONWriter()
        w.write(self)
        return w.bytes
    }

    /// Numeric equality across int/double, as JSON has one number type (used by patch `test` and tests).
    public func jsonEquals(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Double(a) == b
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.jsonEquals($1) }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            for (k, v) in a { guard let w = b[k], v.jsonEquals(w) else { return false } }
            return true
        default: return self == other
        }
    }
}
