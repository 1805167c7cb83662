#if canImport(Glibc)
import Glibc
#endif

/// Why `HTTPServer.start()` failed.
///
/// ```swift
/// do { try server.start() } catch let error as HTTPServerError { print("cannot listen: \(error)") }
/// ```
public enum HTTPServerError: Error, Sendable, CustomStringConvertible {
    case invalidAddress(String)
    case system(String, Int32)
    case alreadyStarted

    public var description: String {
        switch self {
        case .invalidAddress(let host): return "not an IP address: \(host)"
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        case .alreadyStarted: return "the server was already started"
        }
    }
}
