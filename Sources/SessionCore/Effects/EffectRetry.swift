/// What becomes of an action an effect fed back into its session, once the session answered it:
/// the retry rule, apart from the threads and timers that carry it out.
///
/// Losing an effect's answer would leave the state waiting for it for good (a login in flight),
/// so an action the journal could not take is retried, backing off from `firstDelay` and
/// doubling up to `maxDelay`, `maxRetries` times (about 13 s with the defaults); an action the
/// store refused is dropped (and logged by the host), as is one whose session is gone.
///
/// ```swift
/// let rule = EffectRetry()
/// rule.next(after: .unavailable, attempt: 0)   // .retry(after: .milliseconds(25))
/// rule.next(after: .applied, attempt: 3)       // .done
/// rule.next(after: .unavailable, attempt: 12)  // .drop
/// ```
public struct EffectRetry: Sendable, Equatable {
    public var maxRetries: Int
    public var firstDelay: Duration
    public var maxDelay: Duration

    public init(maxRetries: Int = 12, firstDelay: Duration = .milliseconds(25), maxDelay: Duration = .seconds(2)) {
        self.maxRetries = maxRetries
        self.firstDelay = firstDelay
        self.maxDelay = maxDelay
    }

    /// How the session answered the action.
    public enum Answer: Sendable, Equatable {
        /// Applied (and durable).
        case applied
        /// The journal could not take it, or the server could not apply it now: nothing changed.
        case unavailable
        /// The session is gone (deleted, expired): nothing waits for the answer any more.
        case gone
        /// The store refused it (a reducer's error, a precondition): trying again changes nothing.
        case refused
    }

    public enum Step: Sendable, Equatable {
        /// Nothing more to do.
        case done
        /// Feed the action back again after the delay, as attempt `attempt + 1`.
        case retry(after: Duration)
        /// Give up on it; the host logs why.
        case drop
    }

    /// The step after answer `answer` to attempt `attempt` (0 for the first).
    public func next(after answer: Answer, attempt: Int) -> Step {
        switch answer {
        case .applied, .gone: return .done
        case .refused: return .drop
        case .unavailable:
            guard attempt < maxRetries else { return .drop }
            // `firstDelay` doubled `attempt` times, at most `maxDelay`; no overflow however many.
            var delay = firstDelay
            for _ in 0..<min(attempt, 62) where delay < maxDelay { delay *= 2 }
            return .retry(after: min(delay, maxDelay))
        }
    }
}
