import StoreCore

/// `shop`: a list of product names.
public struct ShopState: StoreState, PatchDiffable {
    public var products: [String]

    public init(products: [String] = []) { self.products = products }
    public static var initial: ShopState { ShopState() }

    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("products"); products.writeJSON(to: &w)
        w.endObject()
    }

    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        products = try json.decodeMember("products", at: path)
    }

    public func diff(from old: ShopState, at path: String, into patch: inout PatchWriter) {
        patch.field(products, old.products, path, "/products")
    }
}

public enum ShopAction: StoreAction, Equatable {
    /// Appends a product.
    case add(String)
    /// Removes every entry equal to the name.
    case remove(String)

    public static let clientTypes = ["shop/add", "shop/remove"]

    public static func payloadSchema(of type: String) -> JSONValue? {
        clientTypes.contains(type) ? PayloadSchema.string : nil
    }

    public init(type: String, payload: JSONValue?) throws(ActionError) {
        switch type {
        case "shop/add": self = .add(try Payload.string(payload))
        case "shop/remove": self = .remove(try Payload.string(payload))
        default: throw Self.unknown(type)
        }
    }

    public var type: String {
        switch self {
        case .add: return "shop/add"
        case .remove: return "shop/remove"
        }
    }

    /// Both shop actions carry one.
    public var hasPayload: Bool { true }

    public var payload: JSONValue? {
        switch self {
        case .add(let name), .remove(let name): return .string(name)
        }
    }
}

public let shopReducer = Reducer<ShopState, ShopAction> { state, action, _ in
    switch action {
    case .add(let name):
        state.products.append(name)
    case .remove(let name):
        state.products.removeAll { $0 == name }
    }
    return .none
}
