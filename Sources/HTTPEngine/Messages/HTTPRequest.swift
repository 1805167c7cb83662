/// One complete request as parsed from the wire; the body is fully buffered (bounded by `maxBodyBytes`).
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request-target exactly as sent (RFC 9112 §3.2).
    public var target: String
    /// The raw (not percent-decoded) path: the target before `?`.
    public var path: String
    /// The raw query after `?`, or nil when the target has none.
    public var query: String?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Whether the connection stays open after this exchange (RFC 9112 §9.3).
    public var keepAlive: Bool

    public init(method: String, target: String, version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], keepAlive: Bool = true) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.keepAlive = keepAlive
        (self.path, self.query) = HTTPRequest.split(target: target)
    }

    /// The query's `name=value` pairs, percent-decoded, `+` read as a space (HTML form encoding).
    public func queryItems() -> [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        var items: [(name: String, value: String)] = []
        for part in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let eq = part.firstIndex(of: UInt8(ascii: "=")) {
                items.append((name: Self.formDecode(part[part.startIndex..<eq]),
                              value: Self.formDecode(part[part.index(after: eq)...])))
            } else {
                items.append((name: Self.formDecode(part), value: ""))
            }
        }
        return items
    }

    /// The first query value named `name`, decoded.
    public func queryItem(_ name: String) -> String? {
        queryItems().first { $0.name == name }?.value
    }

    static func formDecode(_ bytes: Substring.UTF8View.SubSequence) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if b == UInt8(ascii: "%"),
                      let j = bytes.index(i, offsetBy: 2, limitedBy: bytes.index(before: bytes.endIndex)),
                      let hi = ASCII.hexValue(bytes[bytes.index(after: i)]), let lo = ASCII.hexValue(bytes[j]) {
                out.append(hi << 4 | lo)
                i = j
            } else {
                out.append(b)
            }
            i = bytes.index(after: i)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Splits an origin-form or absolute-form target into path and query (RFC 9112 §3.2.1, §3.2.2).
    static func split(target: String) -> (String, String?) {
        var pathPart = Substring(target)
        if !target.hasPrefix("/") {
            // Absolute-form: the path starts after "scheme://authority".
            let u = target.utf8
            var authorityStart: String.Index?
            var i = u.startIndex
            while i < u.endIndex {
                if u[i] == UInt8(ascii: ":"), u[u.index(after: i)...].starts(with: "//".utf8) {
                    authorityStart = u.index(i, offsetBy: 3)
                    break
                }
                i = u.index(after: i)
            }
            if let authorityStart {
                let afterAuthority = target[authorityStart...]
                if let slash = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                    pathPart = afterAuthority[slash...]
                } else {
                    pathPart = "/"
                }
                if pathPart.first == "?" { return ("/", String(pathPart.dropFirst())) }
            }
        }
        if let q = pathPart.firstIndex(of: "?") {
            let path = pathPart[..<q]
            return (path.isEmpty ? "/" : String(path), String(pathPart[pathPart.index(after: q)...]))
        }
        return (String(pathPart), nil)
    }
}
