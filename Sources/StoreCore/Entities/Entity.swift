/// A row of an `EntityTable`: identified, encodable, diffable field by field.
public protocol Entity: Sendable, PatchDiffable, JSONDecodable {
    associatedtype ID: EntityID
    var id: ID { get }
}

/// An entity id: a `byId` member name in JSON and an `allIds` element.
public protocol EntityID: Hashable, Sendable, JSONEncodable, JSONDecodable {
    /// The `byId` member name ("3" for 3).
    var key: String { get }
    init?(key: String)
    /// A small non-negative integer naming the id, when it has one: a table then finds the
    /// entity by array index instead of hashing.
    var denseIndex: Int? { get }
}

extension EntityID {
    @inlinable public var denseIndex: Int? { nil }
}

extension Int: EntityID {
    public var key: String { String(self) }
    @inlinable public var denseIndex: Int? { self >= 0 ? self : nil }
    public init?(key: String) {
        // Only the canonical spelling, so "03" and "3" cannot both name one entity.
        guard let v = Int(key), String(v) == key else { return nil }
        self = v
    }
}

extension String: EntityID {
    public var key: String { self }
    public init?(key: String) { self = key }
}
