import HTTPEngine
import SessionCore
import StoreCore

/// The changes of one publication, framed once for every subscriber (`.frames`).
struct Publication {
    let from: Int
    let frames: [(version: Int, bytes: [UInt8])]
    let all: SharedChunk
    /// The oldest version framed: a subscriber whose run starts before it is too far behind.
    let firstFrame: Int
}

extension Session {
    /// Registers a stream: writes `retry`, then either the changes after `resumeAfter`
    /// (when they are all still in history) or a snapshot, and from then on every durable change.
    /// Returns false when the session is gone.
    func subscribe(_ stream: HTTPStream, resumeAfter: Int?) -> Bool {
        lock.lock()
        guard !deleted else {
            lock.unlock()
            return false
        }
        var bytes = EventFrames.retry
        var resumedThrough: Int?
        // Clients are only ever shown durable versions: one past them is as unknown as one past the head.
        if let after = resumeAfter, window.canResume(after: after, durable: durableVersion) {
            var replay: [UInt8] = []
            if after < durableVersion {
                for entry in history.entries((after + 1)...durableVersion) {
                    replay += EventFrames.change(version: entry.version, action: RecordCoding.action(entry.record), patch: entry.patch)
                    // A replay larger than a subscriber may queue would only be reset; a snapshot is cheaper.
                    if replay.count > context.subscriberBufferBytes { break }
                }
            }
            if replay.count <= context.subscriberBufferBytes {
                bytes += replay
                resumedThrough = max(after, durableVersion)
            }
        }
        _ = stream.write(bytes)
        let id = requestIDLocked()
        subscribers[id] = Subscriber(stream: stream)
        var after = Afterwards()
        feedLocked(.subscribe(id, resumedThrough: resumedThrough, head: store.version, now: context.now()), into: &after)
        lock.unlock()
        after.run(self)
        context.gauges.subscriberOpened()
        // Registered after unlocking: a stream already closed runs these at once, and they take the lock.
        stream.onClose { [weak self] in self?.unsubscribe(id) }
        // The stream `unowned`, not `weak`: a weak reference gives the stream a side table, which
        // sends every retain and release of it (several per delivery) down the slow path. Safe: only
        // the stream itself runs this closure, from one of its own methods. The session is already
        // weakly held by `onClose`.
        stream.onShutdown { [weak self, unowned stream] in
            if let self, drain(id) { return }
            _ = stream.write(EventFrames.end(reason: "shutdown"))
            stream.finish()
        }
        return true
    }

    func unsubscribe(_ id: SubscriberID) {
        let removed = lock.withLock {
            var after = Afterwards()
            feedLocked(.unsubscribe(id), into: &after)
            return subscribers.removeValue(forKey: id)
        }
        if removed != nil { context.gauges.subscriberClosed() }
    }

    /// At shutdown: the machine ends the stream once every change the session applied went out
    /// (true); false when the session no longer holds it (the caller ends it).
    private func drain(_ id: SubscriberID) -> Bool {
        lock.lock()
        guard subscribers[id] != nil else {
            lock.unlock()
            return false
        }
        var after = Afterwards()
        feedLocked(.drain(id, head: store.version, now: context.now()), into: &after)
        lock.unlock()
        after.run(self)
        return true
    }

    /// Publishes the versions through `version`, which the machine just made durable: here, or, for a session
    /// with at least `fanOutInlineLimit` subscribers, on `context.fanOutQueue`. Queuing a change for
    /// 10,000 streams takes milliseconds, and here is the journal's thread (which completes every
    /// session's appends) or the I/O thread of the posting client, whose answer would wait.
    func publishLocked(through version: Int, outputs: [(Int, StoreOutput)], into after: inout Afterwards) {
        // The history window follows the durable and published versions.
        defer { trimHistoryLocked() }
        guard !machine.subscribers.isEmpty else {
            // The machine published them as it made them durable.
            pendingOutputs = []
            return
        }
        pendingOutputs += outputs
        if machine.subscribers.count < context.fanOutInlineLimit || !machine.subscribers.endingWhenSettled.isEmpty {
            feedLocked(.publish(head: store.version, now: context.now()), into: &after)
            return
        }
        guard !publishScheduled else { return }
        publishScheduled = true
        context.fanOutQueue.async { [self] in
            var after = Afterwards()
            lock.withLock {
                publishScheduled = false
                feedLocked(.publish(head: store.version, now: context.now()), into: &after)
                trimHistoryLocked()
            }
            after.run(self)
        }
    }

    /// Runs one of the machine's subscriber commands under the lock; stream ends go to `after`.
    /// `publication` holds the frames of the feed's `.frames`, `fanOut` its streams' wake-ups.
    func runSubscriberCommandLocked(_ command: Machine.Command, publication: inout Publication?, fanOut: inout StreamFanOut?,
                                    into after: inout Afterwards) {
        switch command {
        case .frames(let versions):
            publication = framesLocked(versions)
        case .publish(let id, let last):
            guard let publication, let subscriber = subscribers[id] else { return }
            // The history keeps every version not yet published (`keepingAfter`), so each subscriber's
            // run is there; were one ever not, the subscriber starts over from a snapshot.
            let chunk = last < publication.from ? publication.all
                : SharedChunk(publication.frames.filter { $0.version > last }.flatMap(\.bytes))
            if fanOut == nil { fanOut = StreamFanOut() }
            if last + 1 < publication.firstFrame
                || fanOut!.write(chunk, to: subscriber.stream, ifPendingAtMost: subscriber.bound(context.subscriberBufferBytes)) == .overBound {
                feedLocked(.slow(id, now: context.now()), into: &after)
            }
        case .reset(let id):
            // Too far behind (API.md "Events"): drop what is queued and start it over from a
            // snapshot, built once the client has read what is already on its way. Built here,
            // a client that stays stalled would cost a whole state's encoding per action.
            guard let subscriber = subscribers[id] else { return }
            subscriber.stream.dropPending { [weak self] in self?.sendAwaitedSnapshot(id) }
            context.metrics.recordSubscriberReset()
        case .sendSnapshot(let id, let replacingQueue):
            subscribers[id]?.heldSnapshot = nil
            subscribers[id]?.send(snapshotFrameLocked().frame, replacingQueue: replacingQueue)
        case .holdSnapshot(let id):
            subscribers[id]?.heldSnapshot = snapshotFrameLocked().frame
        case .sendHeldSnapshot(let id):
            guard let subscriber = subscribers[id], let held = subscriber.heldSnapshot else { return }
            subscriber.heldSnapshot = nil
            subscriber.send(held)
        case .keepAlive(let id):
            _ = subscribers[id]?.stream.write(EventFrames.keepAliveChunk)
        case .endStream(let id, let reason):
            guard let subscriber = subscribers.removeValue(forKey: id) else { return }
            context.gauges.subscriberClosed()
            after.add(.end(subscriber.stream, reason == .deleted ? endReason : "shutdown"))
        default:
            break
        }
    }

    /// The changes of `versions` and their outputs, each encoded once, framed once (as an HTTP
    /// chunk too): every subscriber's stream queues these same arrays.
    private func framesLocked(_ versions: ClosedRange<Int>) -> Publication {
        let outputs = pendingOutputs
        pendingOutputs = []
        let outputFrames = outputs.map { (version: $0.0, bytes: EventFrames.output(version: $0.0, output: $0.1)) }
        var frames: [(version: Int, bytes: [UInt8])] = []
        for entry in history.entries(versions) {
            var bytes = EventFrames.change(version: entry.version, action: RecordCoding.action(entry.record), patch: entry.patch)
            for output in outputFrames where output.version == entry.version { bytes += output.bytes }
            frames.append((entry.version, bytes))
        }
        let all = SharedChunk(frames.count == 1 ? frames[0].bytes : frames.flatMap(\.bytes))
        return Publication(from: versions.lowerBound, frames: frames, all: all, firstFrame: frames.first?.version ?? versions.upperBound + 1)
    }

    /// A reset subscriber's stream drained: it gets the head as a snapshot and changes again.
    private func sendAwaitedSnapshot(_ id: SubscriberID) {
        var after = Afterwards()
        lock.withLock {
            guard let subscriber = subscribers[id], !subscriber.stream.isClosed else { return }
            feedLocked(.drained(id, head: store.version, now: context.now()), into: &after)
        }
        after.run(self)
    }

    /// Writes `: keep-alive` to every subscriber silent for `interval` milliseconds or more.
    func sendHeartbeats(now: Int64, interval: Int64) {
        guard hasSubscribers.load(ordering: .relaxed) else { return }
        var after = Afterwards()
        lock.withLock { feedLocked(.heartbeat(now: now, interval: interval), into: &after) }
        after.run(self)
    }

    /// Marks the session deleted and ends its streams with `end` / `reason`.
    func markDeleted(reason: String = "deleted") {
        var after = Afterwards()
        lock.withLock {
            endReason = reason
            // What is durable goes out; parked reads read again (and find the session gone);
            // idempotent repeats waiting on a request in flight are answered 404, as that request
            // is from its completion; the streams end.
            feedLocked(.delete(now: context.now()), into: &after)
        }
        after.run(self)
    }
}
