import HTTPEngine
import SessionCore
import StoreCore

/// A session's effects: started on the cooperative pool once their actions are durable, and the
/// actions they feed back, retried as `EffectRetry` rules.
extension Session {
    /// An effect starts or feeds an action back: counted for the shutdown's wait and for
    /// hibernation, which leaves a session with one running in memory.
    private func effectBegins() {
        context.gauges.effects.enter()
        effectsRunning.add(1, ordering: .relaxed)
    }

    private func effectEnds() {
        effectsRunning.subtract(1, ordering: .relaxed)
        context.gauges.effects.leave()
    }

    /// Runs effects on the cooperative pool; what they send comes back through `submit` as source `effect`.
    func start(_ effects: [PendingEffect]) {
        for effect in effects {
            effectBegins()
            // The effect holds the session until it finishes; a deleted session refuses what it sends.
            Task { [self] in
                await effect.run { type, payload in self.receiveFromEffect(EffectAction(type: type, payload: payload)) }
                effectEnds()
            }
        }
    }

    /// Feeds an effect's action back; its answer comes to `effectAnswered`.
    private func receiveFromEffect(_ action: EffectAction) {
        let record = ActionRecord(type: action.type, payload: action.payload, meta: nil, at: context.now(), source: .effect)
        effectBegins()
        submit(ActionSubmission(records: [record], ifMatch: nil, idempotency: nil, minimal: true), replyTo: .effect(action))
    }

    /// The answer to an action an effect fed back: done, retried later, or dropped, as
    /// `EffectRetry` (SessionCore) rules; the host only maps the answer and runs the step.
    func effectAnswered(_ action: EffectAction, _ response: HTTPResponse) {
        defer { effectEnds() }
        let answer: EffectRetry.Answer = switch response.status {
        case ..<400: .applied
        case 404: .gone
        case 503: .unavailable
        default: .refused
        }
        switch Self.effectRetry.next(after: answer, attempt: action.attempt) {
        case .done:
            return
        case .drop:
            ServerLog.error("session \(id): effect action \(action.type) answered \(response.status); dropped")
        case .retry(let delay):
            effectBegins()
            let retry = EffectAction(type: action.type, payload: action.payload, attempt: action.attempt + 1)
            Task { [self] in
                try? await Task.sleep(for: delay)
                receiveFromEffect(retry)
                effectEnds()
            }
        }
    }

    /// 12 retries from 25 ms, doubling up to 2 s: about 13 s in all.
    static let effectRetry = EffectRetry()
}
