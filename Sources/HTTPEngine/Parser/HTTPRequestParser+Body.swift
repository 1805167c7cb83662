// The message body's framing (RFC 9112 §6): a Content-Length value and chunk-size lines (§7.1).

extension HTTPRequestParser {
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
}
