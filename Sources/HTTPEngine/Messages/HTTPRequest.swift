/// One complete request as parsed from the wire; the body is fully buffered (bounded by `maxBodyBytes`).
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request-target exactly as sent (RFC 9112 §3.2), made into a string when asked for:
    /// the router reads the path as bytes (`withPathBytes`).
    public var target: String {
        get { withTargetBytes { String(decoding: $0, as: UTF8.self) } }
        set {
            targetBytes = Array(newValue.utf8)
            targetCount = targetBytes.count
            (pathLocation, queryRange) = targetBytes.withUnsafeBufferPointer { Self.locate(in: $0) }
        }
    }
    /// The target is `targetBytes[..<targetCount]`. For a parsed request these are the bytes of
    /// its head, shared with `headers` (whose fields follow the target): the request's target
    /// and fields are one allocation, the parser's buffer, reused from request to request.
    private var targetBytes: [UInt8]
    private var targetCount: Int
    /// Where path and query lie in the target, found once on its bytes: a request builds no path
    /// or query string unless someone asks for one.
    private var pathLocation: PathLocation
    private var queryRange: Range<Int>?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Whether the connection stays open after this exchange (RFC 9112 §9.3).
    public var keepAlive: Bool

    enum PathLocation: Sendable, Equatable {
        /// Byte offsets in the target.
        case range(Range<Int>)
        /// An absolute-form target with no path, or an empty path before `?`: the path is "/".
        case root
    }

    public init(method: String, target: String, version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], keepAlive: Bool = true) {
        let bytes = Array(target.utf8)
        let (path, query) = bytes.withUnsafeBufferPointer { Self.locate(in: $0) }
        self.init(method: method, targetBytes: bytes, targetCount: bytes.count, version: version, headers: headers,
                  body: body, keepAlive: keepAlive, pathLocation: path, queryRange: query)
    }

    private init(method: String, targetBytes: [UInt8], targetCount: Int, version: HTTPVersion, headers: HTTPHeaders,
                 body: [UInt8], keepAlive: Bool, pathLocation: PathLocation, queryRange: Range<Int>?) {
        self.method = method
        self.targetBytes = targetBytes
        self.targetCount = targetCount
        self.version = version
        self.headers = headers
        self.body = body
        self.keepAlive = keepAlive
        self.pathLocation = pathLocation
        self.queryRange = queryRange
    }

    /// A parsed request, whose target the parser checked and wrote before the fields in
    /// `headers` (`HTTPHeaders.start` bytes). For an origin-form target (`/…`), `originFormQuery`
    /// is the offset of its `?` (-1 for none), so the target is not scanned again.
    init(method: String, version: HTTPVersion, headers: HTTPHeaders, body: [UInt8], keepAlive: Bool,
         originFormQuery: Int?) {
        let count = headers.start
        let path: PathLocation, query: Range<Int>?
        if let question = originFormQuery {
            // As `locate`: an origin-form path starts at 0 and is never empty (it starts with "/").
            path = .range(0..<(question < 0 ? count : question))
            query = question < 0 ? nil : (question + 1)..<count
        } else {
            (path, query) = headers.storage.withUnsafeBufferPointer { Self.locate(in: UnsafeBufferPointer(rebasing: $0[..<count])) }
        }
        self.init(method: method, targetBytes: headers.storage, targetCount: count, version: version, headers: headers,
                  body: body, keepAlive: keepAlive, pathLocation: path, queryRange: query)
    }

    /// The raw (not percent-decoded) path: the target before `?`.
    public var path: String {
        withPathBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// The raw query after `?`, or nil when the target has none.
    public var query: String? {
        guard let queryRange else { return nil }
        return withTargetBytes { String(decoding: UnsafeBufferPointer(rebasing: $0[queryRange]), as: UTF8.self) }
    }

    /// Calls `body` with the request-target's bytes, without building a string.
    ///
    /// ```swift
    /// let isAsterisk = request.withTargetBytes { $0.count == 1 && $0[0] == UInt8(ascii: "*") }
    /// ```
    public func withTargetBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try targetBytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[..<targetCount])) }
    }

    /// Calls `body` with the raw path's UTF-8 bytes (what `path` holds), without building a string.
    public func withPathBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch pathLocation {
        case .root:
            return try Self.rootPath.withUnsafeBufferPointer(body)
        case .range(let range):
            return try targetBytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) }
        }
    }

    private static let rootPath: [UInt8] = [UInt8(ascii: "/")]

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

    /// Finds path and query in a target's bytes. The parser admits only visible ASCII in a target
    /// (RFC 9112 §3.2), so bytes are characters here.
    static func locate(in u: UnsafeBufferPointer<UInt8>) -> (PathLocation, Range<Int>?) {
        let slash = UInt8(ascii: "/"), question = UInt8(ascii: "?")
        var start = 0
        if u.first != slash {
            // Absolute-form: the path starts after "scheme://authority".
            var i = 0
            while i < u.count {
                if u[i] == UInt8(ascii: ":"), i + 2 < u.count, u[i + 1] == slash, u[i + 2] == slash {
                    var j = i + 3
                    while j < u.count && u[j] != slash && u[j] != question { j += 1 }
                    if j == u.count { return (.root, nil) }
                    if u[j] == question { return (.root, (j + 1)..<u.count) }
                    start = j
                    break
                }
                i += 1
            }
        }
        var q = start
        while q < u.count && u[q] != question { q += 1 }
        if q == u.count { return (.range(start..<u.count), nil) }
        return (q == start ? .root : .range(start..<q), (q + 1)..<u.count)
    }
}
