/// Why a byte string is not acceptable JSON: where (byte offset and JSON Pointer of the
/// enclosing value) and what.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    /// RFC 6901 pointer of the value being read when the error was found ("" = the root).
    public var path: String
    public var message: String
    public var description: String { "\(message) at byte \(offset)" + (path.isEmpty ? "" : " (in \(path))") }
}

/// Parses RFC 8259 JSON from bytes, with a nesting-depth limit so a hostile
/// `[[[[...` cannot exhaust the stack.
///
///     let v = try JSONReader.parse(Array(#"{"a":[1,2]}"#.utf8))
public enum JSONReader {
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buf) throws(JSONParseError) -> JSONValue in
            var p = Parser(bytes: buf, maxDepth: maxDepth)
            p.skipWhitespace()
            let v = try p.parseValue(depth: 0)
            p.skipWhitespace()
            if p.index != buf.count { throw p.error("unexpected data after the JSON value") }
            return v
        }
    }

    public static func parse(_ text: String, maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }
}

/// The one RFC 8259 parser: `JSONReader` builds values with it, `JSONStreamReader` reads
/// tokens with it (and its values where a decoder wants a generic one).
struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// An error at `index`, its path empty: each container it is inside adds its own token as
    /// the error passes out of it (`within`), so reading a valid text keeps no path at all (a
    /// stack of tokens cost an allocation per document and a string per array element).
    func error(_ message: String) -> JSONParseError {
        JSONParseError(offset: index, path: "", message: message)
    }

    /// `error` as seen from the container that holds the value it was found in, whose pointer
    /// token is `token`.
    static func within(_ token: String, _ error: JSONParseError) -> JSONParseError {
        var error = error
        error.path = "/" + JSONPointer.escape(token) + error.path
        return error
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(Self.describe(bytes[index]))")
        }
    }

    /// A byte as a client would want it named in a problem detail: the character when it is
    /// printable ASCII, else its hex value (a UTF-8 byte-order mark is 0xEF, not a Swift escape).
    static func describe(_ c: UInt8) -> String {
        let hex = String(c, radix: 16, uppercase: true)
        return c >= 0x20 && c < 0x7F ? "character '\(String(UnicodeScalar(c)))'" : "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
    }

    mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        guard index + n <= bytes.count else { throw error("invalid literal") }
        for i in 0..<n where bytes[index + i] != word.utf8Start[i] { throw error("invalid literal") }
        index += n
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        var object: [String: JSONValue] = [:]
        // RFC 8259 §4 leaves duplicate names undefined; the last one wins, as in most parsers.
        try parseMembers(depth: depth) { key, value in object[key] = value }
        return .object(object)
    }

    /// The members of the object at `index` (which is at its `{`), each handed to `member` in order.
    mutating func parseMembers(depth: Int, _ member: (String, JSONValue) -> Void) throws(JSONParseError) {
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth)") }
        index += 1
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            index += 1
            skipWhitespace()
            let value: JSONValue
            do { value = try parseValue(depth: depth) } catch { throw Self.within(key, error) }
            member(key, value)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return }
            throw error("expected ',' or '}' in an object")
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth)") }
        index += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(array) }
        while true {
            skipWhitespace()
            do { array.append(try parseValue(depth: depth)) } catch { throw Self.within(String(array.count), error) }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(array) }
            throw error("expected ',' or ']' in an array")
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("leading zero in a number") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if isInteger {
            // Accumulate with overflow checks; integers beyond Int fall back to Double.
            var value = 0
            var i = start
            let negative = bytes[i] == UInt8(ascii: "-")
            if negative { i += 1 }
            var overflow = false
            while i < index {
                let d = Int(bytes[i] &- 48)
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (s, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
                if o1 || o2 { overflow = true; break }
                value = s
                i += 1
            }
            if !overflow { return .int(value) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else { throw error("number out of range") }
        return .double(d)
    }

    func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        var bits: UInt8 = 0
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                // ASCII is valid UTF-8 as it is: `String(validating:)` costs ~1,000 instructions
                // for "counter/incrTapped" (scripts/instructions-per-request.sh); decoding ASCII is a copy.
                let s = bits < 0x80 ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
                guard let s else { throw error("invalid UTF-8 in a string") }
                index += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw error("control character in a string") }
            bits |= c
            index += 1
        }
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                guard let s = String(validating: out, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
                return s
            }
            if c < 0x20 { throw error("control character in a string") }
            if c != UInt8(ascii: "\\") { out.append(c); index += 1; continue }
            index += 1
            guard index < bytes.count else { break }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    // A high surrogate must be followed by \u low surrogate (RFC 8259 §7).
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in a string")
                    }
                    index += 2
                    let low = try hex4()
                    guard low >= 0xDC00 && low < 0xE000 else { throw error("unpaired surrogate in a string") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    throw error("unpaired surrogate in a string")
                }
                guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default: throw error("invalid escape in a string")
            }
        }
        throw error("unterminated string")
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("invalid \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt8
            switch c {
            case 48...57: d = c - 48
            case 65...70: d = c - 55
            case 97...102: d = c - 87
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | UInt32(d)
            index += 1
        }
        return v
    }
}
