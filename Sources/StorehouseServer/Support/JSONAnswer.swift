import HTTPEngine
import StoreCore

/// Successful JSON answers.
enum JSONAnswer {
    static func ok(_ body: [UInt8], status: Int = 200, etagVersion: Int? = nil) -> HTTPResponse {
        // Content-Type, ETag, Vary and at most one more (Preference-Applied, Location,
        // Idempotent-Replayed): 140 bytes hold them with their lengths, in one allocation.
        var headers = HTTPHeaders(reservingBytes: 140)
        addFields(etagVersion: etagVersion, to: &headers)
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    private static func addFields(etagVersion: Int?, to headers: inout HTTPHeaders) {
        headers.add(static: "Content-Type", "application/json")
        if let etagVersion { addEntityTag(etagVersion, to: &headers) }
        // Every answer says it (`CORS.addHeaders`); said here, a shared answer (the head's) is
        // not copied to say it.
        headers.add(static: "Vary", "Origin")
    }

    /// `ETag: "<version>"`, the digits written on the stack and copied in: no string is built
    /// for the tag of every answer.
    static func addEntityTag(_ version: Int, to headers: inout HTTPHeaders) {
        guard version >= 0 else { return headers.add("ETag", entityTag(version)) }
        // 24 bytes on the stack: a quote, up to 20 digits, a quote.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { bytes in
            var v = UInt(version), start = 23
            bytes[start] = UInt8(ascii: "\"")
            repeat { start -= 1; bytes[start] = UInt8(48 + v % 10); v /= 10 } while v > 0
            start -= 1
            bytes[start] = UInt8(ascii: "\"")
            let value = UnsafeBufferPointer(rebasing: bytes[start..<24])
            Self.etagName.withUTF8Buffer { headers.append(name: $0, value: value) }
        }
    }

    /// Writes the `ETag` value of `version` (not negative) over the one in `headers`, in place,
    /// when it has as many digits; false, and `headers` as they were, otherwise.
    static func rewritesEntityTag(_ version: Int, in headers: inout HTTPHeaders) -> Bool {
        guard version >= 0 else { return false }
        return headers.rewriteValue(static: etagName, count: decimalDigits(version) + 2) { value in
            var v = version, at = value.count - 1
            value[at] = UInt8(ascii: "\"")
            repeat { at -= 1; value[at] = UInt8(48 + v % 10); v /= 10 } while at > 1
            value[0] = UInt8(ascii: "\"")
        }
    }

    /// How many decimal digits `value` (not negative) is written with.
    private static func decimalDigits(_ value: Int) -> Int {
        var digits = 1, rest = value / 10
        while rest > 0 { digits += 1; rest /= 10 }
        return digits
    }

    private static let etagName: StaticString = "ETag"

    /// `"<version>"`, written by hand: string interpolation costs more than the rest of a small answer.
    static func entityTag(_ version: Int) -> String {
        guard version >= 0 else { return "\"\(version)\"" }
        // Digits right to left into a stack buffer; up to 13 digits the string is small (no heap).
        var buffer: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: a quote, 20 digits, a quote
        return withUnsafeMutableBytes(of: &buffer) { bytes in
            var v = UInt(version), start = 23
            bytes[start] = UInt8(ascii: "\"")
            repeat { start -= 1; bytes[start] = UInt8(48 + v % 10); v /= 10 } while v > 0
            start -= 1
            bytes[start] = UInt8(ascii: "\"")
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start...]), as: UTF8.self)
        }
    }
}

extension JSONAnswer {
    /// `{"version":N,"state":…}` with its ETag: the answer of GET state and of a full POST.
    static func state(version: Int, state: [UInt8]) -> HTTPResponse {
        ok(wrap(version: version, member: #","state":"#, raw: state), etagVersion: version)
    }

    /// The same answer with the state written by `encode` straight into the body, and where it lies there.
    /// `expectedStateBytes` (the previous version's size) sizes the body once: a fixed reserve
    /// would make every answer of a small state a large-bin `malloc`, which consolidates glibc's
    /// fast bins, and a large state would grow by doubling.
    ///
    /// `previous`, the head's answer this one replaces (made by this function), lends its body and
    /// fields' storage: once its answer is sent nothing else holds them, so a POST reuses both
    /// instead of freeing two buffers and allocating two (~800 instructions,
    /// `scripts/instructions-per-request.sh`). Still held (a kept idempotent answer, a GET being
    /// written), they are copied on write as usual; far larger than needed, they go, so a state
    /// that shrank does not keep its largest buffer. Its fields differ from this answer's only in
    /// the ETag's digits: when they are as many, those alone are written (the fields rebuilt cost
    /// ~400 instructions a POST).
    static func state(version: Int, reusing previous: inout HTTPResponse?, expectedStateBytes: Int,
                      encode: (inout [UInt8]) -> Void) -> (HTTPResponse, Range<Int>) {
        let capacity = 40 + expectedStateBytes + expectedStateBytes / 16
        var body: [UInt8] = []
        var headers = HTTPHeaders()
        var fieldsWritten = false
        // Moved out, not copied: a copy would hold the buffers while they are cleared.
        if var old = previous.take() {
            swap(&body, &old.body)
            swap(&headers, &old.headers)
            if body.capacity > 2 * capacity + 4096 {
                body = []
            } else if !keepsStatePrefix(&body, version: version) {
                body.removeAll(keepingCapacity: true)
            }
            fieldsWritten = rewritesEntityTag(version, in: &headers)
            if !fieldsWritten { headers.removeAllKeepingRoom() }
        } else {
            headers = HTTPHeaders(reservingBytes: 140)
        }
        body.reserveCapacity(capacity)
        if body.isEmpty { appendPrefix(version: version, member: #","state":"#, to: &body) }
        let start = body.count
        encode(&body)
        let end = body.count
        body.append(UInt8(ascii: "}"))
        if !fieldsWritten { addFields(etagVersion: version, to: &headers) }
        // The head's answer is sent to every read of that version: its fields, made of constants
        // and the version's digits, are not looked at again at each send.
        var response = HTTPResponse(status: 200, headers: headers, body: body)
        response.assumeHeadersChecked()
        return (response, start..<end)
    }

    /// Cuts the answer before, `{"version":M,"state":…}`, down to `{"version":N,"state":` when N
    /// has as many digits as M, writing N's digits over M's: the next version's answer then
    /// writes only its state (the head written anew cost ~200 instructions a POST). False, and
    /// `body` as it was, when the digits' counts differ.
    private static func keepsStatePrefix(_ body: inout [UInt8], version: Int) -> Bool {
        let head: StaticString = #"{"version":"#, member: StaticString = #","state":"#
        let digits = decimalDigits(version)
        let digitsStart = head.utf8CodeUnitCount, digitsEnd = digitsStart + digits, end = digitsEnd + member.utf8CodeUnitCount
        guard version >= 0, body.count > end else { return false }
        let kept = body.withUnsafeMutableBufferPointer { bytes in
            // M's digits are followed by the member where N's would end only when M has as many:
            // digits never hold its comma.
            var i = 0
            while i < member.utf8CodeUnitCount, bytes[digitsEnd + i] == member.utf8Start[i] { i += 1 }
            guard i == member.utf8CodeUnitCount else { return false }
            var v = version, at = digitsEnd
            repeat { at -= 1; bytes[at] = UInt8(48 + v % 10); v /= 10 } while at > digitsStart
            return true
        }
        if kept { body.removeSubrange(end...) }
        return kept
    }

    /// `{"version":N,"patch":[…]}` for `Prefer: return=minimal` (RFC 7240 §4.2), saying the preference was applied.
    static func patch(version: Int, patches: [[UInt8]]) -> HTTPResponse {
        var response = ok(wrap(version: version, member: #","patch":"#, raw: PatchBytes.concatenate(patches)), etagVersion: version)
        response.headers.add("Preference-Applied", "return=minimal")
        return response
    }

    private static func wrap(version: Int, member: StaticString, raw: [UInt8]) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(40 + raw.count)
        appendPrefix(version: version, member: member, to: &body)
        body += raw
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// `{"version":N` and `member` (`,"state":`), written on the stack and appended once.
    private static func appendPrefix(version: Int, member: StaticString, to body: inout [UInt8]) {
        let room = 12 + JSONCursor.maxIntBytes + member.utf8CodeUnitCount
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer in
            let start = buffer.baseAddress.unsafelyUnwrapped
            var c = JSONCursor(start: start, count: room)
            c.writeRawStatic(#"{"version":"#)
            c.write(version)
            c.writeRawStatic(member)
            body.append(contentsOf: UnsafeBufferPointer(start: start, count: c.written(from: start)))
        }
    }
}

/// Byte-level work on encoded RFC 6902 patches, which the store hands over already encoded.
enum PatchBytes {
    /// Joins patch arrays into one: `[a,b]` + `[]` + `[c]` → `[a,b,c]`.
    static func concatenate(_ patches: [[UInt8]]) -> [UInt8] {
        if patches.count == 1, let only = patches.first { return only }
        var out: [UInt8] = [UInt8(ascii: "[")]
        var first = true
        for patch in patches {
            // Each patch is a JSON array; its inside is what lies between the outer brackets.
            guard patch.count > 2 else { continue }
            if !first { out.append(UInt8(ascii: ",")) }
            out += patch[1..<(patch.count - 1)]
            first = false
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
