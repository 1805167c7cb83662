import StoreCore

/// The kinds a server offers, in the order `GET /kinds` lists them; the first is the default
/// kind of `POST /sessions`.
///
/// The four shipped kinds are ``shipped``. A package that depends on Storehouse passes its own
/// list to the server instead, shipped kinds and its own side by side:
///
/// ```swift
/// let kinds = try KindRegistry([.counter, Kind(name: "notes", reducer: notesReducer)])
/// kinds.kind(named: "notes")?.actionTypes   // ["notes/add"]
/// ```
public struct KindRegistry: Sendable {
    /// Every kind, in the order given.
    public let all: [any StoreKind]

    /// Throws when the list is empty or two kinds share a name: a session records only its
    /// kind's name, so a name must say which reducer replays it.
    public init(_ kinds: [any StoreKind]) throws(KindRegistryError) {
        guard !kinds.isEmpty else { throw KindRegistryError(description: "a server needs at least one kind") }
        var seen = Set<String>()
        for kind in kinds {
            guard !kind.name.isEmpty else { throw KindRegistryError(description: "a kind needs a name") }
            guard seen.insert(kind.name).inserted else { throw KindRegistryError(description: "two kinds are called '\(kind.name)'") }
        }
        all = kinds
    }

    /// The four kinds Storehouse ships: `counter`, `shop`, `tasks` and `login`.
    public static let shipped = KindRegistry(unchecked: [.counter, .shop, .tasks, .login])

    private init(unchecked kinds: [any StoreKind]) { all = kinds }

    /// The kind called `name`, nil when there is none.
    public func kind(named name: String) -> (any StoreKind)? {
        all.first { $0.name == name }
    }

    /// The kind of a `POST /sessions` that names none: the first one.
    public var defaultKindName: String { all.first?.name ?? "" }

    /// The kinds' names, in order.
    public var names: [String] { all.map(\.name) }
}

/// Why a list of kinds cannot be served.
public struct KindRegistryError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(description: String) { self.description = description }
}
