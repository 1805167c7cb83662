import StoreCore

/// Every kind the server offers. Adding a kind = one line here.
public enum KindRegistry {
    public static let all: [any StoreKind] = [
        Kind(name: "shop", reducer: shopReducer),
    ]

    public static func kind(named name: String) -> (any StoreKind)? {
        all.first { $0.name == name }
    }
}
