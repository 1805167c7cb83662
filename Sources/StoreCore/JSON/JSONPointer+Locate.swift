extension JSONPointer {
    /// Where the value at `tokens` lies in `bytes`, a JSON text, or nil when nothing is there.
    ///
    /// The answer is a slice of the text itself, so it keeps the writer's key order and number
    /// spelling: the same state always serializes to the same bytes, whole or in part (docs/API.md,
    /// "Conventions"). Only the members and elements on the way are read; the others are skipped
    /// by their brackets. Meant for this module's own output; any other input gives nil or some
    /// range, never a trap.
    ///
    ///     let bytes = Array(#"{"b":[1,{"c":true}],"a":2}"#.utf8)
    ///     JSONPointer.locate(["b", "1"], in: bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
    ///     // {"c":true}
    public static func locate(_ tokens: ArraySlice<String>, in bytes: [UInt8]) -> Range<Int>? {
        var scan = ByteScan(bytes: bytes)
        scan.skipSpace()
        for token in tokens {
            guard let opening = scan.peek else { return nil }
            switch opening {
            case UInt8(ascii: "{"):
                scan.index += 1
                guard scan.findMember(token) else { return nil }
            case UInt8(ascii: "["):
                scan.index += 1
                guard let position = arrayIndex(token), scan.findElement(position) else { return nil }
            default:
                return nil
            }
        }
        let start = scan.index
        guard scan.skipValue() else { return nil }
        return start..<scan.index
    }
}

/// A forward scan over a JSON text that reads keys and skips values.
private struct ByteScan {
    let bytes: [UInt8]
    var index = 0

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipSpace() {
        while let b = peek, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { index += 1 }
    }

    /// Just after an object's `{`: moves to the value of the member named `name`.
    mutating func findMember(_ name: String) -> Bool {
        skipSpace()
        guard peek != UInt8(ascii: "}") else { return false }
        while true {
            skipSpace()
            guard let key = readString() else { return false }
            skipSpace()
            guard peek == UInt8(ascii: ":") else { return false }
            index += 1
            skipSpace()
            if key == name { return true }
            guard skipValue() else { return false }
            skipSpace()
            guard peek == UInt8(ascii: ",") else { return false }
            index += 1
        }
    }

    /// Just after an array's `[`: moves to its element at `position`.
    mutating func findElement(_ position: Int) -> Bool {
        skipSpace()
        guard peek != UInt8(ascii: "]") else { return false }
        for _ in 0..<position {
            guard skipValue() else { return false }
            skipSpace()
            guard peek == UInt8(ascii: ",") else { return false }
            index += 1
            skipSpace()
        }
        return true
    }

    /// Reads a string with its escapes decoded (by the reader, for the rare key that has them).
    mutating func readString() -> String? {
        let start = index
        guard skipString() else { return nil }
        let inner = bytes[(start + 1)..<(index - 1)]
        guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
        guard case .string(let decoded)? = try? JSONReader.parse(Array(bytes[start..<index])) else { return nil }
        return decoded
    }

    /// Skips a string, its quotes included.
    mutating func skipString() -> Bool {
        guard peek == UInt8(ascii: "\"") else { return false }
        index += 1
        while let b = peek {
            index += 1
            if b == UInt8(ascii: "\\") { index += 1 } else if b == UInt8(ascii: "\"") { return true }
        }
        return false
    }

    /// Skips one value of any kind: a string, an object or array to its matching bracket, or a
    /// number or literal to the next delimiter.
    mutating func skipValue() -> Bool {
        guard let first = peek else { return false }
        switch first {
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while let b = peek {
                switch b {
                case UInt8(ascii: "\""):
                    guard skipString() else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                default:
                    break
                }
                index += 1
                if depth == 0 { return true }
            }
            return false
        default:
            let start = index
            while let b = peek, !(b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]")
                                  || b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D) {
                index += 1
            }
            return index > start
        }
    }
}
