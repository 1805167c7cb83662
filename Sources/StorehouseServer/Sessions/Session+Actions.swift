import Foundation
import HTTPEngine
import Journal
import SessionCore
import StoreCore

/// One `POST /sessions/{id}/actions`, parsed and ready for the session.
struct ActionSubmission: Sendable {
    var records: [ActionRecord]
    /// Entity tags of `If-Match`, nil when the header is absent.
    var ifMatch: [EntityTag]?
    var idempotency: (key: String, bodyHash: [UInt8])?
    var minimal: Bool
}

/// What an applied request still owes once its actions are durable: publication, its
/// answer, its effects, and the bookkeeping a refused request must not leave behind. A value:
/// held by the feed that applied it in memory (no allocation), or by the journal's completion.
struct PendingAppend: Sendable {
    let request: RequestID
    let first: Int
    let last: Int
    let outputs: [(Int, StoreOutput)]
    let idempotencyKey: String?
    let answer: HTTPResponse
    let effects: [PendingEffect]
    let source: ActionSource
    let at: Int64
    /// Where the request's answer goes when the machine says `.reply(request, …)`.
    let reply: ReplyTo
    /// The kept refusals its last record carries to the journal.
    var carriedRefusals: [String] = []
}

/// The journal answers a session's appends to the session itself (`appendCompleted`, `groupCompleted`).
extension Session: JournalAppendListener {}

extension Session {
    /// A refusal decided on the head (412, 409), answered once that head is durable: decided on
    /// a version a rollback takes back, it is decided again (the request submitted anew), since
    /// its `currentVersion` or its reason may no longer hold. With `keep`, the refusal is the
    /// request's Idempotency-Key's first answer (`keepRefusalLocked`). Called with the lock held; unlocks.
    private func refuseWhenDurableLocked(_ submission: ActionSubmission, _ reply: ReplyTo, _ refusal: HTTPResponse, keep: Bool = false) {
        let decidedOn = store.version
        let durable = decidedOn <= durableVersion
        let kept = keep && keepRefusalLocked(submission, refusal, decidedOn: decidedOn, durable: durable)
        // A stuck head never gets here: `submit` refuses first.
        guard !durable else {
            lock.unlock()
            return reply.send(refusal, from: self)
        }
        parkLocked(.refusal(ParkedRefusal(submission: submission, reply: reply, refusal: refusal, kept: kept)), version: decidedOn)
        lock.unlock()
    }

    /// Keeps a refusal as its Idempotency-Key's first answer, journaled by the next record
    /// (`RefusalsToJournal.keep`). True when kept.
    private func keepRefusalLocked(_ submission: ActionSubmission, _ refusal: HTTPResponse, decidedOn: Int, durable: Bool) -> Bool {
        guard let idem = submission.idempotency else { return false }
        return refusalsToJournal.keep(idem.key, bodyHash: idem.bodyHash, answer: refusal, decidedOn: decidedOn, minimal: submission.minimal,
                                      now: context.now(), durable: durable, in: &machine.ledger)
    }

    /// Marks a kept refusal durable once the head it was decided on is; returns its waiting repeats.
    func refusalBecameDurableLocked(_ submission: ActionSubmission) -> [ReplyTo] {
        guard let key = submission.idempotency?.key else { return [] }
        return refusalsToJournal.decidedOnDurableHead(key, in: &machine.ledger).compactMap { waitingRepeats.removeValue(forKey: $0) }
    }

    /// Applies a request's actions (all or none) and sends its answer exactly once to `reply`:
    /// at once for a refusal or with the in-memory log, after the append completes otherwise.
    /// `committer`: who commits the append (`.eventLoop(N)` only on loop N's thread).
    func submit(_ submission: ActionSubmission, committer: Committer = .journalWriter, replyTo reply: ReplyTo) {
        // Requests moved off the event loop came first (a big batch): this one, from a loop or an
        // effect, applies after them, and no thread waits on the lock while they run. Off its
        // loop, the append wakes the journal's writer itself.
        if lane.mustQueue {
            return context.offLoop.run(in: lane) { [self] in submit(submission, committer: .journalWriter, replyTo: reply) }
        }
        lock.lock()
        // Refused here, under the lock, and not only by the router: a client's action that passed
        // the router just before draining began could otherwise be applied after shutdown ended
        // this session's streams (`endsWhenSettledLocked` found nothing in flight), and its
        // subscribers would get `end` without that change. Effects still feed back while draining.
        if !deleted, context.readiness.isDraining, submission.records.first?.source == .client, let problem = context.readiness.problem {
            lock.unlock()
            return reply.send(Readiness.refusal(problem).response(), from: self)
        }
        let request = requestIDLocked()
        // The machine decides what is not this request's to apply: a deleted session, a stuck
        // head, a repeated Idempotency-Key (answered, refused, or waiting on the first request).
        // Without a key the decision is `admitsAtOnce`, and the POST is one feed (`.applied`).
        var after = Afterwards()
        var decided = Fed()
        // One reference to the store for this request's calls: each `self.store.…` retains and
        // releases it around the call (which, as far as Swift knows, could replace it).
        let store = self.store
        // Read before the machine is: an argument that calls into the store while `machine` is
        // being read would make Swift copy the whole machine to call `admitsAtOnce` on the copy.
        let head = store.version
        if submission.idempotency == nil, machine.admitsAtOnce(head: head) {
            decided.proceeds = true
        } else {
            decided = feedLocked(.submit(request, key: submission.idempotency.map { ($0.key, $0.bodyHash) }, head: head, now: context.now()),
                                 submitting: (request, reply), key: submission.idempotency?.key, into: &after)
        }
        guard decided.proceeds else {
            // A repeat waiting on its first request: held by id until the machine's `.reply`.
            if !decided.answeredSubmitted { waitingRepeats[request] = reply }
            lock.unlock()
            return after.run(self)
        }
        if let tags = submission.ifMatch, !EntityTag.ifMatch(tags, version: store.version) {
            let current = store.version
            return refuseWhenDurableLocked(submission, reply, Problem(412, "version-mismatch", "If-Match does not name the session's version \(current)",
                                                                      extra: [("currentVersion", .int(current))]).response())
        }
        guard submission.records.count <= context.history else {
            // A longer batch could not be rolled back from history if the journal refused it.
            lock.unlock()
            return reply.send(Problem(422, "batch-too-large", "a batch holds at most \(context.history) action\(context.history == 1 ? "" : "s") (--history)").response(),
                              from: self)
        }

        // Each action carries its time; versions never go back in time (API.md "Conventions").
        var records = submission.records
        // Written only when it changes: a write would copy the submission's array.
        for index in records.indices where records[index].at < lastActionAt { records[index].at = lastActionAt }
        let aheadOfTheRing = window.statesAhead(adding: records.count, head: store.version, durable: durableVersion,
                                                headState: { store.sharedState() }, rebuild: { try? replay($0).sharedState() })
        let changes: [Change]
        let keptInside: [(version: Int, state: SharedState)]
        do {
            let applied = try store.apply(records, keepingEvery: context.keepEvery)
            changes = applied.changes
            keptInside = applied.kept
        } catch {
            return refuseWhenDurableLocked(submission, reply, SessionProblems.refusal(error, batch: records.count > 1).response(), keep: true)
        }
        let effects = store.takePendingEffects()
        guard let first = changes.first?.version, let last = changes.last?.version else {
            lock.unlock()
            return reply.send(Problem(422, "empty-batch", "a batch must hold at least one action").response(), from: self)
        }
        lastActionAt = records[records.count - 1].at
        let weight = window.record(changes, keptInside: keptInside, ahead: aheadOfTheRing, headState: { store.sharedState() },
                                   durable: durableVersion, published: publishedVersion, byteLimit: historyByteLimitLocked)
        stateBytesEstimate.store(stateBytesEstimate.load(ordering: .relaxed) + weight, ordering: .relaxed)

        let answer = submission.minimal ? minimalAnswer(changes) : fullAnswerLocked()
        var mark: RecordCoding.IdempotencyMark?
        if let idem = submission.idempotency {
            mark = .init(key: idem.key, bodyHash: idem.bodyHash, firstVersion: first, minimal: submission.minimal)
            machine.ledger.insert(idem.key, .init(bodyHash: idem.bodyHash, firstVersion: first, lastVersion: last,
                                                  minimal: submission.minimal, createdAt: context.now(), response: answer, durable: false))
        }
        let inline = context.log.completesInline
        // Memory budget: the history and answers this write added. In memory, once the feed has
        // made the versions durable and cut the window to them (`publishLocked`), so the charge
        // is what stays, not what the cut let go of until the next settlement.
        if !inline { settleBudgetLocked() }
        // Read off the ledger only when refusals wait (never in memory): the POST path does not copy it.
        let carried = refusalsToJournal.isEmpty ? [] : refusalsToJournal.toCarry(in: machine.ledger)
        // Most actions emit no output: their requests build no list of them.
        let outputs = changes.contains { !$0.outputs.isEmpty } ? changes.flatMap { change in change.outputs.map { (change.version, $0) } } : []
        let pendingAppend = PendingAppend(request: request, first: first, last: last, outputs: outputs,
                                          idempotencyKey: mark?.key, answer: answer, effects: effects,
                                          source: records[0].source, at: lastActionAt, reply: reply, carriedRefusals: carried)
        if inline {
            // Durable as applied: the feed reads the append where it is and answers it.
            feedLocked(.applied(request, versions: first...last, key: mark?.key, inline: true, weight: weight), pending: consume pendingAppend, into: &after)
            settleBudgetLocked()
            lock.unlock()
            return after.run(self)
        }
        let appendEpoch = feedLocked(.applied(request, versions: first...last, key: mark?.key, inline: false, weight: weight), into: &after).epoch
        // Under the lock, as the append: the journal answers in this order (`appendCompleted`).
        appendsInFlight.append(consume pendingAppend, epoch: appendEpoch)
        let refusals = carried.compactMap { machine.ledger.entries[$0]?.keptRefusal(key: $0) }
        if changes.count == 1 {
            // The usual POST: one record, handed over with no array around it.
            let record = RecordCoding.journalRecord(changes[0].action, mark: mark, refusals: refusals)
            context.log.append(sessionID: id, record: (changes[0].version, record), committer: committer, listener: self)
        } else {
            let journalRecords = changes.enumerated().map { index, change in
                let isLast = index == changes.count - 1
                return (version: change.version,
                        bytes: RecordCoding.journalRecord(change.action, mark: isLast ? mark : nil, refusals: isLast ? refusals : []))
            }
            context.log.append(sessionID: id, records: journalRecords, committer: committer, listener: self)
        }
        lock.unlock()
    }

    /// The journal's word on the oldest append in flight; runs on the journal's thread, in version
    /// order. The answers of one group are settled together once the group's completions have all
    /// run: one lock per session and group, not one per append: taken once per append, the lock
    /// would meet the loops applying the next requests, and the journal's thread would sleep on it
    /// on the path every answer waits on (`bash scripts/bench-fsync.sh` measures that path).
    func appendCompleted(_ result: Result<Void, JournalError>) {
        if answeredAppends.withLock({ $0.add(result) }) { context.log.afterCompletions(notify: self) }
    }

    /// The group that answered ends: settles its answers (`settleAnsweredAppends`).
    func groupCompleted() { settleAnsweredAppends() }

    /// Settles the answered appends in version order under one lock, then answers them.
    private func settleAnsweredAppends() {
        let answered = answeredAppends.withLock { answers -> AppendAnswers in
            defer { answers = AppendAnswers() }
            return answers
        }
        guard answered.count > 0 else { return }
        var after = Afterwards()
        lock.lock()
        var anyDurable = false
        var pending: PendingAppend?
        for result in answered.results {
            guard let epoch = appendsInFlight.takeOldest(into: &pending) else { break }
            anyDurable = settleLocked(result, &pending, epoch: epoch, into: &after) || anyDurable
            pending = nil
        }
        // One snapshot at a time: the next is not even considered while one is being written.
        if anyDurable, !journalSnapshotWriting.load(ordering: .acquiring) {
            let (dropped, limit, lastBytes) = (window.history.droppedBytes, historyByteLimitLocked, journalSnapshotBytes.load(ordering: .relaxed))
            // Asked first of the latest base there could be: most groups make no snapshot due.
            if machine.snapshots.isDue(base: window.latestSnapshotBase(durable: durableVersion), droppedBytes: dropped, byteLimit: limit,
                                       lastSnapshotBytes: lastBytes) {
                feedLocked(.snapshotBase(window.snapshotBase(durable: durableVersion), droppedBytes: dropped, byteLimit: limit,
                                         lastSnapshotBytes: lastBytes), into: &after)
            }
        }
        lock.unlock()
        after.run(self)
    }

    /// One append's outcome, fed to the machine; what it owes the clients goes to `after`, to
    /// run once the lock is let go, in the order a client would see it. True when it became durable.
    private func settleLocked(_ result: Result<Void, JournalError>, _ pending: inout PendingAppend?, epoch: Int,
                              into after: inout Afterwards) -> Bool {
        // Read in place (`pending?.…` of an `inout`): binding the append would copy it.
        guard let request = pending?.request, let first = pending?.first, let last = pending?.last else { return false }
        let durableBefore = durableVersion
        var succeeded = false
        if case .success = result { succeeded = true }
        let versions = first...last
        let key = pending?.idempotencyKey
        let rolledBack = feedLocked(.appendAnswered(request, versions: versions, key: key, epoch: epoch, durable: succeeded, head: store.version),
                                    pending: pending, into: &after).rolledBack
        if rolledBack, case .failure(let error) = result {
            after.add(.log("session \(id): journal refused versions \(versions.lowerBound)...\(versions.upperBound): \(error); rolled back to \(durableBefore)"))
        }
        return durableVersion > durableBefore
    }

    /// `{"version":N,"state":…}` at the head.
    func fullAnswerLocked() -> HTTPResponse {
        stateAnswerLocked().response
    }

    /// `{"version":N,"patch":[…]}`: the patches of every action of the request, in order (RFC 6902 §3:
    /// operations apply in sequence, so the concatenation goes from the state before to the state after).
    func minimalAnswer(_ changes: [Change]) -> HTTPResponse {
        JSONAnswer.patch(version: changes.last?.version ?? store.version, patches: changes.map(\.patch))
    }

    /// The first answer of an idempotent request again; rendered from history when it was not kept.
    func replayedAnswerLocked(_ entry: IdempotencyCache.Entry) -> HTTPResponse {
        Self.replayed(entry.response ?? renderedAnswerLocked(entry)
            ?? JSONAnswer.ok(Array(#"{"version":\#(entry.lastVersion)}"#.utf8), etagVersion: entry.lastVersion))
    }

    static func replayed(_ first: HTTPResponse) -> HTTPResponse {
        var response = first
        response.headers.add("Idempotent-Replayed", "true")
        return response
    }

    /// The first answer rendered again from history and kept states; nil once its versions are
    /// older than what is kept (then only the version is answered).
    private func renderedAnswerLocked(_ entry: IdempotencyCache.Entry) -> HTTPResponse? {
        if entry.minimal {
            let entries = history.entries(entry.firstVersion...entry.lastVersion)
            guard entries.count == entry.lastVersion - entry.firstVersion + 1 else { return nil }
            return JSONAnswer.patch(version: entry.lastVersion, patches: entries.map(\.patch))
        }
        guard let state = try? stateBytesLocked(at: entry.lastVersion) else { return nil }
        return JSONAnswer.state(version: entry.lastVersion, state: state)
    }

    /// Ends the history window where it has to end (`HistoryWindow.trim`), as of the durable and
    /// published versions: whenever they move, and recovery.
    func trimHistoryLocked() {
        window.trim(durable: durableVersion, published: publishedVersion, byteLimit: historyByteLimitLocked)
    }

    /// Hands the journal a snapshot of the kept state at `version` (the machine's `.writeSnapshot`):
    /// the journal drops the records it covers. Encoded on the snapshot thread (`SnapshotWriter`)
    /// from the kept state (immutable, shared with the head), so neither this session nor the
    /// journal's thread waits for a large state's bytes.
    func writeSnapshotLocked(at version: Int) {
        guard let base = window.keptStates.nearest(atOrBefore: version), base.version == version else { return }
        let (log, id, state, updatedAt, idempotency, budget) = (context.log, id, base.state, updatedAt, machine.ledger, context.memoryBudget)
        // Room for the last snapshot's size and an eighth more: one allocation, not a chain of
        // doublings whose freed halves malloc keeps.
        let capacity = journalSnapshotBytes.load(ordering: .relaxed) * 9 / 8 + 4_096
        journalSnapshotWriting.store(true, ordering: .relaxed)
        context.snapshotWriter.submit { [self] in
            let bytes = SnapshotCoding.encode(version: version, state: state, updatedAt: updatedAt, idempotency: idempotency, capacity: capacity)
            journalSnapshotBytes.store(bytes.count, ordering: .relaxed)
            log.snapshot(sessionID: id, version: version, bytes: bytes)
            journalSnapshotWriting.store(false, ordering: .releasing)
            // A large state's encoding leaves megabytes free in malloc's arenas, which the
            // resident size (and the memory budget) would go on counting.
            if bytes.count >= SnapshotWriter.trimAfterBytes { budget.returnFreedMemory() }
        }
    }

    /// Rebuilds the head at `version` from the nearest kept state and the history after it (the
    /// machine's `.rollBack`; it dropped the Idempotency-Keys of the versions that go).
    /// True when the head was rebuilt (the machine's subscribers follow with `.rebuilt`).
    func rollbackLocked(to version: Int) -> Bool {
        do {
            store = try rebuiltStore(at: version)
        } catch {
            // The head is stuck (`Durability.isStuck`): its versions will not be durable before a restart.
            ServerLog.error("session \(id): cannot rebuild version \(version): \(error); keeping the head")
            return false
        }
        window.rollBack(to: version)
        cachedState = nil
        cachedSnapshot = nil
        return true
    }

    /// A fresh store at `version`, replayed from kept state and history; effects are dropped
    /// because the actions they fed back are in the history too.
    func rebuiltStore(at version: Int) throws -> any AnyStore {
        try replay(replayPlanLocked(to: version))
    }

    /// The kept state to start from and the history entries that lead from it to `version`.
    func replayPlanLocked(to version: Int) throws(Problem) -> ReplayPlan {
        do {
            return try window.replayPlan(to: version, head: store.version)
        } catch {
            throw SessionProblems.versionGone(error.version, oldest: error.oldest)
        }
    }

    /// A fresh store from a plan. Needs no lock: it touches only the plan and the kind.
    func replay(_ plan: ReplayPlan) throws -> any AnyStore {
        // O(1) from the kept state (no decoding); the replay costs the distance from it.
        let rebuilt = try kind.makeStore(shared: plan.base.state, version: plan.base.version, environment: context.effectEnvironment)
        if !plan.entries.isEmpty {
            _ = try rebuilt.replay(plan.entries.map(\.record))
            _ = rebuilt.takePendingEffects()
        }
        return rebuilt
    }

    /// The encoded state at `version`, from the head or by replay.
    func stateBytesLocked(at version: Int) throws -> [UInt8] {
        if version == store.version { return currentStateLocked().bytes }
        return try rebuiltStore(at: version).encodeState()
    }

    /// The oldest version from which every newer one can still be rebuilt (`HistoryWindow.oldestVersion`).
    var oldestVersionLocked: Int { window.oldestVersion(head: store.version) }
}
