#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything an effect may use from the outside world, injected so tests run without real
/// waits, clocks or randomness.
///
///     var env = EffectEnvironment.live
///     env.sleep = { _ in }            // tests: remote calls answer at once
public struct EffectEnvironment: Sendable {
    /// How long effects that stand for remote calls wait (default 50 ms, `--effect-latency-ms`).
    public var latency: Duration
    /// Waits; tests inject one that returns at once.
    public var sleep: @Sendable (Duration) async -> Void
    /// Milliseconds since the Unix epoch, for effects that need the time.
    public var now: @Sendable () -> Int64
    /// A fresh opaque token (the login effect's service).
    public var makeToken: @Sendable () -> String

    public init(latency: Duration = .milliseconds(50),
                sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) },
                now: @escaping @Sendable () -> Int64 = EffectEnvironment.systemMillis,
                makeToken: @escaping @Sendable () -> String = EffectEnvironment.randomToken) {
        self.latency = latency
        self.sleep = sleep
        self.now = now
        self.makeToken = makeToken
    }

    /// Real time and randomness.
    public static var live: EffectEnvironment { EffectEnvironment() }

    /// Instant sleep, a fixed clock and a counter-free fixed token: for tests and replays.
    public static var immediate: EffectEnvironment {
        EffectEnvironment(latency: .zero, sleep: { _ in }, now: { 0 }, makeToken: { "test-token" })
    }

    public static let systemMillis: @Sendable () -> Int64 = {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    public static let randomToken: @Sendable () -> String = {
        var g = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        return String((0..<32).map { _ in alphabet[Int(g.next() % 64)] })
    }
}
