/// RFC 6902 JSON Patch, applied to a `JSONValue`. The store writes patches straight to bytes
/// (`PatchWriter`); this is the reader's side, used by tests to check that every patch turns
/// the old state into exactly the new one.
///
///     let patch = try JSONReader.parse(#"[{"op":"replace","path":"/count","value":1}]"#)
///     let next = try JSONPatch.apply(patch, to: .object(["count": .int(0)]))
public enum JSONPatch {
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Index of the failing operation in the patch.
        public var index: Int
        public var message: String
        public var description: String { "patch operation \(index): \(message)" }
    }

    /// Applies every operation in order (RFC 6902 §3); any failure aborts the whole patch (§5).
    public static func apply(_ patch: JSONValue, to document: JSONValue) throws(Failure) -> JSONValue {
        guard case .array(let ops) = patch else { throw Failure(index: 0, message: "a patch is an array") }
        var doc = document
        for (i, op) in ops.enumerated() {
            do {
                try applyOne(op, to: &doc)
            } catch {
                throw Failure(index: i, message: error.message)
            }
        }
        return doc
    }

    /// Applies encoded patch bytes, as the store produces them.
    public static func apply(_ patch: [UInt8], to document: JSONValue) throws(Failure) -> JSONValue {
        let parsed: JSONValue
        do { parsed = try JSONReader.parse(patch) } catch { throw Failure(index: 0, message: "not JSON: \(error)") }
        return try apply(parsed, to: document)
    }

    struct OpError: Error { var message: String }

    static func pointer(_ op: JSONValue, _ member: String) throws(OpError) -> [String] {
        guard case .string(let s)? = op[member] else { throw OpError(message: "missing string \"\(member)\"") }
        do { return try JSONPointer(s).tokens } catch { throw OpError(message: error.message) }
    }

    static func applyOne(_ op: JSONValue, to doc: inout JSONValue) throws(OpError) {
        guard case .string(let name)? = op["op"] else { throw OpError(message: "missing string \"op\"") }
        let path = try pointer(op, "path")
        switch name {
        case "add":
            guard let value = op["value"] else { throw OpError(message: "add needs \"value\"") }
            try add(value, at: path[...], in: &doc)
        case "remove":
            _ = try remove(at: path[...], in: &doc)
        case "replace":
            guard let value = op["value"] else { throw OpError(message: "replace needs \"value\"") }
            if path.isEmpty { doc = value; return }  // the whole document
            _ = try remove(at: path[...], in: &doc)
            try add(value, at: path[...], in: &doc)
        case "move":
            let from = try pointer(op, "from")
            if from.count < path.count, Array(path.prefix(from.count)) == from {
                throw OpError(message: "cannot move a value into itself")  // §4.4
            }
            let value = try remove(at: from[...], in: &doc)
            try add(value, at: path[...], in: &doc)
        case "copy":
            let from = try pointer(op, "from")
            guard let value = doc.value(at: JSONPointer(tokens: from)) else { throw OpError(message: "\"from\" names nothing") }
            try add(value, at: path[...], in: &doc)
        case "test":
            guard let value = op["value"] else { throw OpError(message: "test needs \"value\"") }
            guard let actual = doc.value(at: JSONPointer(tokens: path)), actual.jsonEquals(value) else {
                throw OpError(message: "test failed at \(JSONPointer(tokens: path))")
            }
        default:
            throw OpError(message: "unknown op \"\(name)\"")
        }
    }

    static func add(_ value: JSONValue, at path: ArraySlice<String>, in doc: inout JSONValue) throws(OpError) {
        guard let token = path.first else { doc = value; return }
        let rest = path.dropFirst()
        switch doc {
        case .object(var o):
            if rest.isEmpty {
                o[token] = value
            } else {
                guard var child = o[token] else { throw OpError(message: "no member \"\(token)\"") }
                o[token] = nil  // keep the child uniquely referenced while it changes
                try add(value, at: rest, in: &child)
                o[token] = child
            }
            doc = .object(o)
        case .array(var a):
            if rest.isEmpty {
                if token == "-" { a.append(value) } else {
                    guard let i = JSONPointer.arrayIndex(token), i <= a.count else { throw OpError(message: "index \(token) out of range") }
                    a.insert(value, at: i)
                }
            } else {
                guard let i = JSONPointer.arrayIndex(token), i < a.count else { throw OpError(message: "index \(token) out of range") }
                var child = a[i]
                a[i] = .null
                try add(value, at: rest, in: &child)
                a[i] = child
            }
            doc = .array(a)
        default:
            throw OpError(message: "cannot add inside \(doc.typeName)")
        }
    }

    static func remove(at path: ArraySlice<String>, in doc: inout JSONValue) throws(OpError) -> JSONValue {
        guard let token = path.first else { throw OpError(message: "cannot remove the whole document") }
        let rest = path.dropFirst()
        switch doc {
        case .object(var o):
            guard var child = o[token] else { throw OpError(message: "no member \"\(token)\"") }
            let removed: JSONValue
            if rest.isEmpty {
                o[token] = nil
                removed = child
            } else {
                o[token] = nil
                removed = try remove(at: rest, in: &child)
                o[token] = child
            }
            doc = .object(o)
            return removed
        case .array(var a):
            guard let i = JSONPointer.arrayIndex(token), i < a.count else { throw OpError(message: "index \(token) out of range") }
            let removed: JSONValue
            if rest.isEmpty {
                removed = a.remove(at: i)
            } else {
                var child = a[i]
                a[i] = .null
                removed = try remove(at: rest, in: &child)
                a[i] = child
            }
            doc = .array(a)
            return removed
        default:
            throw OpError(message: "cannot remove inside \(doc.typeName)")
        }
    }
}
