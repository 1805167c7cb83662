import StoreCore

public enum SignInAction: StoreAction, Equatable {
    case emailChanged(String)
    case passwordChanged(String)
    case submitted
    // Sent by the flow only; each is a version in the session's log.
    case emailChecked(deliverable: Bool)
    case signedIn(token: String)
    case failed(reason: String)

    public static let clientTypes = ["signIn/emailChanged", "signIn/passwordChanged", "signIn/submitted"]
    public static let internalTypes = ["signIn/emailChecked", "signIn/signedIn", "signIn/failed"]

    public init(type: String, payload: JSONValue?) throws(ActionError) {
        switch type {
        case "signIn/emailChanged": self = .emailChanged(try Payload.string(payload))
        case "signIn/passwordChanged": self = .passwordChanged(try Payload.string(payload))
        case "signIn/submitted": self = .submitted
        case "signIn/emailChecked":
            self = .emailChecked(deliverable: try Payload.member(try Payload.object(payload, type), "deliverable", Payload.bool))
        case "signIn/signedIn":
            self = .signedIn(token: try Payload.member(try Payload.object(payload, type), "token", { (v, f) throws(ActionError) in try Payload.string(v, field: f) }))
        case "signIn/failed":
            self = .failed(reason: try Payload.member(try Payload.object(payload, type), "reason", { (v, f) throws(ActionError) in try Payload.string(v, field: f) }))
        default: throw Self.unknown(type)
        }
    }

    public var type: String {
        switch self {
        case .emailChanged: "signIn/emailChanged"
        case .passwordChanged: "signIn/passwordChanged"
        case .submitted: "signIn/submitted"
        case .emailChecked: "signIn/emailChecked"
        case .signedIn: "signIn/signedIn"
        case .failed: "signIn/failed"
        }
    }

    public var payload: JSONValue? {
        switch self {
        case .emailChanged(let text), .passwordChanged(let text): .string(text)
        case .submitted: nil
        case .emailChecked(let deliverable): .object(["deliverable": .bool(deliverable)])
        case .signedIn(let token): .object(["token": .string(token)])
        case .failed(let reason): .object(["reason": .string(reason)])
        }
    }
}
