extension ActionRecord {
    /// The usual request body, one FSA object with a string `type`, read straight from its
    /// bytes: the type is matched against the kind's `names` without making a `String`,
    /// `payload` and `meta` are read as values (a `null` one is none), other members are read
    /// and dropped; the last of duplicate members wins, as when the body is read into an object.
    /// Nil for anything else (a batch, another shape, bad JSON): the caller reads the body as a
    /// value, which names the problem.
    ///
    /// A function rather than a failable initializer, which would copy the record into itself.
    ///
    ///     let record = ActionRecord.read(fsa: Array(#"{"type":"tasks/toggleDone","payload":{"id":3}}"#.utf8),
    ///                                    names: kind.actionTypeNames, at: now, source: .client)
    public static func read(fsa body: [UInt8], names: ActionTypeNames, at: Int64, source: ActionSource) -> ActionRecord? {
        body.withUnsafeBufferPointer { buffer -> ActionRecord? in
            var p = Parser(bytes: buffer, maxDepth: 64)
            var type: String?, payload: JSONValue?, meta: JSONValue?
            do {
                guard try p.readFSA(names, type: &type, payload: &payload, meta: &meta) else { return nil }
            } catch {
                return nil
            }
            guard let type else { return nil }
            if case .null? = payload { payload = nil }
            if case .null? = meta { meta = nil }
            return ActionRecord(type: type, payload: payload, meta: meta, at: at, source: source)
        }
    }
}

extension Parser {
    /// The FSA members of the one object the bytes hold; false when they hold something else
    /// (`type` not a string included: a later string `type` would win in the general reading,
    /// which finds it).
    mutating func readFSA(_ names: ActionTypeNames, type: inout String?, payload: inout JSONValue?,
                          meta: inout JSONValue?) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return false }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return finished() }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return false }
            let member: FSAMember
            if let raw = plainString() { member = FSAMember(raw) } else { member = FSAMember(try parseString()) }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
            index += 1
            skipWhitespace()
            guard index < bytes.count else { return false }
            switch member {
            case .type:
                guard bytes[index] == UInt8(ascii: "\"") else { return false }
                if let raw = plainString() { type = names.name(raw) } else { type = try parseString() }
            case .payload: payload = try parseValue(depth: 1)
            case .meta: meta = try parseValue(depth: 1)
            case .other: _ = try parseValue(depth: 1)
            }
            skipWhitespace()
            guard index < bytes.count else { return false }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "}") else { return false }
            index += 1
            return finished()
        }
    }

    /// Nothing but whitespace left.
    mutating func finished() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// The string at `index` (at its opening quote) when it is plain ASCII without escapes or
    /// control characters: its bytes between the quotes, as they stand, and `index` past it.
    /// Nil, `index` unmoved, for any other string (`parseString` reads those).
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard let base = bytes.baseAddress else { return nil }
        var i = index + 1
        // Eight bytes at a time while none of them needs a look (a quote, a backslash, a control
        // or non-ASCII byte; the tests may flag a plain byte after one that does, never miss one).
        while i + 8 <= bytes.count {
            let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            let quote = w ^ (ones &* 0x22), backslash = w ^ (ones &* 0x5C)
            let look = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((w &- ones &* 0x20) & ~w) | w
            if look & highs != 0 { break }
            i += 8
        }
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<i])
                index = i + 1
                return raw
            }
            // A backslash, a control character (below 0x20) or a non-ASCII byte (0x80 and up).
            if c == UInt8(ascii: "\\") || c &- 0x20 >= 0x60 { return nil }
            i += 1
        }
        return nil
    }
}

/// The members of a Flux Standard Action a request's reading keeps.
enum FSAMember {
    case type, payload, meta, other

    init(_ raw: UnsafeBufferPointer<UInt8>) {
        if Self.equal(raw, "type") { self = .type } else if Self.equal(raw, "payload") { self = .payload } else if Self.equal(raw, "meta") { self = .meta } else { self = .other }
    }

    init(_ name: String) {
        switch name {
        case "type": self = .type
        case "payload": self = .payload
        case "meta": self = .meta
        default: self = .other
        }
    }

    static func equal(_ raw: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard raw.count == name.utf8CodeUnitCount else { return false }
        for i in 0..<raw.count where raw[i] != name.utf8Start[i] { return false }
        return true
    }
}
