/// An incremental HTTP/1.1 request parser (RFC 9112): a pure state machine over bytes, no sockets.
///
/// The caller owns the bytes. It passes everything not yet consumed; the parser consumes whole
/// lines and body bytes, keeps its state, and says how much it took. Unconsumed bytes (a partial
/// line) must be passed again, followed by whatever arrives next.
///
/// ```swift
/// var parser = HTTPRequestParser()
/// let (consumed, event) = bytes.withUnsafeBufferPointer { parser.parse($0) }
/// if case .request(let request) = event { ... }   // then parse bytes[consumed...] for the next one
/// ```
public struct HTTPRequestParser: Sendable {
    public enum Event: Sendable {
        /// Everything complete was consumed; call again with the rest plus more bytes.
        case needMore
        /// The head asked `Expect: 100-continue` and a body follows (RFC 9110 §10.1.1): answer 100, then keep parsing.
        case expectContinue
        /// A complete request; the parser is ready for the next one (pipelining).
        case request(HTTPRequest)
        /// The request is refused; the parser stays failed and the connection must close.
        case error(HTTPParseError)
    }

    /// Where the parser is inside a request, for the connection's deadlines.
    public enum Phase: Sendable, Equatable { case idle, head, body }

    enum State: Sendable {
        case requestLine
        case headers
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        /// The error is in `failure`: a payload here would make every state a copy of a large
        /// value, paid on each line of every request.
        case failed
    }

    public let limits: HTTPParserLimits
    var state: State = .requestLine
    /// Why the parser failed, once `state` is `.failed`.
    var failure = HTTPParseError.badRequest("")

    // The request being assembled.
    var method = ""
    var version = HTTPVersion.http1_1
    var headers = HTTPHeaders()
    var headBytes = 0
    var leadingEmptyLines = 0
    var contentLength: Int?
    var transferCodings = 0
    var transferChunked = false
    /// How many of the codings are `chunked` (RFC 9112 §7.1: applied once at most).
    var chunkedCodings = 0
    var connectionClose = false
    var connectionKeepAlive = false
    var expectContinue = false
    var hostCount = 0
    /// The header block's empty line was reached: every header field of the request is in
    /// `headers` (a refusal after this saw them all, one before may have missed `Origin`).
    private(set) var headerBlockComplete = false
    var body: [UInt8] = []
    /// `body` still holds the last request's bytes: a Content-Length body's first bytes replace them.
    var bodyHoldsLastRequest = false
    /// For an origin-form target, the offset of its `?` (-1 when it has none), found while the
    /// target was checked; nil for another form, whose path `HTTPRequest` finds itself.
    var originFormQuery: Int?

    public init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
    }

    public var phase: Phase {
        switch state {
        case .requestLine: return leadingEmptyLines == 0 ? .idle : .head
        case .headers: return .head
        case .failed: return .idle
        default: return .body
        }
    }

    public var hasFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// Parses as much of `input` as possible; see the type's summary for the contract.
    public mutating func parse(_ input: UnsafeBufferPointer<UInt8>) -> (consumed: Int, event: Event) {
        var pos = 0
        let count = input.count
        while true {
            switch state {
            case .failed:
                return (pos, .error(failure))

            case .body(let remaining):
                let n = min(remaining, count - pos)
                if n > 0 {
                    let bytes = UnsafeBufferPointer(rebasing: input[pos..<(pos + n)])
                    if bodyHoldsLastRequest {
                        // The last request's buffer, kept by `reset`, is refilled now that its
                        // request is usually gone (so it is reused, not copied): a body here whole
                        // in one step, a longer one with room for all of it (up to 64 KiB) first.
                        bodyHoldsLastRequest = false
                        if n < remaining {
                            body.removeAll(keepingCapacity: true)
                            body.reserveCapacity(min(remaining, 64 << 10))
                            body.append(contentsOf: bytes)
                        } else {
                            body.replaceSubrange(body.startIndex..<body.endIndex, with: bytes)
                        }
                    } else {
                        body.append(contentsOf: bytes)
                    }
                    pos += n
                }
                if remaining - n == 0 { return (pos, .request(completeRequest())) }
                state = .body(remaining: remaining - n)
                return (pos, .needMore)

            case .chunkData(let remaining):
                let n = min(remaining, count - pos)
                if n > 0 {
                    body.append(contentsOf: UnsafeBufferPointer(rebasing: input[pos..<(pos + n)]))
                    pos += n
                }
                if remaining - n == 0 {
                    state = .chunkDataEnd
                    continue
                }
                state = .chunkData(remaining: remaining - n)
                return (pos, .needMore)

            case .requestLine, .headers, .chunkSize, .chunkDataEnd, .trailers:
                if case .headers = state, let step = readFieldLines(input, from: &pos) {
                    switch step {
                    case .next: continue
                    case .request: return (pos, .request(completeRequest()))
                    case .expectContinue: return (pos, .expectContinue)
                    case .failed: return (pos, .error(failure))
                    }
                }
                // Nothing left (the call after a request that ended the input): no limit can be
                // exceeded by no bytes.
                if pos == count { return (pos, .needMore) }
                if case .requestLine = state, let step = readRequestLine(input, from: &pos) {
                    if step == .failed { return (pos, .error(failure)) }
                    continue
                }
                guard let lf = Self.findLF(input, from: pos) else {
                    if let error = partialLineError(length: count - pos, partial: UnsafeBufferPointer(rebasing: input[pos..<count])) {
                        return fail(error, at: pos)
                    }
                    return (pos, .needMore)
                }
                let lineLength = lf - pos + 1
                // RFC 9112 §2.2: a recipient MAY accept a bare LF as the line terminator; we do, and drop the CR of CRLF.
                let end = (lf > pos && input[lf - 1] == 0x0D) ? lf - 1 : lf
                let line = UnsafeBufferPointer(rebasing: input[pos..<end])
                pos = lf + 1
                switch handleLine(line, length: lineLength) {
                case .next: continue
                case .request: return (pos, .request(completeRequest()))
                case .expectContinue: return (pos, .expectContinue)
                case .failed: return (pos, .error(failure))
                }
            }
        }
    }

    /// What a line led to. A trivial value: the request is built and the error read (`failure`)
    /// by `parse` alone, so no line returns, copies or destroys a payload.
    enum Step {
        case next, request, expectContinue, failed
    }

    mutating func fail(_ error: HTTPParseError, at pos: Int) -> (consumed: Int, event: Event) {
        state = .failed
        failure = error
        return (pos, .error(error))
    }

    /// Fails the parser with `error`, for `parse` to report.
    mutating func fail(_ error: HTTPParseError) -> Step {
        state = .failed
        failure = error
        return .failed
    }

    /// Refuses an unfinished line that can no longer fit its limit, so a peer cannot make us buffer without end.
    func partialLineError(length: Int, partial: UnsafeBufferPointer<UInt8>) -> HTTPParseError? {
        switch state {
        case .requestLine:
            // The same verdict the whole line will get, as early as it is certain (no unbounded buffering).
            guard length > Self.maxMethodBytes else { return nil }
            // A trailing CR may be the start of the CRLF, which is not part of the line.
            let line = partial.last == 0x0D ? UnsafeBufferPointer(rebasing: partial[0..<(partial.count - 1)]) : partial
            return requestLinePrefixError(line, complete: false)
        case .headers:
            return headBytes + length > limits.maxHeaderBytes ? .headersTooLarge("the header block exceeds \(limits.maxHeaderBytes) bytes") : nil
        case .trailers:
            return headBytes + length > limits.maxHeaderBytes ? .headersTooLarge("the trailer block exceeds \(limits.maxHeaderBytes) bytes") : nil
        case .chunkSize:
            return length > 4096 ? .badRequest("chunk-size line too long") : nil
        case .chunkDataEnd:
            return length > 2 ? .badRequest("chunk data is longer than its chunk-size") : nil
        default:
            return nil
        }
    }

    mutating func handleLine(_ line: UnsafeBufferPointer<UInt8>, length: Int) -> Step {
        switch state {
        case .requestLine:
            if line.isEmpty {
                // RFC 9112 §2.2: SHOULD ignore at least one empty line before the request-line.
                leadingEmptyLines += 1
                return leadingEmptyLines > 8 ? fail(.badRequest("empty lines instead of a request line")) : .next
            }
            if let error = parseRequestLine(line) { return fail(error) }
            state = .headers
            return .next

        case .headers:
            if line.isEmpty { return finishHead() }
            headBytes += length
            if headBytes > limits.maxHeaderBytes { return fail(.headersTooLarge("the header block exceeds \(limits.maxHeaderBytes) bytes")) }
            return parseFieldLine(line)

        case .chunkSize:
            if length > 4096 { return fail(.badRequest("chunk-size line too long")) }
            return parseChunkSize(line)

        case .chunkDataEnd:
            // RFC 9112 §7.1: chunk-data is followed by CRLF and nothing else.
            guard line.isEmpty else { return fail(.badRequest("chunk data is longer than its chunk-size")) }
            state = .chunkSize
            return .next

        case .trailers:
            if line.isEmpty { return .request }
            // RFC 9112 §7.1.2: trailer fields are discarded (none of ours may change framing), but
            // each line must be a field-line: a request line swallowed as a trailer is a message a
            // front end may frame differently.
            headBytes += length
            if headBytes > limits.maxHeaderBytes { return fail(.headersTooLarge("the trailer block exceeds \(limits.maxHeaderBytes) bytes")) }
            var field = FieldLine(name: UnsafeBufferPointer(start: nil, count: 0), value: UnsafeBufferPointer(start: nil, count: 0))
            if let flaw = Self.splitFieldLine(line, into: &field) { return fail(flaw.error(what: "trailer")) }
            return .next

        default:
            return .next
        }
    }

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

    /// Content-Length = 1*DIGIT (RFC 9110 §8.6). A list of identical values may be read as one
    /// (RFC 9112 §6.3 (5)); anything else is invalid and answered 400: differing values, and empty
    /// elements (`,`, `5,`, `,5`), which the general list rule would skip (RFC 9110 §5.6.1) and
    /// leave a front end and this server framing the message differently.
    mutating func noteContentLength(_ value: UnsafeBufferPointer<UInt8>) -> HTTPParseError? {
        // The usual value, one number of at most 18 digits (it cannot overflow), is read at once.
        var digits = 0, n = 0
        while digits < value.count && digits < 18 {
            let d = value[digits] &- 0x30
            guard d < 10 else { break }
            n = n &* 10 &+ Int(d)
            digits += 1
        }
        if digits > 0 && digits == value.count {
            if let existing = contentLength, existing != n { return .badRequest("differing Content-Length values") }
            contentLength = n
            return nil
        }
        var error: HTTPParseError?
        var length = contentLength
        Self.forEachListElementIncludingEmpty(value) { element in
            guard !element.isEmpty else { error = .badRequest("empty Content-Length"); return false }
            var n = 0
            for b in element {
                guard b >= 0x30 && b <= 0x39 else { error = .badRequest("Content-Length is not a number"); return false }
                n = n > (Int.max - 9) / 10 ? Int.max : n * 10 + Int(b - 0x30)
            }
            if let existing = length, existing != n { error = .badRequest("differing Content-Length values"); return false }
            length = n
            return true
        }
        if error == nil { contentLength = length }
        return error
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

    mutating func finishHead() -> Step {
        headerBlockComplete = true
        // RFC 9112 §3.2: a 1.1 request without exactly one Host, or any request with several, gets 400.
        if (version == .http1_1 && hostCount != 1) || hostCount > 1 {
            return fail(.badRequest(hostCount == 0 ? "missing Host header" : "more than one Host header"))
        }
        var hasBody = false
        if transferCodings > 0 {
            // RFC 9112 §6.1: Transfer-Encoding in 1.0 means faulty framing; with Content-Length it is smuggling-shaped (§6.3 (3)).
            if version == .http1_0 { return fail(.badRequest("Transfer-Encoding in an HTTP/1.0 request")) }
            if contentLength != nil { return fail(.badRequest("both Content-Length and Transfer-Encoding")) }
            // RFC 9112 §6.3 (4): a request whose final coding is not chunked has no knowable length
            // (400); §6.1: codings before it that the server does not know are 501.
            guard transferChunked else { return fail(.badRequest("the final transfer coding is not chunked")) }
            guard chunkedCodings == 1 else { return fail(.badRequest("chunked is applied more than once")) }
            guard transferCodings == 1 else { return fail(.notImplemented("only the chunked transfer coding is understood")) }
            body.removeAll(keepingCapacity: true)
            state = .chunkSize
            hasBody = true
        } else if let length = contentLength, length > 0 {
            if length > limits.maxBodyBytes { return fail(.bodyTooLarge("the body exceeds \(limits.maxBodyBytes) bytes")) }
            // The body's first bytes replace the last request's (`parse`).
            bodyHoldsLastRequest = true
            state = .body(remaining: length)
            hasBody = true
        } else {
            if !body.isEmpty { body = [] }
            return .request
        }
        if hasBody && expectContinue { return .expectContinue }
        return .next
    }

    /// chunk-size [ chunk-ext ] CRLF, chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] ) (RFC 9112 §7.1.1).
    mutating func parseChunkSize(_ line: UnsafeBufferPointer<UInt8>) -> Step {
        var i = 0, size = 0, significant = 0
        while i < line.count, let digit = ASCII.hexValue(line[i]) {
            if significant > 0 || digit != 0 { significant += 1 }
            if significant > 15 { return fail(.bodyTooLarge("chunk size too large")) }
            size = size << 4 | Int(digit)
            i += 1
        }
        guard i > 0 else { return fail(.badRequest("invalid chunk size")) }
        while i < line.count && ASCII.isWhitespace(line[i]) { i += 1 }
        if i < line.count {
            guard line[i] == 0x3B else { return fail(.badRequest("invalid chunk size")) }
            // Extensions are tolerated and ignored; only their bytes are checked.
            for b in UnsafeBufferPointer(rebasing: line[i...]) where !ASCII.isFieldValueChar(b) {
                return fail(.badRequest("invalid chunk extension"))
            }
        }
        if size == 0 {
            headBytes = 0
            state = .trailers
            return .next
        }
        if body.count + size > limits.maxBodyBytes { return fail(.bodyTooLarge("the body exceeds \(limits.maxBodyBytes) bytes")) }
        state = .chunkData(remaining: size)
        return .next
    }

    /// The request-target read so far ("" before the request line is complete).
    var target: String {
        headers.storage.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[..<headers.start]), as: UTF8.self) }
    }

    /// The request read so far, head only, while its body is still to come (the answer to
    /// `expectContinue` may depend on it). It is not kept alive: an answer from the head alone
    /// leaves the body unread on the connection.
    var head: HTTPRequest {
        HTTPRequest(method: method, version: version, headers: headers, body: [], keepAlive: false,
                    originFormQuery: originFormQuery)
    }

    mutating func completeRequest() -> HTTPRequest {
        // RFC 9112 §9.3: 1.1 persists unless "close"; 1.0 only when "keep-alive" is asked for.
        let keepAlive = version == .http1_1 ? !connectionClose : (connectionKeepAlive && !connectionClose)
        let request = HTTPRequest(method: method, version: version, headers: headers, body: body, keepAlive: keepAlive,
                                  originFormQuery: originFormQuery)
        reset()
        return request
    }

    mutating func reset() {
        state = .requestLine
        method = ""
        version = .http1_1
        // The buffers stay for the next request when they are small: the request just handed
        // over shares them, and once it is gone (an answer made while the loop reads, nearly
        // every one) the next request writes into them without allocating; while it lives, the
        // first write copies them, as a fresh buffer would have been allocated.
        headers.removeAll(keepingCapacity: headers.reservedBytes <= Self.keptBufferBytes)
        headBytes = 0
        leadingEmptyLines = 0
        contentLength = nil
        transferCodings = 0
        transferChunked = false
        chunkedCodings = 0
        connectionClose = false
        connectionKeepAlive = false
        expectContinue = false
        hostCount = 0
        headerBlockComplete = false
        // The body is emptied once the next head is read (`finishHead`), by when the request
        // that shares it is usually gone: emptying a shared array here would allocate at once.
        if body.capacity > Self.keptBufferBytes { body = [] }
        bodyHoldsLastRequest = false
        originFormQuery = nil
    }

    /// The most a connection keeps of each buffer between requests (10,000 idle connections
    /// keep at most 20 MB).
    static let keptBufferBytes = 1 << 10

    // MARK: byte helpers

    @inline(__always) static func findLF(_ input: UnsafeBufferPointer<UInt8>, from pos: Int) -> Int? {
        guard pos < input.count, let base = input.baseAddress else { return nil }
        guard let hit = memchr(base + pos, 0x0A, input.count - pos) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
