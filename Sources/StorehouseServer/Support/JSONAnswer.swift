import HTTPEngine

/// Successful JSON answers.
enum JSONAnswer {
    static func ok(_ body: [UInt8], status: Int = 200, etagVersion: Int? = nil) -> HTTPResponse {
        var headers = HTTPHeaders()
        // Content-Type, ETag, Vary and at most one more (Preference-Applied, Location, Idempotent-Replayed).
        headers.reserveCapacity(4)
        headers.add("Content-Type", "application/json")
        if let etagVersion { addEntityTag(etagVersion, to: &headers) }
        // Every answer says it (`CORS.addHeaders`); said here, a shared answer (the head's) is
        // not copied to say it.
        headers.add("Vary", "Origin")
        return HTTPResponse(status: status, headers: headers, body: body)
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

    static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            // The magnitude as UInt, so Int.min does not overflow.
            return appendDecimal(UInt(bitPattern: 0) &- UInt(bitPattern: value), to: &bytes)
        }
        appendDecimal(UInt(value), to: &bytes)
    }

    private static func appendDecimal(_ value: UInt, to bytes: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for the 20 digits of UInt.max
        withUnsafeMutableBytes(of: &digits) { buffer in
            var v = value, n = 0
            repeat { buffer[23 - n] = UInt8(48 + v % 10); v /= 10; n += 1 } while v > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(24 - n)...]))
        }
    }
}

extension JSONAnswer {
    /// `{"version":N,"state":…}` with its ETag: the answer of GET state and of a full POST.
    static func state(version: Int, state: [UInt8]) -> HTTPResponse {
        ok(wrap(version: version, member: "state", raw: state), etagVersion: version)
    }

    /// The same answer with the state written by `encode` straight into the body, and where it lies there.
    /// `expectedStateBytes` (the previous version's size) sizes the body once: a fixed reserve
    /// would make every answer of a small state a large-bin `malloc`, which consolidates glibc's
    /// fast bins, and a large state would grow by doubling.
    static func state(version: Int, expectedStateBytes: Int, encode: (inout [UInt8]) -> Void) -> (HTTPResponse, Range<Int>) {
        var body: [UInt8] = []
        body.reserveCapacity(40 + expectedStateBytes + expectedStateBytes / 16)
        body.append(contentsOf: #"{"version":"#.utf8)
        appendDecimal(version, to: &body)
        body.append(contentsOf: #","state":"#.utf8)
        let start = body.count
        encode(&body)
        let end = body.count
        body.append(UInt8(ascii: "}"))
        return (ok(body, etagVersion: version), start..<end)
    }

    /// `{"version":N,"patch":[…]}` for `Prefer: return=minimal` (RFC 7240 §4.2), saying the preference was applied.
    static func patch(version: Int, patches: [[UInt8]]) -> HTTPResponse {
        var response = ok(wrap(version: version, member: "patch", raw: PatchBytes.concatenate(patches)), etagVersion: version)
        response.headers.add("Preference-Applied", "return=minimal")
        return response
    }

    private static func wrap(version: Int, member: StaticString, raw: [UInt8]) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(32 + raw.count)
        body.append(contentsOf: #"{"version":"#.utf8)
        appendDecimal(version, to: &body)
        body.append(contentsOf: #",""#.utf8)
        body.append(contentsOf: UnsafeBufferPointer(start: member.utf8Start, count: member.utf8CodeUnitCount))
        body.append(contentsOf: #"":"#.utf8)
        body += raw
        body.append(UInt8(ascii: "}"))
        return body
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
