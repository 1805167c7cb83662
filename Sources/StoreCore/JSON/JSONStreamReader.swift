/// Reads RFC 8259 JSON token by token, so a decoder builds its value straight from the bytes:
/// a state of a million entities decodes without a `JSONValue` tree, a dictionary or a path
/// string per member. It accepts exactly what `JSONReader` accepts (the same parser reads its
/// strings, numbers and generic values); every error names its byte offset.
///
///     let n = try JSONStreamReader.read(Array(#"{"count":3}"#.utf8)) { (r) throws(StateDecodingError) -> Int in
///         var count = 0
///         try r.beginObject()
///         while let key = try r.nextKey() {
///             if key == "count" { count = try r.readInt() } else { try r.skipValue() }
///         }
///         return count
///     }
public struct JSONStreamReader {
    var parser: Parser
    /// Containers open around the position.
    var depth = 0
    /// True right after a container opens: its first member or element takes no comma. One flag
    /// serves every level, as a container is read to its end before its parent goes on.
    var atFirst = false

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        parser = Parser(bytes: bytes, maxDepth: maxDepth)
    }

    /// Runs `body` on a reader at the start of `bytes`, then checks nothing but whitespace follows
    /// what it read.
    public static func read<R>(_ bytes: [UInt8], maxDepth: Int = 64,
                               _ body: (inout JSONStreamReader) throws(StateDecodingError) -> R) throws(StateDecodingError) -> R {
        try bytes.withUnsafeBufferPointer { (buf) throws(StateDecodingError) -> R in
            var r = JSONStreamReader(bytes: buf, maxDepth: maxDepth)
            let value = try body(&r)
            r.parser.skipWhitespace()
            if r.parser.index != buf.count { throw r.error("unexpected data after the JSON value") }
            return value
        }
    }

    /// The byte offset of the position.
    public var offset: Int { parser.index }

    /// An error at the position ("… at byte N"); decoders prefix its path as it travels up.
    public func error(_ message: String) -> StateDecodingError {
        StateDecodingError(path: "", message: "\(message) at byte \(parser.index)")
    }

    static func error(_ e: JSONParseError) -> StateDecodingError {
        StateDecodingError(path: e.path, message: "\(e.message) at byte \(e.offset)")
    }

    /// "expected an object, got a string at byte 12": what the next value is, by its first byte.
    func typeError(_ expected: String) -> StateDecodingError {
        guard parser.index < parser.bytes.count else { return error("expected \(expected), got the end of input") }
        let got: String
        switch parser.bytes[parser.index] {
        case UInt8(ascii: "{"): got = "an object"
        case UInt8(ascii: "["): got = "an array"
        case UInt8(ascii: "\""): got = "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): got = "a boolean"
        case UInt8(ascii: "n"): got = "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): got = "a number"
        case let c: got = "unexpected \(Parser.describe(c))"
        }
        return error("expected \(expected), got \(got)")
    }

    mutating func open(_ bracket: UInt8, _ expected: String) throws(StateDecodingError) {
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count, parser.bytes[parser.index] == bracket else { throw typeError(expected) }
        if depth >= parser.maxDepth { throw error("nesting deeper than \(parser.maxDepth)") }
        depth += 1
        parser.index += 1
        atFirst = true
    }

    /// The first byte of the next token (whitespace skipped, nothing read), nil at the end: what
    /// a decoder of a value of several shapes looks at before choosing how to read it.
    public mutating func peek() -> UInt8? {
        parser.skipWhitespace()
        return parser.index < parser.bytes.count ? parser.bytes[parser.index] : nil
    }

    // MARK: objects

    /// Reads the `{` of an object; then `nextKey()` until it returns nil.
    public mutating func beginObject() throws(StateDecodingError) {
        try open(UInt8(ascii: "{"), "an object")
    }

    /// The next member's name (the reader then stands at its value, which the caller must read or
    /// skip), or nil after the object's `}`.
    public mutating func nextKey() throws(StateDecodingError) -> JSONKey? {
        guard try next(closing: UInt8(ascii: "}"), "an object") else { return nil }
        parser.skipWhitespace()
        let c: UInt8 = parser.index < parser.bytes.count ? parser.bytes[parser.index] : 0
        guard c == UInt8(ascii: "\"") else { throw error("expected a string key") }
        let key = try readKey()
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
        parser.index += 1
        return key
    }

    /// A member name at its opening quote: the bytes themselves when they are plain ASCII (no
    /// copy), else the parser's string.
    mutating func readKey() throws(StateDecodingError) -> JSONKey {
        let bytes = parser.bytes
        var i = parser.index + 1
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[(parser.index + 1)..<i])
                parser.index = i + 1
                return JSONKey(raw: raw, text: nil)
            }
            if c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { break }
            i += 1
        }
        do {
            let text = try parser.parseString()
            return JSONKey(raw: UnsafeBufferPointer(start: nil, count: 0), text: text)
        } catch {
            throw Self.error(error)
        }
    }

    // MARK: arrays

    /// Reads the `[` of an array; then `nextElement()` until it returns false.
    public mutating func beginArray() throws(StateDecodingError) {
        try open(UInt8(ascii: "["), "an array")
    }

    /// True when another element follows (the reader stands at it, and the caller must read or
    /// skip it); false after the array's `]`.
    public mutating func nextElement() throws(StateDecodingError) -> Bool {
        try next(closing: UInt8(ascii: "]"), "an array")
    }

    /// Past the comma before the next member or element (none before the first): true when one
    /// follows, false after the container's closing bracket.
    mutating func next(closing: UInt8, _ container: String) throws(StateDecodingError) -> Bool {
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count else { throw error("unexpected end of input in \(container)") }
        let c = parser.bytes[parser.index]
        if c == closing {
            parser.index += 1
            depth -= 1
            atFirst = false
            return false
        }
        if atFirst {
            atFirst = false
            return true
        }
        guard c == UInt8(ascii: ",") else { throw error("expected ',' or '\(Character(UnicodeScalar(closing)))' in \(container)") }
        parser.index += 1
        return true
    }

    // MARK: values

    /// An integer that fits `Int` (as `Int(json:)` takes: not `1.0`, not `1e2`).
    public mutating func readInt() throws(StateDecodingError) -> Int {
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count else { throw typeError("an integer") }
        let c = parser.bytes[parser.index]
        guard c == UInt8(ascii: "-") || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) else { throw typeError("an integer") }
        let start = parser.index
        let value: JSONValue
        do { value = try parser.parseNumber() } catch { throw Self.error(error) }
        guard case .int(let i) = value else {
            parser.index = start
            throw error("expected an integer, got a number")
        }
        return i
    }

    public mutating func readBool() throws(StateDecodingError) -> Bool {
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count else { throw typeError("a boolean") }
        let value: Bool
        switch parser.bytes[parser.index] {
        case UInt8(ascii: "t"): value = true
        case UInt8(ascii: "f"): value = false
        default: throw typeError("a boolean")
        }
        do { try parser.expectLiteral(value ? "true" : "false") } catch { throw Self.error(error) }
        return value
    }

    public mutating func readString() throws(StateDecodingError) -> String {
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "\"") else { throw typeError("a string") }
        do { return try parser.parseString() } catch { throw Self.error(error) }
    }

    /// Reads a `null` when one is next, else reads nothing and returns false.
    public mutating func readNull() throws(StateDecodingError) -> Bool {
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "n") else { return false }
        do { try parser.expectLiteral("null") } catch { throw Self.error(error) }
        return true
    }

    /// The next value, whatever it is, as a `JSONValue` (for the small parts of a state).
    public mutating func readValue() throws(StateDecodingError) -> JSONValue {
        parser.skipWhitespace()
        do { return try parser.parseValue(depth: depth) } catch { throw Self.error(error) }
    }

    /// Reads past the next value, checking it as `JSONReader` would, without building it (a plain
    /// ASCII string or an integer allocates nothing).
    public mutating func skipValue() throws(StateDecodingError) {
        switch peek() {
        case UInt8(ascii: "{"):
            try beginObject()
            while try nextKey() != nil { try skipValue() }
        case UInt8(ascii: "["):
            try beginArray()
            while try nextElement() { try skipValue() }
        case UInt8(ascii: "\""):
            _ = try readKey()  // the same checks as a string value; a plain one is not copied
        default:
            _ = try readValue()
        }
    }
}

/// A member name as `JSONStreamReader.nextKey()` read it: valid only while the reader's bytes are.
///
///     while let key = try r.nextKey() {
///         if key == "id" { id = try r.readInt() } else { extra[key.string] = try r.readValue() }
///     }
public struct JSONKey {
    /// The name's bytes in the document, when they need no decoding (plain ASCII, no escape).
    @usableFromInline let raw: UnsafeBufferPointer<UInt8>
    /// The decoded name otherwise.
    @usableFromInline let text: String?

    /// The name (no allocation for a plain ASCII name of up to 15 bytes).
    @inlinable public var string: String { text ?? String(decoding: raw, as: UTF8.self) }

    /// True when the name is `name`, compared byte for byte.
    @inlinable
    public static func == (key: JSONKey, name: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        if let text = key.text { return text.utf8.elementsEqual(expected) }
        guard key.raw.count == expected.count else { return false }
        for i in 0..<expected.count where key.raw[i] != expected[i] { return false }
        return true
    }

    /// The decimal integer the name spells in canonical form ("3", "-3"; not "03", "+3" or "3.0"),
    /// nil otherwise: an `Int` entity id read without making a string.
    @inlinable
    public var canonicalInt: Int? {
        guard text == nil else { return text.flatMap { Int(key: $0) } }
        let n = raw.count
        guard n > 0, n <= 20 else { return nil }
        var i = 0
        let negative = raw[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        guard i < n, raw[i] >= 48, raw[i] <= 57, raw[i] != 48 || n == i + 1 else { return nil }
        if negative, raw[i] == 48 { return nil }  // "-0" is not how 0 is written
        var value = 0
        while i < n {
            let d = raw[i] &- 48
            guard d <= 9 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(Int(d)) : m.addingReportingOverflow(Int(d))
            if o1 || o2 { return nil }
            value = s
            i += 1
        }
        return value
    }
}
