/// Why the engine refused a request; becomes an RFC 9457 problem+json answer with `Connection: close`.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    /// The problem type's last path segment, e.g. `bad-request` for `/problems/bad-request`.
    public var slug: String
    public var title: String
    public var detail: String

    public init(status: Int, slug: String, title: String, detail: String) {
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
    }

    public var description: String { "\(status) \(slug): \(detail)" }

    public static func badRequest(_ detail: String) -> HTTPParseError {
        HTTPParseError(status: 400, slug: "bad-request", title: "Bad Request", detail: detail)
    }
    public static func requestTimeout(_ detail: String) -> HTTPParseError {
        HTTPParseError(status: 408, slug: "request-timeout", title: "Request Timeout", detail: detail)
    }
    public static func bodyTooLarge(_ detail: String) -> HTTPParseError {
        HTTPParseError(status: 413, slug: "body-too-large", title: "Body Too Large", detail: detail)
    }
    public static func uriTooLong(_ detail: String) -> HTTPParseError {
        HTTPParseError(status: 414, slug: "uri-too-long", title: "URI Too Long", detail: detail)
    }
    public static func headersTooLarge(_ detail: String) -> HTTPParseError {
        HTTPParseError(status: 431, slug: "headers-too-large", title: "Request Header Fields Too Large", detail: detail)
    }
    public static func versionNotSupported(_ detail: String) -> HTTPParseError {
        HTTPParseError(status: 505, slug: "http-version-not-supported", title: "HTTP Version Not Supported", detail: detail)
    }
    public static func notImplemented(_ detail: String) -> HTTPParseError {
        HTTPParseError(status: 501, slug: "not-implemented", title: "Not Implemented", detail: detail)
    }
    public static func tooManyConnections(_ detail: String) -> HTTPParseError {
        HTTPParseError(status: 503, slug: "too-many-connections", title: "Too Many Connections", detail: detail)
    }
}
