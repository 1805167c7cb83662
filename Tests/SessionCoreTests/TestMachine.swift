import SessionCore
import XCTest

/// An exhaustive harness for `SessionMachine`, in the spirit of the stores' `TestStore`.
///
/// `send` feeds one event and asserts every command it returns, in order, and the whole state
/// after it: `update` turns the previous expected state into the expected one, so a test states
/// each change an event makes and any other change fails it.
///
///     let machine = TestMachine()
///     machine.send(.submit(1, key: nil, head: 0, now: 0), [.proceed(1)])
///     machine.send(.applied(1, versions: 1...1, key: nil, inline: false), [.append(1, epoch: 0)]) { $0.inFlight = 1 }
final class TestMachine {
    typealias Machine = SessionMachine<[UInt8], String>

    /// Everything the machine holds, as the tests compare it.
    struct State: Equatable {
        var durable = 0
        var published = 0
        var inFlight = 0
        var epoch = 0
        var parked = 0
        var deleted = false
        /// Each Idempotency-Key: whether it is durable, and the repeats waiting on it.
        var keys: [String: Key] = [:]
        /// The event streams, in order, and those a shutdown ends once the head settles.
        var subscribers: [Subscribers.Subscriber] = []
        var endingWhenSettled: [SubscriberID] = []
        /// The journal snapshots' schedule: the last snapshot, the window's dropped bytes then,
        /// the action bytes since.
        var snapshot = 0
        var droppedAtSnapshot = 0
        var bytesSinceSnapshot = 0
    }

    struct Key: Equatable {
        var durable: Bool
        var waiters: [RequestID] = []
    }

    private(set) var machine: Machine
    private(set) var expected: State

    init(version: Int = 0, ledger: Machine.Ledger = .init(), snapshots: SnapshotSchedule = .init(every: 1_000, bytes: 64 << 20)) {
        machine = Machine(version: version, ledger: ledger, snapshots: snapshots)
        expected = Self.state(of: machine)
    }

    static func state(of machine: Machine) -> State {
        State(durable: machine.durability.durableVersion, published: machine.durability.publishedVersion,
              inFlight: machine.durability.appendsInFlight, epoch: machine.durability.epoch, parked: machine.parked.count,
              deleted: machine.deleted,
              keys: machine.ledger.entries.mapValues { Key(durable: $0.durable, waiters: $0.waiters) },
              subscribers: machine.subscribers.all, endingWhenSettled: machine.subscribers.endingWhenSettled,
              snapshot: machine.snapshots.version, droppedAtSnapshot: machine.snapshots.droppedBytesAtSnapshot,
              bytesSinceSnapshot: machine.snapshots.bytesSince)
    }

    func send(_ event: Machine.Event, _ commands: [Machine.Command], file: StaticString = #filePath, line: UInt = #line,
              _ update: (inout State) -> Void = { _ in }) {
        var emitted = SessionCommands<String>()
        machine.send(event, into: &emitted)
        XCTAssertEqual(Array(emitted.list), commands, "commands", file: file, line: line)
        update(&expected)
        XCTAssertEqual(Self.state(of: machine), expected, "state", file: file, line: line)
    }

    /// A request applied in memory as `versions`: durable at once, answered, its effects started;
    /// published as well when no stream is there to send them to.
    func applyInMemory(_ request: RequestID, _ versions: ClosedRange<Int>, weight: Int = 0, file: StaticString = #filePath, line: UInt = #line) {
        let unheard = machine.subscribers.isEmpty
        send(.applied(request, versions: versions, key: nil, inline: true, weight: weight),
             [.madeDurable(request, through: versions.upperBound), .reply(request, .answer), .startEffects(request)], file: file, line: line) {
            $0.durable = versions.upperBound
            if unheard { $0.published = versions.upperBound }
            $0.bytesSinceSnapshot += weight
        }
    }

    /// The host's side of an applied request with a key: the ledger entry it inserts.
    func insertKey(_ key: String, versions: ClosedRange<Int>, answer: [UInt8] = Array("first".utf8), bodyHash: [UInt8] = [1]) {
        machine.ledger.insert(key, .init(bodyHash: bodyHash, firstVersion: versions.lowerBound, lastVersion: versions.upperBound,
                                         minimal: false, createdAt: 0, response: answer, durable: false))
        expected.keys[key] = Key(durable: false)
    }
}
