import StoreCore

/// Every kind the server offers, in the order `GET /kinds` lists them.
/// Adding a kind = one line here.
public enum KindRegistry {
    public static let all: [any StoreKind] = [
        Kind(name: "counter", reducer: counterAppReducer, resume: counterAppResume),
        Kind(name: "shop", reducer: shopReducer),
        Kind(name: "tasks", reducer: tasksReducer),
        Kind(name: "login", reducer: loginReducer, resume: loginResume),
    ]

    public static func kind(named name: String) -> (any StoreKind)? {
        all.first { $0.name == name }
    }

    /// The default kind of `POST /sessions`.
    public static let defaultKindName = "counter"
}
