import HTTPEngine

/// Successful JSON answers.
enum JSONAnswer {
    static func ok(_ body: [UInt8], status: Int = 200, etagVersion: Int? = nil) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        if let etagVersion { headers.add("ETag", "\"\(etagVersion)\"") }
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}

extension JSONAnswer {
    /// `{"version":N,"state":…}` with its ETag: the answer of GET state and of a full POST.
    static func state(version: Int, state: [UInt8]) -> HTTPResponse {
        ok(wrap(version: version, member: "state", raw: state), etagVersion: version)
    }

    /// `{"version":N,"patch":[…]}` for `Prefer: return=minimal` (RFC 7240 §4.2), saying the preference was applied.
    static func patch(version: Int, patches: [[UInt8]]) -> HTTPResponse {
        var response = ok(wrap(version: version, member: "patch", raw: PatchBytes.concatenate(patches)), etagVersion: version)
        response.headers.add("Preference-Applied", "return=minimal")
        return response
    }

    private static func wrap(version: Int, member: String, raw: [UInt8]) -> [UInt8] {
        var body = Array(#"{"version":\#(version),"\#(member)":"#.utf8)
        body.reserveCapacity(body.count + raw.count + 1)
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
