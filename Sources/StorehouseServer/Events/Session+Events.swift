import HTTPEngine
import StoreCore

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
        var resumed = false
        // Clients are only ever shown durable versions: one past them is as unknown as one past the head.
        if let after = resumeAfter, canResumeLocked(after: after, head: durableVersion) {
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
                resumed = true
            }
        }
        let subscriber: Subscriber
        _ = stream.write(bytes)
        if resumed, let after = resumeAfter {
            subscriber = Subscriber(stream: stream, lastVersion: max(after, durableVersion), lastWrite: context.now())
        } else {
            subscriber = Subscriber(stream: stream, lastVersion: durableVersion, lastWrite: context.now())
            sendSnapshotLocked(to: subscriber)
        }
        let key = ObjectIdentifier(subscriber)
        subscribers[key] = subscriber
        lock.unlock()
        context.gauges.subscriberOpened()
        // Registered after unlocking: a stream already closed runs these at once, and they take the lock.
        stream.onClose { [weak self] in self?.unsubscribe(key) }
        // The stream `unowned`, not `weak`: a weak reference gives the stream a side table, which
        // sends every retain and release of it (several per delivery) down the slow path. Safe: only
        // the stream itself runs this closure, from one of its own methods. The session is already
        // weakly held by `onClose`.
        stream.onShutdown { [weak self, unowned stream] in
            // Every change the session applied goes out before `end`: what is durable now (a
            // publication may be waiting on the fan-out queue), and what is still on its way to the
            // journal, whose answer the client gets during the drain (the stream ends then).
            if let self, lock.withLock({ endsWhenSettledLocked(stream) }) { return }
            _ = stream.write(EventFrames.end(reason: "shutdown"))
            stream.finish()
        }
        return true
    }

    /// Resuming needs every change after `after` still in history, and `after` not ahead of the head.
    private func canResumeLocked(after: Int, head: Int) -> Bool {
        guard after >= 0, after <= head else { return false }
        if after >= durableVersion { return true }
        guard let first = history.firstVersion else { return false }
        return first <= after + 1
    }

    func unsubscribe(_ key: ObjectIdentifier) {
        let removed = lock.withLock { subscribers.removeValue(forKey: key) }
        if removed != nil { context.gauges.subscriberClosed() }
    }

    /// Publishes the versions through `version`, which the machine just made durable: here, or, for a session
    /// with at least `fanOutInlineLimit` subscribers, on `context.fanOutQueue`. Queuing a change for
    /// 10,000 streams takes milliseconds, and here is the journal's thread (which completes every
    /// session's appends) or the I/O thread of the posting client, whose answer would wait.
    func publishLocked(through version: Int, outputs: [(Int, StoreOutput)]) {
        // The history window follows the durable and published versions.
        defer { trimHistoryLocked() }
        guard !subscribers.isEmpty else {
            _ = machine.publishDurable()
            pendingOutputs = []
            return
        }
        pendingOutputs += outputs
        defer { endSettledStreamsLocked() }
        if subscribers.count < context.fanOutInlineLimit { return publishPendingLocked() }
        guard !publishScheduled else { return }
        publishScheduled = true
        context.fanOutQueue.async { [self] in
            lock.withLock {
                publishScheduled = false
                publishPendingLocked()
                trimHistoryLocked()
            }
        }
    }

    /// Sends the changes (publishedVersion, durableVersion] and their outputs to every subscriber,
    /// encoding each frame once for all of them. Every publication runs under the lock, oldest
    /// first, so a subscriber still gets each version once and in order.
    private func publishPendingLocked() {
        guard let published = machine.publishDurable() else { return }
        let (from, version) = (published.lowerBound, published.upperBound)
        let outputs = pendingOutputs
        pendingOutputs = []
        guard !deleted, !subscribers.isEmpty else { return }
        // Each output encoded once, into its change's frame.
        let outputFrames = outputs.map { (version: $0.0, bytes: EventFrames.output(version: $0.0, output: $0.1)) }
        var frames: [(version: Int, bytes: [UInt8])] = []
        for entry in history.entries(from...version) {
            var bytes = EventFrames.change(version: entry.version, action: RecordCoding.action(entry.record), patch: entry.patch)
            for output in outputFrames where output.version == entry.version { bytes += output.bytes }
            frames.append((entry.version, bytes))
        }
        // Framed once (as an HTTP chunk too): every subscriber's stream queues these same arrays.
        let all = SharedChunk(frames.count == 1 ? frames[0].bytes : frames.flatMap(\.bytes))
        let now = context.now()
        // The history keeps every version not yet published (`keepingAfter`), so each subscriber's
        // run is there; were one ever not, the subscriber starts over from a snapshot.
        let firstFrame = frames.first?.version ?? version + 1
        var fanOut = StreamFanOut()
        for subscriber in subscribers.values where !subscriber.awaitingSnapshot {
            if let held = subscriber.heldSnapshot {
                guard held.version <= version else { continue }
                // Its version is durable now; it stands in for every change up to it.
                subscriber.heldSnapshot = nil
                subscriber.send(held)
                subscriber.lastWrite = now
            }
            guard subscriber.lastVersion < version else { continue }
            let chunk = subscriber.lastVersion < from ? all : SharedChunk(frames.filter { $0.version > subscriber.lastVersion }.flatMap(\.bytes))
            if subscriber.lastVersion + 1 < firstFrame
                || fanOut.write(chunk, to: subscriber.stream, ifPendingAtMost: subscriber.bound(context.subscriberBufferBytes)) == .overBound {
                // Too far behind (API.md "Events"): drop what is queued and start it over from a
                // snapshot, built once the client has read what is already on its way. Built here,
                // a client that stays stalled would cost a whole state's encoding per action.
                let key = ObjectIdentifier(subscriber)
                subscriber.awaitingSnapshot = true
                subscriber.stream.dropPending { [weak self] in self?.sendAwaitedSnapshot(key) }
                context.metrics.recordSubscriberReset()
            } else {
                subscriber.lastVersion = version
            }
            subscriber.lastWrite = now
        }
    }

    /// Sends `subscriber` a snapshot of the head, or, when the head is not durable yet, holds it
    /// for the publication that makes it so: a crash could still take that version back, and a
    /// client that had seen it would go on (or resume, by `Last-Event-ID`) from a state the
    /// session never had. `replacingQueue` applies to one sent now (a held one follows the queue).
    func sendSnapshotLocked(to subscriber: Subscriber, replacingQueue: Bool = false) {
        let snapshot = snapshotFrameLocked()
        guard snapshot.version <= durableVersion else {
            subscriber.heldSnapshot = snapshot
            return
        }
        subscriber.heldSnapshot = nil
        subscriber.send(snapshot, replacingQueue: replacingQueue)
    }

    /// At shutdown: publishes what is durable and, if actions are still on their way to the
    /// journal, keeps `stream` to end once they settle (true); false when it can end now.
    private func endsWhenSettledLocked(_ stream: HTTPStream) -> Bool {
        publishPendingLocked()
        guard store.version > durableVersion else { return false }
        streamsEndingWhenSettled.append(stream)
        return true
    }

    /// Ends the streams shutdown left open once nothing the session applied is waiting for the
    /// journal (made durable and published, or rolled back).
    func endSettledStreamsLocked() {
        guard !streamsEndingWhenSettled.isEmpty, store.version == durableVersion else { return }
        publishPendingLocked()
        let end = SharedChunk(EventFrames.end(reason: "shutdown"))
        for stream in streamsEndingWhenSettled {
            _ = stream.write(end)
            stream.finish()
        }
        streamsEndingWhenSettled = []
    }

    /// A reset subscriber's stream drained: it gets the head as a snapshot and changes again.
    private func sendAwaitedSnapshot(_ key: ObjectIdentifier) {
        lock.withLock {
            guard !deleted, let subscriber = subscribers[key], subscriber.awaitingSnapshot, !subscriber.stream.isClosed else { return }
            subscriber.awaitingSnapshot = false
            sendSnapshotLocked(to: subscriber)
            subscriber.lastWrite = context.now()
        }
    }

    /// Writes `: keep-alive` to every subscriber silent for `interval` milliseconds or more.
    func sendHeartbeats(now: Int64, interval: Int64) {
        guard hasSubscribers.load(ordering: .relaxed) else { return }
        lock.withLock {
            for subscriber in subscribers.values where now - subscriber.lastWrite >= interval {
                _ = subscriber.stream.write(EventFrames.keepAliveChunk)
                subscriber.lastWrite = now
            }
        }
    }

    /// Marks the session deleted and ends its streams with `end` / `deleted`.
    func markDeleted(reason: String = "deleted") {
        let (ended, after): ([Subscriber], Afterwards) = lock.withLock {
            publishPendingLocked()
            streamsEndingWhenSettled = []  // they end below, as deleted
            // Parked reads read again (and find the session gone); idempotent repeats waiting on a
            // request in flight are answered 404, as that request is from its completion.
            var after = Afterwards()
            feedLocked(.delete, into: &after)
            let all = Array(subscribers.values)
            subscribers.removeAll()
            return (all, after)
        }
        after.run(self)
        let frame = SharedChunk(EventFrames.end(reason: reason))
        for subscriber in ended {
            context.gauges.subscriberClosed()
            _ = subscriber.stream.write(frame)
            subscriber.stream.finish()
        }
    }
}
