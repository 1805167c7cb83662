/// A moment of the monotonic clock, as the machine keeps it for deadlines: the time since a
/// fixed origin of `ContinuousClock`.
///
/// Not `ContinuousClock.Instant` itself: the standard library does not freeze that type's layout,
/// so an event holding one (`.read`, `.tick`) would make the whole `SessionMachine.Event` laid
/// out at run time, and every event (a POST's `.applied` too) copied, switched over and destroyed
/// through its type's metadata: ~300 instructions a POST (`scripts/instructions-per-request.sh`).
/// `Duration` is frozen.
///
/// ```swift
/// let parked = MonotonicInstant.now
/// parked + .seconds(1) - parked  // .seconds(1)
/// ```
public struct MonotonicInstant: Comparable, Hashable, Sendable {
    /// The time since `origin`; negative for a moment before it.
    public let sinceOrigin: Duration

    /// The first moment a process asked for: every instant is measured from it.
    private static let origin = ContinuousClock.now

    public init(_ instant: ContinuousClock.Instant) { sinceOrigin = instant - Self.origin }

    private init(sinceOrigin: Duration) { self.sinceOrigin = sinceOrigin }

    public static var now: MonotonicInstant { MonotonicInstant(.now) }

    public static func + (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
        MonotonicInstant(sinceOrigin: instant.sinceOrigin + duration)
    }

    public static func - (later: MonotonicInstant, earlier: MonotonicInstant) -> Duration { later.sinceOrigin - earlier.sinceOrigin }

    public static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.sinceOrigin < b.sinceOrigin }
}
