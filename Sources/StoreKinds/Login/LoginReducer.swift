import StoreCore

/// The `login` kind's reducer: local rules at once, remote ones as effects that wait the
/// environment's latency and feed their answer back.
public let loginReducer = Reducer<LoginState, LoginAction> { state, action, _ throws(Rejection) in
    switch action {
    case .emailChanged(let email):
        state.email = EmailField(rawValue: email, valid: false, currentValidation: nil)
        guard email.contains("@") else { return .none }
        state.email.currentValidation = "remote"
        return validationEffect(email)

    case .emailValidated(let valid, let email):
        // A verdict is stale once its address was replaced: by one that failed locally (nothing
        // is in flight), or by another one whose own verdict is still to come.
        guard state.email.currentValidation != nil, email == nil || email == state.email.rawValue else { return .none }
        state.email.valid = valid
        state.email.currentValidation = nil
        return .none

    case .passwordChanged(let password):
        state.password = password
        return .none

    case .connectivityChanged(let online):
        state.online = online
        return .none

    case .loginTapped:
        guard state.canLogin else { throw .rejected("cannot log in: needs to be online, a valid email and a password longer than 8") }
        guard !state.loggingIn else { throw .rejected("a login is already in progress") }
        return .output("login/confirmationRequested")

    case .confirmationAnswered(let confirm):
        guard confirm else { return .none }
        guard !state.loggingIn else { throw .rejected("a login is already in progress") }
        guard state.canLogin else { throw .rejected("cannot log in: needs to be online, a valid email and a password longer than 8") }
        state.loggingIn = true
        return loginEffect(password: state.password)

    case .loginSucceeded(let token):
        state.loggingIn = false
        return .output("login/loginFinished", payload: .object(["token": .string(token)]))

    case .loginFailed:
        state.loggingIn = false
        return .output("login/showErrorToast")
    }
}

/// Asks the validation service about `email` and feeds back its verdict.
func validationEffect(_ email: String) -> Effect<LoginAction> {
    .run(id: "login/emailValidation") { environment, send in
        await environment.sleep(environment.latency)  // stands for the validation service
        send(.emailValidated(valid: LoginService.isDeliverable(email), email: email))
    }
}

/// Asks the login service and feeds back success (with a token) or failure.
func loginEffect(password: String) -> Effect<LoginAction> {
    .run(id: "login/login") { environment, send in
        await environment.sleep(environment.latency)  // stands for the login service
        if LoginService.accepts(password: password) {
            send(.loginSucceeded(token: environment.makeToken()))
        } else {
            send(.loginFailed)
        }
    }
}

/// After a restart: a validation or a login that was in flight is asked again, so neither
/// `currentValidation` nor `loggingIn` stays set for good.
public let loginResume: @Sendable (LoginState) -> Effect<LoginAction> = { state in
    var effects: [Effect<LoginAction>] = []
    if state.email.currentValidation != nil { effects.append(validationEffect(state.email.rawValue)) }
    if state.loggingIn { effects.append(loginEffect(password: state.password)) }
    return .merge(effects)
}

/// The pretend remote services of the seeds.
enum LoginService {
    /// Remote validation: every address is deliverable unless its domain ends in `.invalid`.
    static func isDeliverable(_ email: String) -> Bool {
        let domain = email.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        return !domain.hasSuffix(".invalid")
    }

    /// The login service refuses exactly the password "wrongpassword".
    static func accepts(password: String) -> Bool { password != "wrongpassword" }
}
