import Foundation
import StoreCore

/// Collects what an effect sends (type and payload), from whatever thread it runs on.
///
/// ```swift
/// let sent = SentActions()
/// await effect.run { type, payload in sent.append(type, payload) }
/// sent.items.map(\.0)   // the types, in order
/// ```
public final class SentActions: @unchecked Sendable {  // every access goes through `lock`
    private let lock = NSLock()
    private var storage: [(String, JSONValue?)] = []
    public init() {}
    public func append(_ type: String, _ payload: JSONValue?) { lock.withLock { storage.append((type, payload)) } }
    public var items: [(String, JSONValue?)] { lock.withLock { storage } }
}
