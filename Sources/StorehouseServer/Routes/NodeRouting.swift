import Foundation

/// Which node a session lives on, read off its id (API.md "Cluster").
///
/// A node started with `--node-id web-1` names every session it creates `web-1.<random>`, so a
/// proxy routes `/sessions/web-1.…` to it by the path alone, and adding a node moves nothing.
/// An id without a dot was created before the node had an id, and stays this node's.
///
/// ```swift
/// let routing = NodeRouting(node: "web-1")
/// routing.newSessionID()                    // "web-1.3q2-7wBqT0uX2mYw9bZ1Qg"
/// routing.misdirection(for: "web-2.3q2-7w…") // 421 misdirected-request, "node": "web-2"
/// ```
struct NodeRouting: Sendable {
    /// This node's id; nil when it has none (a single server).
    let node: String?

    /// The random part: 16 bytes, 22 base64url characters, as before node ids existed.
    func newSessionID() -> String {
        let random = Secrets.randomBase64URL(bytes: 16)
        guard let node else { return random }
        return node + "." + random
    }

    /// The 421 to answer when `id` names a node other than this one, nil when this node may
    /// hold it. RFC 9110 §15.5.20: 421 says this server cannot answer for the target URI, so a
    /// proxy's routing mistake is visible as such rather than as a missing session.
    func misdirection(for id: String) -> Problem? {
        // Only an id this server's kind could have made (a node id, a dot, 22 characters) is
        // another node's; anything else is no session anywhere, 404 as usual.
        // The dot is looked for in the string's own bytes: every request on a session route asks.
        let utf8 = id.utf8
        guard let offset = utf8.withContiguousStorageIfAvailable({ $0.firstIndex(of: UInt8(ascii: ".")) })
                ?? utf8.firstIndex(of: UInt8(ascii: ".")).map({ utf8.distance(from: utf8.startIndex, to: $0) }),
              utf8.count - offset == 23, Secrets.isWellFormedID(id) else { return nil }
        let named = String(id[..<utf8.index(utf8.startIndex, offsetBy: offset)])
        guard named != node else { return nil }
        let here = node.map { "this is node '\($0)'" } ?? "this server has no node id"
        return Problem(421, "misdirected-request", "session '\(id)' lives on node '\(named)'; \(here)",
                       extra: [("node", .string(named))])
    }

    /// The 421 for a request on a session route whose id names another node; nil for every other
    /// request. The router asks before readiness or any lookup (which node answers does not
    /// depend on this node's state), but a method the route does not have stays 405 (RFC 9110
    /// §15.5.6): no node would serve it.
    func misdirection(route: Metrics.Route, method: String, id: String) -> Problem? {
        switch route {
        case .session, .state, .actions, .events, .export:
            guard let problem = misdirection(for: id) else { return nil }
            // Every method the route serves, OPTIONS (a preflight) included.
            let served = method == "OPTIONS" || Endpoint(route: route, method: method == "HEAD" ? "GET" : method) != nil
            return served ? problem : nil
        default:
            return nil
        }
    }

    /// `[a-z0-9][a-z0-9-]{0,31}`: lowercase so it is also a DNS label's start (a Kubernetes pod
    /// name), short enough that `<node>.<22 characters>` stays within a session id's 64.
    static func isValidNodeID(_ text: some StringProtocol) -> Bool {
        text.utf8.withContiguousStorageIfAvailable(isValidNodeID(bytes:)) ?? Array(text.utf8).withUnsafeBufferPointer(isValidNodeID(bytes:))
    }

    static func isValidNodeID(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, bytes.count <= 32 else { return false }
        func lowerOrDigit(_ c: UInt8) -> Bool { (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) }
        return lowerOrDigit(first) && bytes.allSatisfy { lowerOrDigit($0) || $0 == UInt8(ascii: "-") }
    }
}
