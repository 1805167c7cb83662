import StoreCore

/// Actions of the `tasks` kind; every id must name an existing task (422 otherwise).
public enum TasksAction: StoreAction, Equatable {
    case add(title: String)
    case rename(id: Int, title: String)
    case toggleDone(id: Int)
    case remove(id: Int)
    case favorite(id: Int)
    case unfavorite(id: Int)

    public static let clientTypes = ["tasks/add", "tasks/rename", "tasks/toggleDone", "tasks/remove",
                                     "tasks/favorite", "tasks/unfavorite"]

    public static func payloadSchema(of type: String) -> JSONValue? {
        switch type {
        case "tasks/add": PayloadSchema.object(["title": PayloadSchema.string])
        case "tasks/rename": PayloadSchema.object(["id": PayloadSchema.integer, "title": PayloadSchema.string])
        case "tasks/toggleDone", "tasks/remove", "tasks/favorite", "tasks/unfavorite": PayloadSchema.object(["id": PayloadSchema.integer])
        default: nil
        }
    }

    public init(type: String, payload: JSONValue?) throws(ActionError) {
        switch type {
        case "tasks/add":
            let o = try Payload.object(payload, type)
            self = .add(title: try Payload.member(o, "title", Payload.string))
        case "tasks/rename":
            let o = try Payload.object(payload, type)
            self = .rename(id: try Payload.member(o, "id", Payload.int), title: try Payload.member(o, "title", Payload.string))
        case "tasks/toggleDone": self = .toggleDone(id: try Self.id(payload, type))
        case "tasks/remove": self = .remove(id: try Self.id(payload, type))
        case "tasks/favorite": self = .favorite(id: try Self.id(payload, type))
        case "tasks/unfavorite": self = .unfavorite(id: try Self.id(payload, type))
        default: throw Self.unknown(type)
        }
    }

    private static func id(_ payload: JSONValue?, _ type: String) throws(ActionError) -> Int {
        try Payload.member(try Payload.object(payload, type), "id", Payload.int)
    }

    public var type: String {
        switch self {
        case .add: return "tasks/add"
        case .rename: return "tasks/rename"
        case .toggleDone: return "tasks/toggleDone"
        case .remove: return "tasks/remove"
        case .favorite: return "tasks/favorite"
        case .unfavorite: return "tasks/unfavorite"
        }
    }

    /// Every tasks action carries one.
    public var hasPayload: Bool { true }

    public var payload: JSONValue? {
        switch self {
        case .add(let title): return .object(["title": .string(title)])
        case .rename(let id, let title): return .object(["id": .int(id), "title": .string(title)])
        case .toggleDone(let id), .remove(let id), .favorite(let id), .unfavorite(let id): return .object(["id": .int(id)])
        }
    }
}
