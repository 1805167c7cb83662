/// Byte classes from RFC 9110 §5.6.2 (token) and §5.5 (field values), shared by the parser and writer.
@usableFromInline
enum ASCII {
    @inlinable @inline(__always) static func lower(_ b: UInt8) -> UInt8 {
        b >= 0x41 && b <= 0x5A ? b | 0x20 : b
    }

    /// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA,
    /// as a table of 256 bytes, "1" for a tchar: every header name's bytes pass here, and one
    /// load per byte costs a third of the two-word bit test it replaces. `ParserTests` checks the
    /// table against that list.
    @inline(__always) static func isTokenChar(_ b: UInt8) -> Bool {
        tokenTable.utf8Start[Int(b)] == UInt8(ascii: "1")
    }

    /// Bytes 0–255 (tchars are all ASCII, so the second half is zeros): a compile-time constant, so a lookup needs no lazy initialization
    /// and no bounds check.
    @inline(__always) static var tokenTable: StaticString {
        "0000000000000000000000000000000001011111001101101111111111000000011111111111111111111111111000111111111111111111111111111110101000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    }

    /// Where the run of tchars starting at `start` ends (at most `end`): eight bytes at a time
    /// while they are letters, digits and `-` (the bytes of nearly every field name and method),
    /// one by one through the other tchars. Each byte's class is worked out in its own lane (the
    /// high bit set before subtracting, so no borrow crosses bytes), so the lowest byte flagged
    /// is exactly the first one to look at.
    @inline(__always) static func tokenEnd(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(base)
        var i = start
        while true {
            if i + 8 <= end {
                let x = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let x7 = x & ~highs
                let folded = x7 | (ones &* 0x20)
                let letter = ((folded | highs) &- ones &* 0x61) & ((ones &* 0xFA) &- folded)
                let digit = ((x7 | highs) &- ones &* 0x30) & ((ones &* 0xB9) &- x7)
                let d = x7 ^ (ones &* 0x2D)
                let dash = ~((d &+ ones &* 0x7F) | d)
                let other = (~(letter | digit | dash) | x) & highs
                if other == 0 { i += 8; continue }
                i += other.trailingZeroBitCount >> 3
            }
            guard i < end, isTokenChar(base[i]) else { return i }
            i += 1
        }
    }

    /// field-vchar / SP / HTAB (obs-text allowed); CR, LF, NUL and other controls are not.
    @inline(__always) static func isFieldValueChar(_ b: UInt8) -> Bool {
        b == 0x09 || (b >= 0x20 && b != 0x7F)
    }

    /// Whether every byte is a field-vchar, SP or HTAB (RFC 9110 §5.5). Eight bytes at a time: a
    /// word of printable ASCII (0x20–0x7E, nearly every header) passes with two tests, and only a
    /// word with some other byte (HTAB, obs-text, or a byte that fails) is checked byte by byte.
    static func isFieldValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= bytes.count {
                let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                // "hasless(x, 0x20)" and "hasmore(x, 0x7E)" (Anderson, Bit Twiddling Hacks): exact
                // as booleans, for any bytes.
                let below = (x &- ones &* 0x20) & ~x & highs
                let above = ((x &+ ones &* (127 - 0x7E)) | x) & highs
                if below | above != 0 {
                    for j in i..<(i + 8) where !isFieldValueChar(bytes[j]) { return false }
                }
                i += 8
            }
        }
        while i < bytes.count {
            if !isFieldValueChar(bytes[i]) { return false }
            i += 1
        }
        return true
    }

    @inline(__always) static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    @inline(__always) static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
}
