import StoreCore

/// The email field: what was typed, whether it is valid, and which validation is running.
public struct EmailField: PatchDiffable, JSONDecodable, Sendable {
    public var rawValue: String
    public var valid: Bool
    /// "remote" while the remote validation effect runs, nil otherwise.
    public var currentValidation: String?

    public init(rawValue: String = "", valid: Bool = false, currentValidation: String? = nil) {
        self.rawValue = rawValue
        self.valid = valid
        self.currentValidation = currentValidation
    }

    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("rawValue"); w.write(rawValue)
        w.key("valid"); w.write(valid)
        w.key("currentValidation"); currentValidation.writeJSON(to: &w)
        w.endObject()
    }

    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        rawValue = try json.decodeMember("rawValue", at: path)
        valid = try json.decodeMember("valid", at: path)
        currentValidation = try json.decodeMember("currentValidation", at: path)
        // The only validation that runs is the remote one (what `resume` would ask again).
        guard currentValidation == nil || currentValidation == "remote" else {
            throw StateDecodingError(path: path + "/currentValidation", message: #"must be "remote" or null"#)
        }
        // The local rule comes first: an address without "@" is never valid nor validated remotely.
        if !rawValue.contains("@"), valid || currentValidation != nil {
            throw StateDecodingError(path: path + (valid ? "/valid" : "/currentValidation"), message: #"an address without "@" fails the local check"#)
        }
    }

    public func diff(from old: EmailField, at path: String, into patch: inout PatchWriter) {
        patch.field(rawValue, old.rawValue, path, "/rawValue")
        patch.field(valid, old.valid, path, "/valid")
        patch.field(currentValidation, old.currentValidation, path, "/currentValidation")
    }
}

/// `login`: a login form whose validation and login run as effects.
public struct LoginState: StoreState, PatchDiffable {
    public var online: Bool
    public var email: EmailField
    public var password: String
    public var loggingIn: Bool

    /// Derived, never stored: online, a valid email and a password longer than 8.
    public var canLogin: Bool { online && email.valid && password.count > 8 }

    public init(online: Bool = true, email: EmailField = EmailField(), password: String = "", loggingIn: Bool = false) {
        self.online = online
        self.email = email
        self.password = password
        self.loggingIn = loggingIn
    }

    public static var initial: LoginState { LoginState() }

    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("online"); w.write(online)
        w.key("email"); email.writeJSON(to: &w)
        w.key("password"); w.write(password)
        w.key("loggingIn"); w.write(loggingIn)
        w.key("canLogin"); w.write(canLogin)
        w.endObject()
    }

    /// `canLogin` is read for shape only and recomputed: a restored state cannot contradict it.
    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        online = try json.decodeMember("online", at: path)
        email = try json.decodeMember("email", at: path)
        password = try json.decodeMember("password", at: path)
        loggingIn = try json.decodeMember("loggingIn", at: path)
        let _: Bool = try json.decodeMember("canLogin", at: path)
    }

    public func diff(from old: LoginState, at path: String, into patch: inout PatchWriter) {
        patch.field(online, old.online, path, "/online")
        patch.field(email, old.email, path, "/email")
        patch.field(password, old.password, path, "/password")
        patch.field(loggingIn, old.loggingIn, path, "/loggingIn")
        patch.field(canLogin, old.canLogin, path, "/canLogin")
    }
}
