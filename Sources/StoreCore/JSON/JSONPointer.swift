/// An RFC 6901 JSON Pointer: "" is the whole document, "/a/0" member a, element 0.
///
///     try JSONPointer("/tasks/byId/3").tokens   // ["tasks", "byId", "3"]
///     JSONPointer.escape("a/b")                 // "a~1b"
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    public var tokens: [String]

    public struct SyntaxError: Error, Sendable, Equatable { public var message: String }

    public init(tokens: [String]) { self.tokens = tokens }

    public init(_ rfc6901: String) throws(SyntaxError) {
        // Scalars, not Characters: "/" followed by a combining mark is one grapheme but still
        // a separator (RFC 6901 §3 defines the syntax over code points).
        let scalars = rfc6901.unicodeScalars
        if scalars.isEmpty { tokens = []; return }
        guard scalars.first == "/" else { throw SyntaxError(message: "a JSON Pointer starts with '/'") }
        var result: [String] = []
        var token = String.UnicodeScalarView()
        var iterator = scalars.dropFirst().makeIterator()
        while let c = iterator.next() {
            switch c {
            case "/":
                result.append(String(token))
                token = String.UnicodeScalarView()
            case "~":
                // RFC 6901 §4: "~1" is '/', "~0" is '~', and '~' followed by anything else is an error.
                switch iterator.next() {
                case "0": token.append("~")
                case "1": token.append("/")
                default: throw SyntaxError(message: "'~' must be followed by '0' or '1'")
                }
            default:
                token.append(c)
            }
        }
        result.append(String(token))
        tokens = result
    }

    public var description: String { tokens.map { "/" + JSONPointer.escape($0) }.joined() }

    /// One reference token escaped per RFC 6901 §3.
    public static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        return token.replacingTilde()
    }

    /// The array index a token names (RFC 6901 §4: digits, no leading zero), nil otherwise.
    public static func arrayIndex(_ token: String) -> Int? {
        let u = Array(token.utf8)
        guard !u.isEmpty, u.allSatisfy({ $0 >= 48 && $0 <= 57 }), u.count == 1 || u[0] != 48 else { return nil }
        return Int(token)
    }
}

extension String {
    fileprivate func replacingTilde() -> String {
        var out = ""
        for c in self {
            switch c {
            case "~": out += "~0"
            case "/": out += "~1"
            default: out.append(c)
            }
        }
        return out
    }
}

extension JSONValue {
    /// The value a pointer names, nil when there is none.
    public func value(at pointer: JSONPointer) -> JSONValue? {
        var current = self
        for token in pointer.tokens {
            switch current {
            case .object(let o):
                guard let next = o[token] else { return nil }
                current = next
            case .array(let a):
                guard let i = JSONPointer.arrayIndex(token), i < a.count else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }
}
