// The parser, by aspect (RFC 9112):
// - this file: the type, its state, `parse` and the line-by-line phase machine, the end of the
//   head (`finishHead`, RFC 9112 §6.3) and the hand-over and reset of a request;
// - `HTTPRequestParser+RequestLine.swift`: the request line (§3), its fast path and checks;
// - `HTTPRequestParser+Fields.swift`: field lines (§5), the framing and persistence fields read
//   from them, Host (RFC 9110 §7.2) and the `#rule` list helpers;
// - `HTTPRequestParser+Body.swift`: Content-Length (§6.2, §6.3) and chunk-size lines (§7.1).

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
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
