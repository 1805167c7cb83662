import StoreCore

/// `signIn`: an address and a password, then one flow that checks the address and signs in.
public struct SignInState: StoreState, PatchDiffable, Equatable {
    /// Where the flow stands.
    public enum Step: String, Sendable {
        case editing, checkingEmail, signingIn, signedIn, failed
    }

    public var email = ""
    public var password = ""
    public var step = Step.editing
    /// The session token once signed in.
    public var token: String?
    /// Why the last attempt failed.
    public var error: String?

    public static var initial: SignInState { SignInState() }
    public init() {}

    /// The flow is running: the fields are locked until it ends.
    public var isBusy: Bool { step == .checkingEmail || step == .signingIn }

    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("email"); w.write(email)
        w.key("password"); w.write(password)
        w.key("step"); w.write(step.rawValue)
        w.key("token"); token.writeJSON(to: &w)
        w.key("error"); error.writeJSON(to: &w)
        w.endObject()
    }

    public init(json: JSONValue, path: String) throws(StateDecodingError) {
        email = try json.decodeMember("email", at: path)
        password = try json.decodeMember("password", at: path)
        let step: String = try json.decodeMember("step", at: path)
        guard let known = Step(rawValue: step) else {
            throw StateDecodingError(path: path + "/step", message: "must be editing, checkingEmail, signingIn, signedIn or failed")
        }
        self.step = known
        token = try json.decodeMember("token", at: path)
        error = try json.decodeMember("error", at: path)
    }

    public func diff(from old: SignInState, at path: String, into patch: inout PatchWriter) {
        patch.field(email, old.email, path, "/email")
        patch.field(password, old.password, path, "/password")
        patch.field(step.rawValue, old.step.rawValue, path, "/step")
        patch.field(token, old.token, path, "/token")
        patch.field(error, old.error, path, "/error")
    }
}
