// The request line (RFC 9112 §3): read straight off the input when whole and well formed, else
// checked rule by rule.

extension HTTPRequestParser {
    /// request-line = method SP request-target SP HTTP-version (RFC 9112 §3).
    static let maxMethodBytes = 64

    /// Checks a request line, or the start of one, in a fixed order: method, then target length, then
    /// (partial lines only) whether the version part is already too long. A partial line gets an error
    /// only when the complete line would certainly get the same one, so slicing never changes a verdict.
    func requestLinePrefixError(_ line: UnsafeBufferPointer<UInt8>, complete: Bool) -> HTTPParseError? {
        var sp1 = 0, sp2 = 0
        return requestLinePrefixError(line, complete: complete, sp1: &sp1, sp2: &sp2)
    }

    /// The same, saying where the line's first two spaces are (`sp2` is the line's length when
    /// there is no second), so a complete line is scanned for them once.
    func requestLinePrefixError(_ line: UnsafeBufferPointer<UInt8>, complete: Bool, sp1 found1: inout Int, sp2 found2: inout Int) -> HTTPParseError? {
        guard let sp1 = line.firstIndex(of: 0x20) else {
            if line.count > Self.maxMethodBytes || complete { return .badRequest("malformed request line") }
            for b in line where !ASCII.isTokenChar(b) { return .badRequest("invalid method") }
            return nil
        }
        guard sp1 > 0, sp1 <= Self.maxMethodBytes else { return .badRequest("malformed request line") }
        for i in 0..<sp1 where !ASCII.isTokenChar(line[i]) { return .badRequest("invalid method") }
        var sp2 = sp1 + 1
        while sp2 < line.count && line[sp2] != 0x20 { sp2 += 1 }
        if sp2 - sp1 - 1 > limits.maxTargetBytes { return .uriTooLong("the request-target exceeds \(limits.maxTargetBytes) bytes") }
        // "HTTP/x.y" is 8 bytes.
        if !complete && sp2 < line.count && line.count - sp2 - 1 > 8 { return .badRequest("malformed HTTP version") }
        (found1, found2) = (sp1, sp2)
        return nil
    }

    mutating func parseRequestLine(_ line: UnsafeBufferPointer<UInt8>) -> HTTPParseError? {
        var sp1 = 0, sp2 = 0
        var fragment = false
        var question = -1
        let scanned = scanRequestLine(line, sp1: &sp1, sp2: &sp2, question: &question, fragment: &fragment)
        return parseRequestLine(line, scanned: scanned, sp1: sp1, sp2: sp2, question: question, fragment: fragment)
    }

    /// The request line straight off `input` at `pos`, when it is whole there and its method and
    /// target scan well (`scanRequestLine`), with no search for its end first: the version and
    /// CRLF are then at a known place. Nil for any other line, which `parse` reads by the general
    /// path.
    mutating func readRequestLine(_ input: UnsafeBufferPointer<UInt8>, from pos: inout Int) -> Step? {
        let rest = UnsafeBufferPointer(rebasing: input[pos...])
        var sp1 = 0, sp2 = 0
        var fragment = false
        var question = -1
        // "HTTP/x.y" CRLF after the target's SP.
        guard scanRequestLine(rest, sp1: &sp1, sp2: &sp2, question: &question, fragment: &fragment),
              sp2 + 11 <= rest.count, rest[sp2 + 9] == 0x0D, rest[sp2 + 10] == 0x0A else { return nil }
        // An LF among the version's eight bytes ends the line there (RFC 9112 §2.2).
        let version = UInt64(littleEndian: UnsafeRawPointer(rest.baseAddress.unsafelyUnwrapped + sp2 + 1).loadUnaligned(as: UInt64.self))
        let lf = version ^ 0x0A0A_0A0A_0A0A_0A0A
        if (lf &- 0x0101_0101_0101_0101) & ~lf & 0x8080_8080_8080_8080 != 0 { return nil }
        let line = UnsafeBufferPointer(rebasing: rest[..<(sp2 + 9)])
        pos += sp2 + 11
        if let error = parseRequestLine(line, scanned: true, sp1: sp1, sp2: sp2, question: question, fragment: fragment) {
            return fail(error)
        }
        state = .headers
        return .next
    }

    /// The checks after the scan: a well-formed line was read in one pass (`scanned`); any other
    /// is read again by the checks below, in their order, so that its error is the one it always got.
    @inline(__always)
    mutating func parseRequestLine(_ line: UnsafeBufferPointer<UInt8>, scanned: Bool, sp1: Int, sp2: Int,
                                   question: Int, fragment: Bool) -> HTTPParseError? {
        var sp1 = sp1, sp2 = sp2, question = question, fragment = fragment
        if !scanned {
            if let error = requestLinePrefixError(line, complete: true, sp1: &sp1, sp2: &sp2) { return error }
            guard sp2 < line.count, sp2 - sp1 - 1 > 0 else { return .badRequest("malformed request line") }
        }
        // HTTP-version = "HTTP" "/" DIGIT "." DIGIT (RFC 9112 §2.3); it is case-sensitive.
        let v = UnsafeBufferPointer(rebasing: line[(sp2 + 1)...])
        guard v.count == 8, v[0] == 0x48, v[1] == 0x54, v[2] == 0x54, v[3] == 0x50, v[4] == 0x2F,
              v[5] >= 0x30, v[5] <= 0x39, v[6] == 0x2E, v[7] >= 0x30, v[7] <= 0x39 else {
            return .badRequest("malformed HTTP version")
        }
        let major = Int(v[5] - 0x30), minor = Int(v[7] - 0x30)
        guard major == 1 else { return .versionNotSupported("only HTTP/1.0 and HTTP/1.1 are served") }
        // RFC 9110 §6.2: a 1.x recipient treats a higher minor version as the highest it supports.
        version = minor == 0 ? .http1_0 : .http1_1
        let t = UnsafeBufferPointer(rebasing: line[(sp1 + 1)..<sp2])
        if !scanned {
            // The bytes, a fragment, and where the query starts (`HTTPRequest` need not look again).
            for i in 0..<t.count {
                let b = t[i]
                if b < 0x21 || b > 0x7E { return .badRequest("invalid byte in the request-target") }
                if b == UInt8(ascii: "#") { fragment = true }
                if b == UInt8(ascii: "?") && question < 0 { question = i }
            }
        }
        // RFC 9112 §3.2 has no fragment in a request-target (a client strips it, RFC 9110 §4.2.4);
        // one here would carry whatever followed it (a token, say) into paths and logs.
        if fragment { return .badRequest("a request-target has no fragment ('#')") }
        // Origin-form, asterisk-form or absolute-form (RFC 9112 §3.2); authority-form is only for CONNECT.
        let isOrigin = t[0] == 0x2F
        let isAsterisk = t.count == 1 && t[0] == 0x2A
        if !isOrigin && !isAsterisk && !Self.looksAbsolute(t) { return .badRequest("unsupported request-target form") }
        let methodBytes = UnsafeBufferPointer(rebasing: line[0..<sp1])
        method = Self.knownMethod(methodBytes) ?? String(decoding: methodBytes, as: UTF8.self)
        // RFC 9112 §3.2.4: the asterisk-form is only for a server-wide OPTIONS.
        if isAsterisk && method != "OPTIONS" { return .badRequest("'*' is a request-target only for OPTIONS") }
        // The target's bytes go before the fields, in the one buffer of the head (`HTTPRequest.target`).
        headers.removeAll(keepingCapacity: true, prefix: t)
        originFormQuery = isOrigin ? question : nil
        return nil
    }

    /// Reads a well-formed request line's method (a token of at most `maxMethodBytes`, RFC 9110
    /// §9.1) and target (visible ASCII, RFC 9112 §3.2, at most `maxTargetBytes`) in one pass,
    /// noting a fragment and where the query starts; false for any other line, which
    /// `parseRequestLine` then checks rule by rule. The target is read eight bytes at a time: a
    /// word of visible ASCII with no `#` or `?` (nearly every one) passes with four tests.
    @inline(__always)
    func scanRequestLine(_ line: UnsafeBufferPointer<UInt8>, sp1: inout Int, sp2: inout Int,
                         question: inout Int, fragment: inout Bool) -> Bool {
        let p = line.baseAddress.unsafelyUnwrapped   // the empty line never gets here
        let n = line.count
        var i = ASCII.tokenEnd(p, from: 0, to: n)
        guard i > 0, i <= Self.maxMethodBytes, i < n, p[i] == 0x20 else { return false }
        sp1 = i
        i += 1
        let start = i
        let raw = UnsafeRawPointer(p)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        while i < n {
            if i + 8 <= n {
                let x = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                // Anderson's hasless, hasmore and haszero (Bit Twiddling Hacks), exact as booleans.
                let below = (x &- ones &* 0x21) & ~x
                let above = (x &+ ones &* (127 - 0x7E)) | x
                let hash = x ^ (ones &* 0x23), query = x ^ (ones &* 0x3F)
                let special = ((hash &- ones) & ~hash) | ((query &- ones) & ~query)
                let stop = (below | above | special) & highs
                if stop == 0 { i += 8; continue }
                // Borrows and carries only run upward: the lowest flagged byte is exactly the first
                // one to look at.
                i += stop.trailingZeroBitCount >> 3
            }
            let b = p[i]
            if b == 0x3F {
                if question < 0 { question = i - start }
            } else if b == 0x23 {
                fragment = true
            } else if b < 0x21 || b > 0x7E {
                break
            }
            i += 1
        }
        guard i < n, p[i] == 0x20, i > start, i - start <= limits.maxTargetBytes else { return false }
        sp2 = i
        return true
    }

    /// The usual methods as constant strings, so they are neither validated nor built per request.
    /// Methods are case-sensitive (RFC 9110 §9.1): only exact bytes match.
    static func knownMethod(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        func equals(_ literal: StaticString) -> Bool {
            guard bytes.count == literal.utf8CodeUnitCount else { return false }
            for i in 0..<bytes.count where bytes[i] != literal.utf8Start[i] { return false }
            return true
        }
        switch bytes.count {
        case 3: return equals("GET") ? "GET" : nil
        case 4: return equals("POST") ? "POST" : equals("HEAD") ? "HEAD" : nil
        case 6: return equals("DELETE") ? "DELETE" : nil
        default: return nil
        }
    }

    static func looksAbsolute(_ t: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let colon = t.firstIndex(of: 0x3A), colon > 0, colon + 2 < t.count else { return false }
        return t[colon + 1] == 0x2F && t[colon + 2] == 0x2F
    }
}
