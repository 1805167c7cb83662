import Dispatch
import Foundation
import StoreCore

/// A kind whose `latch/hold` blocks its reducer until the test releases it: a batch whose work
/// lasts as long as a test needs, without timing anything. Its state is `Tally`'s.
enum LatchAction: StoreAction, Equatable {
    case add(Int)
    case hold
    static let clientTypes = ["latch/add", "latch/hold"]
    init(type: String, payload: JSONValue?) throws(ActionError) {
        switch type {
        case "latch/add": self = .add(try Payload.int(payload, field: "payload"))
        case "latch/hold": self = .hold
        default: throw Self.unknown(type)
        }
    }
    var type: String { if case .add = self { "latch/add" } else { "latch/hold" } }
    var payload: JSONValue? { if case .add(let n) = self { .int(n) } else { nil } }
}

/// The test's side of `latch/hold`: `entered` is signalled when a reducer reaches it, which
/// then waits for `release`.
final class Latch: Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private static let current = LockedLatch()

    /// The latch the next `latch/hold` waits on.
    static func install() -> Latch {
        let latch = Latch()
        current.set(latch)
        return latch
    }

    static func hold() {
        guard let latch = current.get() else { return }
        latch.entered.signal()
        latch.release.wait()
    }
}

private final class LockedLatch: @unchecked Sendable {  // `latch` is guarded by `lock`
    private let lock = NSLock()
    private var latch: Latch?
    func set(_ value: Latch) { lock.withLock { latch = value } }
    func get() -> Latch? { lock.withLock { latch } }
}

let latchReducer = Reducer<Tally, LatchAction> { state, action, _ throws(Rejection) in
    switch action {
    case .add(let n): state.total += n
    case .hold: Latch.hold()
    }
    return .none
}

let latchKind = Kind(name: "latch", reducer: latchReducer)
