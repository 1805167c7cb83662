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
