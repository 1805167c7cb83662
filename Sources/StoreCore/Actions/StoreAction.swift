/// A kind's typed action: decoded from a Flux Standard Action and encoded back.
///
/// `init(type:payload:)` throws `.unknownAction` (listing the valid types) for a type it does
/// not know and `.invalidPayload` (naming the field) for a payload that does not fit.
public protocol StoreAction: Sendable {
    /// Types a client may send.
    static var clientTypes: [String] { get }
    /// Types only the kind's effects send (403 `internal-action` from a client).
    static var internalTypes: [String] { get }
    init(type: String, payload: JSONValue?) throws(ActionError)
    var type: String { get }
    var payload: JSONValue? { get }
    /// Whether `payload` is not nil, answered without building the payload (the store asks it
    /// of every client action that comes with one).
    var hasPayload: Bool { get }
    /// The JSON Schema of `type`'s payload (`PayloadSchema`), nil when it takes none; written
    /// beside `init(type:payload:)`, which it describes.
    static func payloadSchema(of type: String) -> JSONValue?
    /// The one-off outputs the kind's reducer emits.
    static var outputTypes: [OutputType] { get }
}

extension StoreAction {
    public static var internalTypes: [String] { [] }
    public static func payloadSchema(of type: String) -> JSONValue? { nil }
    public static var outputTypes: [OutputType] { [] }
    /// For kinds that do not say: builds the payload to see.
    public var hasPayload: Bool { payload != nil }
    public static var allTypes: [String] { clientTypes + internalTypes }

    /// The error for a type this action does not know.
    public static func unknown(_ type: String) -> ActionError {
        .unknownAction(type: type, validTypes: clientTypes)
    }
}

/// Reading payloads with errors that name the field (`payload.title: expected a string`).
/// Inlinable, so a kind's decoding runs specialized for its types.
public enum Payload {
    @inlinable
    public static func object(_ payload: JSONValue?, _ type: String) throws(ActionError) -> [String: JSONValue] {
        guard case .object(let o)? = payload else {
            throw .invalidPayload(detail: "payload: \(type) expects an object, got \(payload?.typeName ?? "none")")
        }
        return o
    }

    @inlinable
    public static func string(_ payload: JSONValue?, field: String = "payload") throws(ActionError) -> String {
        guard case .string(let s)? = payload else {
            throw .invalidPayload(detail: "\(field): expected a string, got \(payload?.typeName ?? "none")")
        }
        return s
    }

    @inlinable
    public static func int(_ payload: JSONValue?, field: String) throws(ActionError) -> Int {
        guard case .int(let i)? = payload else {
            throw .invalidPayload(detail: "\(field): expected an integer, got \(payload?.typeName ?? "none")")
        }
        return i
    }

    @inlinable
    public static func bool(_ payload: JSONValue?, field: String) throws(ActionError) -> Bool {
        guard case .bool(let b)? = payload else {
            throw .invalidPayload(detail: "\(field): expected a boolean, got \(payload?.typeName ?? "none")")
        }
        return b
    }

    /// Member `name` of an object payload, as `read` wants it; errors say `payload.name`.
    ///
    ///     let id = try Payload.member(object, "id", Payload.int)
    @inlinable
    public static func member<T>(_ object: [String: JSONValue], _ name: String,
                                 _ read: (JSONValue?, String) throws(ActionError) -> T) throws(ActionError) -> T {
        let value = object[name]
        // The field's name is built only to say what is wrong: a member that reads is read
        // without it, one that does not is read again with it (the same refusal, named).
        do { return try read(value, "") } catch { return try read(value, "payload." + name) }
    }
}
