/// A version the history window can no longer rebuild: no kept state reaches it, or the actions
/// after the kept state before it have left the ring. `oldest` is the oldest version from which
/// every newer one can still be rebuilt (the host answers 404 `version-not-found` with it).
///
/// ```swift
/// do { _ = try window.replayPlan(to: 3, head: 900) } catch { error.oldest }  // e.g. 800
/// ```
public struct VersionGone: Error, Equatable {
    public let version: Int
    public let oldest: Int

    public init(version: Int, oldest: Int) {
        self.version = version
        self.oldest = oldest
    }
}
