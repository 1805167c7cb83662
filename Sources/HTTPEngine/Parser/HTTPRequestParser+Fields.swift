// Field lines (RFC 9112 §5) and the fields that decide framing and persistence, read while
// their bytes are at hand.

extension HTTPRequestParser {
    /// Reads whole, well-formed field lines (RFC 9112 §5) straight off `input` from `pos`, and the
    /// empty line that ends them, each in one pass with no search for its end first: the name is
    /// read as a token up to its colon, the value eight bytes at a time up to the first byte that
    /// cannot be in it, which must be the line's CRLF. Nil at the first line that is not whole in
    /// `input` or not of that form (a bare LF, a flaw): `parse` reads that one by the general path,
    /// whose checks and errors are the rules'.
    mutating func readFieldLines(_ input: UnsafeBufferPointer<UInt8>, from pos: inout Int) -> Step? {
        guard let base = input.baseAddress else { return nil }
        let n = input.count
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var i = pos
        while i < n {
            if base[i] == 0x0D {
                guard i + 1 < n, base[i + 1] == 0x0A else { return nil }
                pos = i + 2
                return finishHead()
            }
            // field-name = token (RFC 9110 §5.1), then the colon with no whitespace before it (RFC 9112 §5.1).
            let colon: Int
            if let known = Self.commonNameColon(base + i, available: n - i) {
                colon = i + known
            } else {
                colon = ASCII.tokenEnd(base, from: i, to: n)
                guard colon > i, colon < n, base[colon] == 0x3A else { return nil }
            }
            var start = colon + 1
            while start < n && ASCII.isWhitespace(base[start]) { start += 1 }
            // field-value: field-vchar, SP, HTAB, obs-text (RFC 9110 §5.5). A word with no byte below
            // 0x20 and no DEL (Anderson's hasless and haszero, exact as booleans) is all value.
            var e = start
            while e + 8 <= n {
                let x = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: e, as: UInt64.self))
                let del = x ^ (ones &* 0x7F)
                let stop = ((x &- ones &* 0x20) & ~x | (del &- ones) & ~del) & highs
                if stop == 0 { e += 8; continue }
                // A borrow only runs upward, so the lowest flagged byte is exactly the first that
                // stops the value: HTAB, which is in it, or its end.
                e += stop.trailingZeroBitCount >> 3
                if base[e] != 0x09 { break }
                e += 1
            }
            while e < n && ASCII.isFieldValueChar(base[e]) { e += 1 }
            guard e + 1 < n, base[e] == 0x0D, base[e + 1] == 0x0A else { return nil }
            let next = e + 2
            // Consumed, as `parse` consumes a line before reading it.
            pos = next
            headBytes += next - i
            if headBytes > limits.maxHeaderBytes { return fail(.headersTooLarge("the header block exceeds \(limits.maxHeaderBytes) bytes")) }
            // OWS after the value is not part of it (RFC 9112 §5).
            while e > start && ASCII.isWhitespace(base[e - 1]) { e -= 1 }
            if headers.count >= limits.maxHeaderCount { return fail(.headersTooLarge("more than \(limits.maxHeaderCount) header fields")) }
            let value = UnsafeBufferPointer(start: base + start, count: e - start)
            if Self.mayBeFramingName(count: colon - i), !noteFramingField(name: base + i, count: colon - i, value: value) {
                return .failed
            }
            headers.appendField(name: base + i, nameCount: colon - i, value: base + start, valueCount: e - start)
            i = next
        }
        return nil
    }

    /// field-line = field-name ":" OWS field-value OWS (RFC 9112 §5), read in one pass: the name
    /// is scanned as a token up to the colon, so a good line (every line of every request) is
    /// looked at once; only a bad one is split again by `splitFieldLine`, which tells its flaw.
    mutating func parseFieldLine(_ line: UnsafeBufferPointer<UInt8>) -> Step {
        // A field line is never empty: the empty line ends the block before this is called.
        let p = line.baseAddress.unsafelyUnwrapped
        let n = line.count
        // field-name = token (RFC 9110 §5.1). A line that starts with whitespace (obs-fold, RFC 9112
        // §5.2) or has whitespace before its colon (RFC 9112 §5.1) stops the scan short of a colon.
        var colon = 0
        while colon < n && ASCII.isTokenChar(p[colon]) { colon += 1 }
        guard colon > 0, colon < n, p[colon] == 0x3A else {
            var field = FieldLine(name: UnsafeBufferPointer(start: nil, count: 0), value: UnsafeBufferPointer(start: nil, count: 0))
            return fail((Self.splitFieldLine(line, into: &field) ?? .noColon).error(what: "header"))
        }
        var start = colon + 1, end = n
        while start < end && ASCII.isWhitespace(p[start]) { start += 1 }
        while end > start && ASCII.isWhitespace(p[end - 1]) { end -= 1 }
        let value = UnsafeBufferPointer(start: p + start, count: end - start)
        if !ASCII.isFieldValue(value) { return fail(FieldLineFlaw.badValue.error(what: "header")) }
        if headers.count >= limits.maxHeaderCount { return fail(.headersTooLarge("more than \(limits.maxHeaderCount) header fields")) }
        if !noteFramingField(name: p, count: colon, value: value) { return .failed }
        // The request line made room for a usual head at once (`removeAll(keepingCapacity:prefix:)`);
        // a larger one grows by doubling, so it never holds more than twice its size.
        headers.appendField(name: p, nameCount: colon, value: p + start, valueCount: end - start)
        return .next
    }

    struct FieldLine {
        var name: UnsafeBufferPointer<UInt8>
        var value: UnsafeBufferPointer<UInt8>
    }

    /// What is wrong with a field-line: a trivial value, so the split of a good line (every line
    /// of every request) builds no error; the error and its text are made only for a bad one.
    enum FieldLineFlaw {
        case obsoleteFolding, noColon, badName, badValue

        /// `what` names the block ("header" or "trailer": trailer fields have the same syntax,
        /// RFC 9112 §7.1.2).
        func error(what: StaticString) -> HTTPParseError {
            switch self {
            case .obsoleteFolding: .badRequest("obsolete line folding")
            case .noColon: .badRequest("invalid \(what) field line")
            case .badName: .badRequest("invalid \(what) field name")
            case .badValue: .badRequest("invalid byte in a \(what) field value")
            }
        }
    }

    /// Checks a non-empty line as a field-line and splits it into `field`; nil when it is one.
    static func splitFieldLine(_ line: UnsafeBufferPointer<UInt8>, into field: inout FieldLine) -> FieldLineFlaw? {
        // RFC 9112 §5.2: obs-fold (a line starting with whitespace) is rejected with 400.
        if ASCII.isWhitespace(line[0]) { return .obsoleteFolding }
        guard let colon = line.firstIndex(of: 0x3A), colon > 0 else { return .noColon }
        // RFC 9112 §5.1: whitespace between the name and the colon MUST be rejected; the token check covers it.
        for i in 0..<colon where !ASCII.isTokenChar(line[i]) { return .badName }
        var start = colon + 1, end = line.count
        while start < end && ASCII.isWhitespace(line[start]) { start += 1 }
        while end > start && ASCII.isWhitespace(line[end - 1]) { end -= 1 }
        let value = UnsafeBufferPointer(rebasing: line[start..<end])
        if !ASCII.isFieldValue(value) { return .badValue }
        field = FieldLine(name: UnsafeBufferPointer(rebasing: line[0..<colon]), value: value)
        return nil
    }

    /// Where the colon is when the line at `p` starts with one of the field names nearly every
    /// request sends, in any case, and its colon: a few word compares instead of a tchar test per
    /// byte (the name is a token because it is that name). Nil for any other line.
    @inline(__always) static func commonNameColon(_ p: UnsafePointer<UInt8>, available: Int) -> Int? {
        // Every name here with its colon fits in 16 bytes.
        guard available >= 16 else { return nil }
        switch p[0] | 0x20 {
        case UInt8(ascii: "h"):
            return spells(p, "host:") ? 4 : nil
        case UInt8(ascii: "c"):
            if spells(p, "content-length:") { return 14 }
            if spells(p, "content-type:") { return 12 }
            return spells(p, "connection:") ? 10 : nil
        case UInt8(ascii: "a"):
            if spells(p, "authorization:") { return 13 }
            if spells(p, "accept-encoding:") { return 15 }
            return spells(p, "accept:") ? 6 : nil
        case UInt8(ascii: "u"):
            return spells(p, "user-agent:") ? 10 : nil
        case UInt8(ascii: "i"):
            return spells(p, "idempotency-key:") ? 15 : nil
        default:
            return nil
        }
    }

    /// Whether the bytes at `p` spell `lower` (4 to 16 bytes: lowercase letters, `-` and `:`),
    /// letters in any case. Bit 5 is set only where `lower` has a letter (a letter is 0x61–0x7A,
    /// so adding 0x1F sets its high bit, and no other byte's): folding `-` or `:` that way would
    /// let CR or a control byte pass for it.
    @inline(__always) static func spells(_ p: UnsafePointer<UInt8>, _ lower: StaticString) -> Bool {
        let count = lower.utf8CodeUnitCount
        let a = UnsafeRawPointer(p), b = UnsafeRawPointer(lower.utf8Start)
        if count < 8 {
            @inline(__always) func same(_ offset: Int) -> Bool {
                let l = b.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                let fold = ((l &+ 0x1F1F_1F1F) & 0x8080_8080) >> 2
                return a.loadUnaligned(fromByteOffset: offset, as: UInt32.self) | fold == l
            }
            return same(0) && same(count - 4)
        }
        @inline(__always) func same(_ offset: Int) -> Bool {
            let l = b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let fold = ((l &+ 0x1F1F_1F1F_1F1F_1F1F) & 0x8080_8080_8080_8080) >> 2
            return a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) | fold == l
        }
        return same(0) && same(count - 8)
    }

    /// Whether a name of `count` bytes can be one `noteFramingField` reads (4 host, 6 expect,
    /// 10 connection, 14 content-length, 17 transfer-encoding): most fields are not looked at further.
    @inline(__always) static func mayBeFramingName(count: Int) -> Bool {
        count < 18 && (1 << 4 | 1 << 6 | 1 << 10 | 1 << 14 | 1 << 17) >> count & 1 == 1
    }

    /// Reads the fields that decide framing and persistence while their bytes are at hand; false
    /// when one is invalid (the parser has failed). Names are told apart by length, then compared
    /// a word at a time (`matches`), without a string.
    mutating func noteFramingField(name: UnsafePointer<UInt8>, count: Int, value: UnsafeBufferPointer<UInt8>) -> Bool {
        switch count {
        case 4 where Self.matches(name, count, "host"):
            hostCount += 1
            // RFC 9112 §3.2: a Host whose value is not `uri-host [":" port]` is answered 400.
            if !Self.isValidHost(value) { _ = fail(.badRequest("invalid Host")); return false }
        case 6 where Self.matches(name, count, "expect"):
            // RFC 9110 §10.1.1: an HTTP/1.0 request's 100-continue expectation MUST be ignored.
            if version == .http1_1 && Self.equalsLowercase(value, "100-continue") { expectContinue = true }
        case 10 where Self.matches(name, count, "connection"):
            // RFC 9110 §7.6.1: Connection is a comma-separated list of case-insensitive tokens.
            Self.forEachListElement(value) { token in
                if Self.equalsLowercase(token, "close") { connectionClose = true }
                else if Self.equalsLowercase(token, "keep-alive") { connectionKeepAlive = true }
            }
        case 14 where Self.matches(name, count, "content-length"):
            if let error = noteContentLength(value) { _ = fail(error); return false }
        case 17 where Self.matches(name, count, "transfer-encoding"):
            Self.forEachListElement(value) { coding in
                transferCodings += 1
                transferChunked = Self.equalsLowercase(coding, "chunked")
                if transferChunked { chunkedCodings += 1 }
            }
            // An empty value names no coding: malformed framing, as a final one not chunked is.
            if value.isEmpty { transferCodings += 1; transferChunked = false }
        default:
            break
        }
        return true
    }

    /// `Host = uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2), or empty (a target with no
    /// authority). An IP literal is checked for its brackets and its characters, not parsed.
    static func isValidHost(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        var hostEnd = value.count
        var i = 0
        if value.first == UInt8(ascii: "[") {
            guard let close = value.firstIndex(of: UInt8(ascii: "]")) else { return false }
            // IPv6address / IPvFuture: hex digits, ':', '.', and IPvFuture's 'v' and its
            // unreserved / sub-delims.
            for b in value[1..<close] where !(isRegNameByte(b) || b == UInt8(ascii: ":")) || b == UInt8(ascii: "%") { return false }
            i = close + 1
            hostEnd = i
            guard i == value.count || value[i] == UInt8(ascii: ":") else { return false }
        } else {
            while i < value.count {
                let b = value[i]
                // Neither ":" nor "%" is a reg-name byte: the usual byte costs one test.
                if isRegNameByte(b) { i += 1; continue }
                if b == UInt8(ascii: ":") { break }
                // pct-encoded = "%" HEXDIG HEXDIG
                guard b == UInt8(ascii: "%"), i + 2 < value.count, ASCII.hexValue(value[i + 1]) != nil,
                      ASCII.hexValue(value[i + 2]) != nil else { return false }
                i += 3
            }
            hostEnd = i
        }
        guard hostEnd < value.count else { return true }
        // port = *DIGIT
        return value[(hostEnd + 1)...].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// unreserved / sub-delims (RFC 3986 §2.2, §2.3): ALPHA DIGIT - . _ ~ ! $ & ' ( ) * + , ; =,
    /// one bit per ASCII byte (bytes 0–63, 64–127); every request has a Host, and a switch per
    /// byte cost ~20 instructions. `ParserTests` checks the bits against that list.
    @inline(__always) static func isRegNameByte(_ b: UInt8) -> Bool {
        b < 64 ? (0x2bff_7fd2_0000_0000 as UInt64) >> b & 1 == 1 : b < 128 && (0x47ff_fffe_87ff_fffe as UInt64) >> (b - 64) & 1 == 1
    }

    /// Whether the `count` bytes at `name`, a token, spell `lower` (lowercase letters and `-`,
    /// `count` bytes long) in any case. Eight bytes at a time: setting bit 5 lowercases a letter,
    /// and within tchars (RFC 9110 §5.6.2) only the uppercase letter maps onto a lowercase one and
    /// only `-` onto `-`, so the comparison is exact.
    @inline(__always) static func matches(_ name: UnsafePointer<UInt8>, _ count: Int, _ lower: StaticString) -> Bool {
        let a = UnsafeRawPointer(name), b = UnsafeRawPointer(lower.utf8Start)
        if count < 8 {
            // 4 to 7 bytes: the first four and the last four, overlapping.
            let fold: UInt32 = 0x2020_2020
            return a.loadUnaligned(as: UInt32.self) | fold == b.loadUnaligned(as: UInt32.self)
                && a.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self) | fold == b.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        }
        let fold: UInt64 = 0x2020_2020_2020_2020
        var i = 0
        while i + 8 < count {
            if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) | fold != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        return a.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) | fold == b.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }

    /// Compares bytes with a lowercase ASCII literal, ignoring case.
    static func equalsLowercase(_ bytes: UnsafeBufferPointer<UInt8>, _ lower: StaticString) -> Bool {
        guard bytes.count == lower.utf8CodeUnitCount else { return false }
        let l = lower.utf8Start
        for i in 0..<bytes.count where ASCII.lower(bytes[i]) != l[i] { return false }
        return true
    }

    /// Calls `body` for each non-empty, OWS-trimmed element of a `#rule` list (RFC 9110 §5.6.1).
    static func forEachListElement(_ value: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        forEachListElementIncludingEmpty(value) { element in
            if !element.isEmpty { body(element) }
            return true
        }
    }

    /// Calls `body` for each OWS-trimmed element of a `#rule` list, empty ones included (which
    /// the list rule skips, but a field such as Content-Length must refuse), until it returns false.
    static func forEachListElementIncludingEmpty(_ value: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        var start = 0
        while start <= value.count {
            var end = start
            while end < value.count && value[end] != 0x2C { end += 1 }
            var s = start, e = end
            while s < e && ASCII.isWhitespace(value[s]) { s += 1 }
            while e > s && ASCII.isWhitespace(value[e - 1]) { e -= 1 }
            guard body(UnsafeBufferPointer(rebasing: value[s..<e])) else { return }
            start = end + 1
        }
    }
}
