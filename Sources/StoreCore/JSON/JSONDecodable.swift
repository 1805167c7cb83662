/// A state (or part of one) that does not match its type; `path` is the RFC 6901 pointer of
/// the offending value, e.g. `/tasks/byId/3/title`.
public struct StateDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    public init(path: String, message: String) { self.path = path; self.message = message }
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// A value that reads itself back from a `JSONValue`, naming the path of whatever is wrong.
public protocol JSONDecodable {
    init(json: JSONValue, path: String) throws(StateDecodingError)
}

extension JSONValue {
    /// Member `key` of an object that must be present, decoded as `T`.
    public func decodeMember<T: JSONDecodable>(_ key: String, at path: String, as type: T.Type = T.self) throws(StateDecodingError) -> T {
        guard case .object(let o) = self else {
            throw StateDecodingError(path: path, message: "expected an object, got \(typeName)")
        }
        guard let v = o[key] else { throw StateDecodingError(path: path + "/" + JSONPointer.escape(key), message: "missing") }
        return try JSONValue.decode(T.self, from: v) { path + "/" + JSONPointer.escape(key) }
    }

    /// Decodes `value` with its path built only when decoding fails (then it decodes again to
    /// name the path): a state of a million members decodes without a million path strings.
    @inlinable
    public static func decode<T: JSONDecodable>(_ type: T.Type, from value: JSONValue, path: () -> String) throws(StateDecodingError) -> T {
        do {
            return try T(json: value, path: "")
        } catch {
            return try T(json: value, path: path())
        }
    }
}

extension Int: JSONDecodable {
    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        guard case .int(let i) = json else { throw StateDecodingError(path: path, message: "expected an integer, got \(json.typeName)") }
        self = i
    }
}

extension Bool: JSONDecodable {
    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        guard case .bool(let b) = json else { throw StateDecodingError(path: path, message: "expected a boolean, got \(json.typeName)") }
        self = b
    }
}

extension String: JSONDecodable {
    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        guard case .string(let s) = json else { throw StateDecodingError(path: path, message: "expected a string, got \(json.typeName)") }
        self = s
    }
}

extension JSONValue: JSONDecodable {
    public init(json: JSONValue, path: String) { self = json }
}

extension Optional: JSONDecodable where Wrapped: JSONDecodable {
    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        if case .null = json { self = nil } else { self = try Wrapped(json: json, path: path) }
    }
}

extension Array: JSONDecodable where Element: JSONDecodable {
    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        guard case .array(let a) = json else { throw StateDecodingError(path: path, message: "expected an array, got \(json.typeName)") }
        var out: [Element] = []
        out.reserveCapacity(a.count)
        for (i, e) in a.enumerated() { out.append(try JSONValue.decode(Element.self, from: e) { path + "/\(i)" }) }
        self = out
    }
}
