import HTTPEngine

/// A file compiled into the binary and served as is: its bytes, type and entity tag, computed once.
///
/// ```swift
/// let style = StaticAsset(contentType: "text/css; charset=utf-8", text: "body { margin: 0 }")
/// responder.respond(style.response(for: request))
/// ```
struct StaticAsset: Sendable {
    let contentType: String
    let body: [UInt8]
    /// A strong validator of the bytes (RFC 9110 §8.8.3): FNV-1a of the body, so a new build
    /// with other bytes is fetched again and the same bytes never are.
    let entityTag: String
    /// Headers besides the type, the tag and the caching rule (the page's security policy).
    let extraHeaders: [(String, String)]

    init(contentType: String, text: String, extraHeaders: [(String, String)] = []) {
        self.contentType = contentType
        body = Array(text.utf8)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        entityTag = "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
        self.extraHeaders = extraHeaders
    }

    /// 200 with the body, or 304 when `If-None-Match` already names these bytes (RFC 9110 §13.1.2).
    func response(for request: HTTPRequest, vary: String? = nil) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", contentType)
        headers.add("ETag", entityTag)
        // The binary may be upgraded under the same URL: a browser keeps its copy but asks each time.
        headers.add("Cache-Control", "no-cache")
        headers.add("X-Content-Type-Options", "nosniff")
        if let vary { headers.add("Vary", vary) }
        for (name, value) in extraHeaders { headers.add(name, value) }
        if let condition = request.headers.combined("If-None-Match"), Self.matches(condition, entityTag) {
            return HTTPResponse(status: 304, headers: headers, body: [])
        }
        return HTTPResponse(status: 200, headers: headers, body: body)
    }

    /// RFC 9110 §13.1.2: `*` or any listed tag, compared weakly (a `W/` prefix is ignored).
    static func matches(_ condition: String, _ tag: String) -> Bool {
        condition.split(separator: ",").contains { member in
            var candidate = member.trimmingBlanks()
            if candidate.hasPrefix("W/") { candidate.removeFirst(2) }
            return candidate == "*" || candidate == tag
        }
    }
}

private extension Substring {
    /// Without the spaces and tabs (RFC 9110 §5.6.3 OWS) around it.
    func trimmingBlanks() -> String {
        func blank(_ c: Character) -> Bool { c == " " || c == "\t" }
        return String(drop(while: blank).reversed().drop(while: blank).reversed())
    }
}
