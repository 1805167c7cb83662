import StoreCore

public enum LoginAction: StoreAction, Equatable {
    case emailChanged(String)
    case passwordChanged(String)
    case connectivityChanged(online: Bool)
    case loginTapped
    case confirmationAnswered(confirm: Bool)
    // Fed back by effects only.
    /// `email` is the address the verdict is for; nil in records written before it was sent.
    case emailValidated(valid: Bool, email: String?)
    case loginSucceeded(token: String)
    case loginFailed

    public static let clientTypes = ["login/emailChanged", "login/passwordChanged", "login/connectivityChanged",
                                     "login/loginTapped", "login/confirmationAnswered"]
    public static let internalTypes = ["login/emailValidated", "login/loginSucceeded", "login/loginFailed"]

    public static func payloadSchema(of type: String) -> JSONValue? {
        switch type {
        case "login/emailChanged", "login/passwordChanged": PayloadSchema.string
        case "login/connectivityChanged": PayloadSchema.object(["online": PayloadSchema.boolean])
        case "login/confirmationAnswered": PayloadSchema.object(["confirm": PayloadSchema.boolean])
        case "login/emailValidated":
            PayloadSchema.object(["valid": PayloadSchema.boolean, "email": PayloadSchema.nullable(PayloadSchema.string)], optional: ["email"])
        case "login/loginSucceeded": PayloadSchema.object(["token": PayloadSchema.string])
        default: nil
        }
    }

    /// What `loginReducer` emits: ask the user to confirm, the session token, an error toast.
    public static let outputTypes = [
        OutputType("login/confirmationRequested"),
        OutputType("login/loginFinished", payloadSchema: PayloadSchema.object(["token": PayloadSchema.string])),
        OutputType("login/showErrorToast"),
    ]

    public init(type: String, payload: JSONValue?) throws(ActionError) {
        switch type {
        case "login/emailChanged": self = .emailChanged(try Payload.string(payload))
        case "login/passwordChanged": self = .passwordChanged(try Payload.string(payload))
        case "login/connectivityChanged":
            self = .connectivityChanged(online: try Payload.member(try Payload.object(payload, type), "online", Payload.bool))
        case "login/loginTapped": self = .loginTapped
        case "login/confirmationAnswered":
            self = .confirmationAnswered(confirm: try Payload.member(try Payload.object(payload, type), "confirm", Payload.bool))
        case "login/emailValidated":
            let object = try Payload.object(payload, type)
            let email: String? = switch object["email"] {
            case nil, .null?: nil
            case let value?: try Payload.string(value, field: "payload.email")
            }
            self = .emailValidated(valid: try Payload.member(object, "valid", Payload.bool), email: email)
        case "login/loginSucceeded":
            self = .loginSucceeded(token: try Payload.member(try Payload.object(payload, type), "token", { (v, f) throws(ActionError) in try Payload.string(v, field: f) }))
        case "login/loginFailed": self = .loginFailed
        default: throw Self.unknown(type)
        }
    }

    public var type: String {
        switch self {
        case .emailChanged: return "login/emailChanged"
        case .passwordChanged: return "login/passwordChanged"
        case .connectivityChanged: return "login/connectivityChanged"
        case .loginTapped: return "login/loginTapped"
        case .confirmationAnswered: return "login/confirmationAnswered"
        case .emailValidated: return "login/emailValidated"
        case .loginSucceeded: return "login/loginSucceeded"
        case .loginFailed: return "login/loginFailed"
        }
    }

    public var hasPayload: Bool {
        switch self {
        case .loginTapped, .loginFailed: return false
        default: return true
        }
    }

    public var payload: JSONValue? {
        switch self {
        case .emailChanged(let s), .passwordChanged(let s): return .string(s)
        case .connectivityChanged(let online): return .object(["online": .bool(online)])
        case .confirmationAnswered(let confirm): return .object(["confirm": .bool(confirm)])
        case .emailValidated(let valid, let email?): return .object(["valid": .bool(valid), "email": .string(email)])
        case .emailValidated(let valid, nil): return .object(["valid": .bool(valid)])
        case .loginSucceeded(let token): return .object(["token": .string(token)])
        case .loginTapped, .loginFailed: return nil
        }
    }
}
