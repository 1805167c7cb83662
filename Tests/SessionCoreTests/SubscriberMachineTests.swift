import SessionCore
import XCTest

/// The event streams' bookkeeping without sockets: which subscriber is sent what and when, every
/// command and every change of state, event by event.
final class SubscriberMachineTests: XCTestCase {
    typealias Subscriber = Subscribers.Subscriber

    /// A snapshot of a head not durable yet is held, and changes skip its subscriber, until the
    /// publication that makes its version durable sends it; a resumed subscriber gets the change.
    func testASnapshotOfAHeadNotDurableIsHeldUntilItsVersionIs() {
        let machine = TestMachine()
        machine.send(.applied(1, versions: 1...1, key: nil, inline: false), [.append(1, epoch: 0)]) { $0.inFlight = 1 }
        machine.send(.subscribe(10, resumedThrough: nil, head: 1, now: 5), [.holdSnapshot(10)]) {
            $0.subscribers = [Subscriber(id: 10, lastVersion: 0, lastWrite: 5, heldSnapshot: 1)]
        }
        machine.send(.subscribe(11, resumedThrough: 0, head: 1, now: 5), []) {
            $0.subscribers.append(Subscriber(id: 11, lastVersion: 0, lastWrite: 5))
        }
        // Nothing durable to publish: the held snapshot waits.
        machine.send(.publish(head: 1, now: 6), [])
        machine.send(.appendAnswered(1, versions: 1...1, key: nil, epoch: 0, durable: true, head: 1),
                     [.madeDurable(1, through: 1), .reply(1, .answer), .startEffects(1)]) {
            $0.inFlight = 0
            $0.durable = 1
        }
        machine.send(.publish(head: 1, now: 7), [.frames(1...1), .sendHeldSnapshot(10), .publish(11, after: 0)]) {
            $0.published = 1
            $0.subscribers = [Subscriber(id: 10, lastVersion: 1, lastWrite: 7), Subscriber(id: 11, lastVersion: 1, lastWrite: 7)]
        }
    }

    /// A durable head is sent as a snapshot at once; a subscriber that resumes gets no snapshot.
    func testASubscriberStartsFromTheDurableHeadOrWhereItResumes() {
        let machine = TestMachine(version: 3)
        machine.send(.subscribe(1, resumedThrough: nil, head: 3, now: 0), [.sendSnapshot(1, replacingQueue: false)]) {
            $0.subscribers = [Subscriber(id: 1, lastVersion: 3, lastWrite: 0)]
        }
        machine.send(.subscribe(2, resumedThrough: 3, head: 3, now: 1), []) {
            $0.subscribers.append(Subscriber(id: 2, lastVersion: 3, lastWrite: 1))
        }
        machine.send(.unsubscribe(1), []) { $0.subscribers = [Subscriber(id: 2, lastVersion: 3, lastWrite: 1)] }
        machine.send(.unsubscribe(1), [])
    }

    /// A subscriber over its bound is reset: changes skip it until its stream drains, and then it
    /// starts over from a snapshot of the head as it is then.
    func testASlowSubscriberIsResetAndStartsOverFromASnapshotOnceDrained() {
        let machine = TestMachine()
        machine.send(.subscribe(10, resumedThrough: 0, head: 0, now: 0), []) {
            $0.subscribers = [Subscriber(id: 10, lastVersion: 0, lastWrite: 0)]
        }
        machine.applyInMemory(1, 1...1)
        machine.send(.publish(head: 1, now: 1), [.frames(1...1), .publish(10, after: 0)]) {
            $0.published = 1
            $0.subscribers[0].lastVersion = 1
            $0.subscribers[0].lastWrite = 1
        }
        machine.send(.slow(10, now: 2), [.reset(10)]) {
            $0.subscribers[0].awaitingSnapshot = true
            $0.subscribers[0].lastWrite = 2
        }
        machine.applyInMemory(2, 2...2)
        machine.send(.publish(head: 2, now: 3), [.frames(2...2)]) { $0.published = 2 }
        machine.send(.drained(10, head: 2, now: 4), [.sendSnapshot(10, replacingQueue: false)]) {
            $0.subscribers[0] = Subscriber(id: 10, lastVersion: 2, lastWrite: 4)
        }
        machine.send(.drained(10, head: 2, now: 5), [])
        machine.applyInMemory(3, 3...3)
        machine.send(.publish(head: 3, now: 6), [.frames(3...3), .publish(10, after: 2)]) {
            $0.published = 3
            $0.subscribers[0].lastVersion = 3
            $0.subscribers[0].lastWrite = 6
        }
    }

    /// A keep-alive goes to each subscriber silent for the interval, reset or not; anything sent
    /// restarts its clock.
    func testHeartbeatsGoToSubscribersSilentForTheInterval() {
        let machine = TestMachine()
        machine.send(.subscribe(1, resumedThrough: 0, head: 0, now: 0), []) { $0.subscribers = [Subscriber(id: 1, lastVersion: 0, lastWrite: 0)] }
        machine.send(.subscribe(2, resumedThrough: 0, head: 0, now: 600), []) {
            $0.subscribers.append(Subscriber(id: 2, lastVersion: 0, lastWrite: 600))
        }
        machine.send(.heartbeat(now: 999, interval: 1000), [])
        machine.send(.heartbeat(now: 1000, interval: 1000), [.keepAlive(1)]) { $0.subscribers[0].lastWrite = 1000 }
        machine.send(.slow(1, now: 1100), [.reset(1)]) {
            $0.subscribers[0].awaitingSnapshot = true
            $0.subscribers[0].lastWrite = 1100
        }
        machine.send(.heartbeat(now: 2100, interval: 1000), [.keepAlive(1), .keepAlive(2)]) {
            $0.subscribers[0].lastWrite = 2100
            $0.subscribers[1].lastWrite = 2100
        }
        machine.applyInMemory(1, 1...1)
        machine.send(.publish(head: 1, now: 2500), [.frames(1...1), .publish(2, after: 0)]) {
            $0.published = 1
            $0.subscribers[1].lastVersion = 1
            $0.subscribers[1].lastWrite = 2500
        }
        machine.send(.heartbeat(now: 3200, interval: 1000), [.keepAlive(1)]) { $0.subscribers[0].lastWrite = 3200 }
    }

    /// At shutdown a stream ends once every change the session applied went out: at once with
    /// nothing in flight, after the publication that makes the head durable otherwise.
    func testDrainEndsAStreamOnceEveryChangeAppliedWentOut() {
        let machine = TestMachine()
        machine.send(.subscribe(1, resumedThrough: 0, head: 0, now: 0), []) { $0.subscribers = [Subscriber(id: 1, lastVersion: 0, lastWrite: 0)] }
        machine.send(.subscribe(2, resumedThrough: 0, head: 0, now: 0), []) { $0.subscribers.append(Subscriber(id: 2, lastVersion: 0, lastWrite: 0)) }
        machine.send(.applied(1, versions: 1...1, key: nil, inline: false), [.append(1, epoch: 0)]) { $0.inFlight = 1 }
        machine.send(.drain(1, head: 1, now: 1), []) { $0.endingWhenSettled = [1] }
        machine.send(.appendAnswered(1, versions: 1...1, key: nil, epoch: 0, durable: true, head: 1),
                     [.madeDurable(1, through: 1), .reply(1, .answer), .startEffects(1)]) {
            $0.inFlight = 0
            $0.durable = 1
        }
        machine.send(.publish(head: 1, now: 2), [.frames(1...1), .publish(1, after: 0), .publish(2, after: 0), .endStream(1, .shutdown)]) {
            $0.published = 1
            $0.subscribers = [Subscriber(id: 2, lastVersion: 1, lastWrite: 2)]
            $0.endingWhenSettled = []
        }
        machine.send(.drain(2, head: 1, now: 3), [.endStream(2, .shutdown)]) { $0.subscribers = [] }
        machine.send(.drain(2, head: 1, now: 3), [])
    }

    /// After a rollback the rebuilt head (durable) replaces a held snapshot of a version that is
    /// gone, and the streams a shutdown waited on end.
    func testARollbackSendsTheRebuiltHeadAndEndsTheDrainedStreams() {
        let machine = TestMachine()
        machine.send(.subscribe(1, resumedThrough: 0, head: 0, now: 0), []) { $0.subscribers = [Subscriber(id: 1, lastVersion: 0, lastWrite: 0)] }
        machine.send(.applied(1, versions: 1...1, key: nil, inline: false), [.append(1, epoch: 0)]) { $0.inFlight = 1 }
        machine.send(.subscribe(2, resumedThrough: nil, head: 1, now: 0), [.holdSnapshot(2)]) {
            $0.subscribers.append(Subscriber(id: 2, lastVersion: 0, lastWrite: 0, heldSnapshot: 1))
        }
        machine.send(.drain(1, head: 1, now: 1), []) { $0.endingWhenSettled = [1] }
        machine.send(.appendAnswered(1, versions: 1...1, key: nil, epoch: 0, durable: false, head: 1),
                     [.rollBack(to: 0), .reply(1, .journalUnavailable)]) {
            $0.inFlight = 0
            $0.epoch = 1
        }
        machine.send(.rebuilt(now: 2), [.sendSnapshot(2, replacingQueue: false), .endStream(1, .shutdown)]) {
            $0.subscribers = [Subscriber(id: 2, lastVersion: 0, lastWrite: 0)]
            $0.endingWhenSettled = []
        }
    }

    /// A delete sends what is durable, then ends every stream; a stream that comes later ends at once.
    func testDeleteEndsEveryStreamAfterWhatIsDurable() {
        let machine = TestMachine()
        machine.send(.subscribe(1, resumedThrough: 0, head: 0, now: 0), []) { $0.subscribers = [Subscriber(id: 1, lastVersion: 0, lastWrite: 0)] }
        machine.applyInMemory(1, 1...1)
        machine.send(.delete(now: 3), [.frames(1...1), .publish(1, after: 0), .endStream(1, .deleted)]) {
            $0.published = 1
            $0.deleted = true
            $0.subscribers = []
        }
        machine.send(.subscribe(2, resumedThrough: nil, head: 1, now: 4), [.endStream(2, .deleted)])
    }
}
