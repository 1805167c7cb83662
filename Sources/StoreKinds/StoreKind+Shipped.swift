import StoreCore

// The shipped kinds as members, so a list of kinds reads `[.counter, .login, myKind]`.

extension StoreKind where Self == Kind<CounterAppState, CounterAppAction> {
    /// `counter`: a count, its primes and an nth-prime effect (three features composed).
    ///
    /// ```swift
    /// try Storehouse.main(kinds: [.counter, myKind])
    /// ```
    public static var counter: Self { Kind(name: "counter", reducer: counterAppReducer, resume: counterAppResume) }
}

extension StoreKind where Self == Kind<ShopState, ShopAction> {
    /// `shop`: a shopping list.
    ///
    /// ```swift
    /// let kinds = try KindRegistry([.shop])
    /// ```
    public static var shop: Self { Kind(name: "shop", reducer: shopReducer) }
}

extension StoreKind where Self == Kind<TasksState, TasksAction> {
    /// `tasks`: a normalized task list in an `EntityTable`.
    ///
    /// ```swift
    /// let kinds = try KindRegistry([.tasks])
    /// ```
    public static var tasks: Self { Kind(name: "tasks", reducer: tasksReducer) }
}

extension StoreKind where Self == Kind<LoginState, LoginAction> {
    /// `login`: a login form whose validation and login run as effects.
    ///
    /// ```swift
    /// let kinds = try KindRegistry([.login])
    /// ```
    public static var login: Self { Kind(name: "login", reducer: loginReducer, resume: loginResume) }
}
