import StoreCore

/// The rules: each action moves the flow one step, and a step that arrives late (the flow ended
/// another way) changes nothing.
public let signInReducer = Reducer<SignInState, SignInAction> { state, action, _ throws(Rejection) in
    switch action {
    case .emailChanged(let email):
        guard !state.isBusy else { throw .rejected("a sign-in is in progress") }
        state.email = email
        state.step = .editing
        return .none

    case .passwordChanged(let password):
        guard !state.isBusy else { throw .rejected("a sign-in is in progress") }
        state.password = password
        state.step = .editing
        return .none

    case .submitted:
        guard !state.isBusy, state.step != .signedIn else { throw .rejected("a sign-in is in progress or done") }
        guard state.email.contains("@"), state.password.count >= 8 else {
            throw .rejected("needs an address with @ and a password of 8 characters or more")
        }
        state.step = .checkingEmail
        state.error = nil
        return signInFlow(email: state.email, password: state.password)

    case .emailChecked(let deliverable):
        guard state.step == .checkingEmail else { return .none }
        state.step = deliverable ? .signingIn : .failed
        if !deliverable { state.error = "the address cannot receive mail" }
        return .none

    case .signedIn(let token):
        guard state.step == .signingIn else { return .none }
        state.step = .signedIn
        state.token = token
        return .output("signIn/welcome")

    case .failed(let reason):
        guard state.isBusy else { return .none }
        state.step = .failed
        state.error = reason
        return .none
    }
}

/// The whole sign-in as one effect that reads top to bottom, like the code a client would
/// write with async/await; yet every step it takes is an action it sends, so each one is a
/// version in the session's log, a change on its event stream, and replayable.
func signInFlow(email: String, password: String) -> Effect<SignInAction> {
    .run(id: "signIn/flow") { environment, send in
        await environment.sleep(environment.latency)   // the address service
        let deliverable = SignInService.isDeliverable(email)
        send(.emailChecked(deliverable: deliverable))
        guard deliverable else { return }
        await signIn(password: password, environment, send)
    }
}

/// The second half on its own, for a restart that finds the address already checked.
func signInRequest(password: String) -> Effect<SignInAction> {
    .run(id: "signIn/flow") { environment, send in await signIn(password: password, environment, send) }
}

private func signIn(password: String, _ environment: EffectEnvironment, _ send: Send<SignInAction>) async {
    await environment.sleep(environment.latency)   // the sign-in service
    if SignInService.accepts(password: password) {
        send(.signedIn(token: environment.makeToken()))
    } else {
        send(.failed(reason: "wrong password"))
    }
}

/// After a restart, the flow goes on from the step the state is at.
public let signInResume: @Sendable (SignInState) -> Effect<SignInAction> = { state in
    switch state.step {
    case .checkingEmail: signInFlow(email: state.email, password: state.password)
    case .signingIn: signInRequest(password: state.password)
    case .editing, .signedIn, .failed: .none
    }
}

/// The pretend services: an address is deliverable unless its domain ends in `.invalid`, and
/// the password "wrongpassword" is refused.
enum SignInService {
    static func isDeliverable(_ email: String) -> Bool { !email.hasSuffix(".invalid") }
    static func accepts(password: String) -> Bool { password != "wrongpassword" }
}

extension StoreKind where Self == Kind<SignInState, SignInAction> {
    /// `signIn`, for a list of kinds: `[.counter, .signIn]`.
    public static var signIn: Self { Kind(name: "signIn", reducer: signInReducer, resume: signInResume) }
}
