import SessionCore
import StoreCore
import XCTest

/// The history window without sockets: where it ends, which states it keeps, and that every
/// version it lists, and the durable version a rollback goes back to, can be rebuilt.
final class HistoryWindowTests: XCTestCase {
    /// One action at a time: the ring lets go of versions only through a kept state, so the log
    /// starts just after one, holds `--history` to `--history` + `keepEvery` versions, and no
    /// kept state older than its start stays.
    func testTheWindowLetsGoByCountOnlyThroughAKeptState() throws {
        let host = try TestWindow(history: 20, keepEvery: 5)
        for version in 1...120 {
            try host.submit(1)
            let start = host.listed.lowerBound
            XCTAssertEqual(host.window.keptStates.states.first?.version, start, "at \(version): the window starts just after the oldest kept state")
            XCTAssertEqual(start % 5, 0, "at \(version)")
            if version >= 25 { XCTAssertTrue((20...25).contains(version - start), "at \(version): \(version - start) versions listed") }
            host.assertEveryListedVersionRebuilds("at \(version)")
        }
        XCTAssertEqual(host.listed, 100...120)
    }

    /// Large actions end the window before the count does: the actions it holds fit the byte
    /// budget, the head's state is kept every half budget so the cut finds one, and the cut
    /// lands on it.
    func testTheByteBudgetEndsTheWindowAtAKeptState() throws {
        let host = try TestWindow(history: 1_000, keepEvery: 100, byteLimit: 20_000)
        for version in 1...60 {
            try host.submit(1, noteBytes: 1_000)
            XCTAssertLessThanOrEqual(host.window.history.bytes, 20_000, "at \(version)")
            XCTAssertEqual(host.window.keptStates.states.first?.version, host.listed.lowerBound, "at \(version)")
            host.assertEveryListedVersionRebuilds("at \(version)")
        }
        XCTAssertGreaterThan(host.listed.lowerBound, 20, "the bytes, not the count, ended the window")
        XCTAssertGreaterThanOrEqual(host.window.history.bytes, 20_000 / 2 - 1_200, "about half the budget or more stays")
        XCTAssertTrue(host.window.keptStates.states.contains { $0.version % 100 != 0 }, "states kept by bytes, between the count's points")
    }

    /// The kept states' budget lets old states go: the ring is then cut at the oldest kept state
    /// it still reaches from, so the log lists nothing `?version=` cannot read.
    func testTheKeptStatesBudgetShortensTheWindowToWhatCanBeRebuilt() throws {
        let host = try TestWindow(history: 50, keepEvery: 5, keptStateBudget: 1_200)
        for version in 1...200 {
            try host.submit(1)
            host.assertEveryListedVersionRebuilds("at \(version)")
        }
        XCTAssertLessThan(host.head - host.listed.lowerBound, 50, "the budget, not --history, ended the window")
    }

    /// A batch longer than the keep interval keeps the states at the interval's points inside
    /// it, not only the head's: a read of a version inside the batch replays from the nearest.
    func testABatchLongerThanTheKeepIntervalKeepsStatesInsideIt() throws {
        let host = try TestWindow(history: 100, keepEvery: 10)
        try host.submit(3)
        try host.submit(45)
        XCTAssertEqual(host.window.keptStates.states.map(\.version), [0, 10, 20, 30, 40, 48])
        let plan = try host.window.replayPlan(to: 35, head: host.head)
        XCTAssertEqual(plan.base.version, 30)
        XCTAssertEqual(plan.entries.map(\.version), Array(31...35))
        XCTAssertEqual(try host.count(at: 35), 35)
        XCTAssertEqual(host.window.bytesSinceKeptState, 0, "the head's state was kept")
    }

    /// The weights since the newest kept state count on across batches and start again at each
    /// kept state, and a rollback counts them again from what stays.
    func testTheBytesSinceTheNewestKeptStateFollowTheHead() throws {
        let host = try TestWindow(history: 100, keepEvery: 10)
        try host.submit(3)
        let one = host.window.bytesSinceKeptState / 3
        XCTAssertGreaterThan(one, 0)
        try host.submit(2, durable: false)
        XCTAssertEqual(host.window.bytesSinceKeptState, 5 * one)
        try host.rollBack()
        XCTAssertEqual(host.head, 3)
        XCTAssertEqual(host.window.bytesSinceKeptState, 3 * one, "the two rolled back no longer count")
        XCTAssertEqual(host.window.history.lastVersion, 3)
        try host.submit(7)
        XCTAssertEqual(host.window.bytesSinceKeptState, 0, "kept at 10")
        XCTAssertEqual(host.window.changeBytesSinceKeptState, 0)
    }

    /// Every shape of a refused append: batches up to `--history` long, durable or in flight,
    /// kept states' budgets small and large, part of what is in flight made durable first. The
    /// journal refusing what is in flight always finds a kept state that reaches the durable
    /// version, the head rebuilt there holds the right state, and the window goes on listing only
    /// versions it can rebuild.
    func testARollbackToTheDurableVersionAlwaysFindsAKeptState() throws {
        var shapes = 0
        for history in [4, 10, 20] {
            for keepEvery in [1, 2, 5] where keepEvery < history {
                for budget in [250, 1 << 30] {
                    for durableBatch in Set([1, history / 2, history]) {
                        for inFlightBatch in Set([1, history - 1, history]) {
                            for (inFlight, madeDurable) in [(1, 0), (2, 0), (3, 0), (2, 1), (3, 2)] {
                                let shape = "history \(history) keepEvery \(keepEvery) budget \(budget) batches \(durableBatch)/\(inFlightBatch)×\(inFlight)-\(madeDurable)"
                                let host = try TestWindow(history: history, keepEvery: keepEvery, keptStateBudget: budget)
                                for _ in 0..<3 { try host.submit(durableBatch) }
                                try host.submit(1)
                                var ends: [Int] = []
                                for _ in 0..<inFlight {
                                    try host.submit(inFlightBatch, durable: false)
                                    ends.append(host.head)
                                }
                                if madeDurable > 0 { host.makeDurable(through: ends[madeDurable - 1]) }
                                let durable = host.durable
                                XCTAssertNoThrow(try host.window.replayPlan(to: durable, head: host.head), shape)
                                host.assertEveryListedVersionRebuilds(shape)
                                try host.rollBack()
                                XCTAssertEqual(host.head, durable, shape)
                                XCTAssertEqual(try host.count(at: durable), durable, shape)
                                XCTAssertLessThanOrEqual(host.window.history.lastVersion ?? durable, durable, "nothing after it stays " + shape)
                                XCTAssertLessThanOrEqual(host.window.keptStates.states.last?.version ?? .max, durable, shape)
                                try host.submit(1)
                                try host.submit(history)
                                host.assertEveryListedVersionRebuilds(shape)
                                shapes += 1
                            }
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(shapes, 300)
    }

    /// A batch as long as `--history` on a durable version whose kept state is farther back
    /// than the batch leaves in the ring: the state at the durable version is kept ahead of it
    /// (the head's own, or rebuilt while it can be), so a rollback starts there, not from a
    /// state the ring no longer reaches from. A small batch needs none (the O(1) case).
    func testABatchAsLongAsTheHistoryKeepsTheRollbackBaseAhead() throws {
        let host = try TestWindow(history: 10, keepEvery: 5)
        try host.submit(3)
        var window = host.window
        XCTAssertTrue(window.statesAhead(adding: 1, head: 3, durable: 3, headState: { host.store.sharedState() }, rebuild: { _ in nil }).isEmpty)
        XCTAssertEqual(window.statesAhead(adding: 10, head: 3, durable: 3, headState: { host.store.sharedState() }, rebuild: { _ in nil })
            .map(\.version), [3], "the head is the durable version: its own state")
        try host.submit(4, durable: false)
        XCTAssertEqual(host.window.keptStates.states.map(\.version), [0, 5, 7])
        var rebuilt: [Int] = []
        window = host.window
        let ahead = window.statesAhead(adding: 10, head: 7, durable: 3, headState: { host.store.sharedState() },
                                       rebuild: { plan in rebuilt.append(plan.base.version + plan.entries.count); return try? host.replay(plan).sharedState() })
        XCTAssertEqual(ahead.map(\.version), [3])
        XCTAssertEqual(rebuilt, [3], "the state at the durable version, rebuilt from the kept state before it")
        XCTAssertEqual(ahead.first?.state.jsonValue()["n"], .int(3))

        try host.submit(10, durable: false)
        XCTAssertEqual(host.window.keptStates.states.map(\.version), [0, 3, 5, 7, 10, 15, 17], "kept once the batch applied")
        let plan = try host.window.replayPlan(to: 3, head: host.head)
        XCTAssertEqual(plan.base.version, 3)
        XCTAssertTrue(plan.entries.isEmpty, "the rollback replays nothing")
        try host.rollBack()
        XCTAssertEqual(try host.count(at: 3), 3)
        XCTAssertEqual(host.window.keptStates.states.map(\.version), [0, 3])
    }

    /// A version the window no longer reaches is gone, and the error names the oldest version
    /// that can still be rebuilt: the first kept state the ring reaches forward from, not an
    /// older kept state whose next actions have left the ring.
    func testAVersionBeforeTheWindowIsGoneWithTheOldestRebuildableVersion() throws {
        let host = try TestWindow(history: 20, keepEvery: 5)
        for _ in 1...60 { try host.submit(1) }
        XCTAssertEqual(host.listed, 40...60)
        var window = host.window
        window.keptStates.insert(version: 10, state: SharedState(Tally()), weight: 0)
        XCTAssertEqual(window.oldestVersion(head: 60), 40, "10 is kept, but 11...39 left the ring")
        XCTAssertThrowsError(try window.replayPlan(to: 12, head: 60)) { error in
            XCTAssertEqual(error as? VersionGone, VersionGone(version: 12, oldest: 40))
        }
        XCTAssertThrowsError(try window.replayPlan(to: 39, head: 60)) { error in
            XCTAssertEqual(error as? VersionGone, VersionGone(version: 39, oldest: 40))
        }
        XCTAssertEqual(try window.replayPlan(to: 10, head: 60).base.version, 10, "a kept state itself needs no action")
        XCTAssertEqual(try window.replayPlan(to: 42, head: 60).entries.map(\.version), [41, 42])
    }

    /// Recovery hands the window what it replayed after the journal's snapshot: the ring lists
    /// every replayed version, the snapshot's state is where replays start, the states kept on
    /// the way stay, the head's is kept, and past the byte budget the state where the window
    /// will start is rebuilt and kept, so every version the trimmed window lists can be read.
    func testRecoveryInstallsTheReplayedWindowAndItsKeptStates() throws {
        let live = try TestWindow(history: 1_000, keepEvery: 100)
        try live.submit(10)
        let base = (version: live.head, state: live.store.sharedState())
        let replayed = try live.replay(ReplayPlan(base: base, entries: []))
        let records = (0..<30).map { _ in ActionRecord(type: "tally/add", payload: .string(String(repeating: "x", count: 1_000)), at: 0, source: .client) }
        var changes: [Change] = []
        var keptAlong: [(version: Int, state: SharedState, weight: Int)] = []
        for run in 0..<3 {
            changes += try replayed.replay(Array(records[(run * 10)..<(run * 10 + 10)]))
            if run < 2 { keptAlong.append((replayed.version, replayed.sharedState(), 100)) }
        }
        XCTAssertEqual(replayed.version, 40)

        var window = HistoryWindow(length: 1_000, keepEvery: 100, keptStateBudget: 1 << 30, version: 40, state: replayed.sharedState())
        var rebuilt: [Int] = []
        window.restore(changes, base: base, keptAlong: keptAlong, head: 40, headState: { replayed.sharedState() }, byteLimit: 25_000,
                       rebuild: { plan in
                           rebuilt.append(plan.base.version + plan.entries.count)
                           return try? live.replay(plan).sharedState()
                       })
        XCTAssertEqual(window.history.firstVersion, 11)
        XCTAssertEqual(window.history.lastVersion, 40)
        XCTAssertEqual(window.history.versionToDropThrough(toFit: 25_000), 18)
        XCTAssertEqual(rebuilt, [18], "the state where the byte budget starts the window, rebuilt")
        XCTAssertEqual(window.keptStates.states.map(\.version), [10, 18, 20, 30, 40], "the base, the budget's start, those kept along, the head")
        window.trim(durable: 40, published: 40, byteLimit: 25_000)
        XCTAssertLessThanOrEqual(window.history.bytes, 25_000)
        let listed = (window.history.firstVersion ?? 41) - 1
        XCTAssertEqual(window.oldestVersion(head: 40), listed)
        for version in listed...40 {
            let plan = try window.replayPlan(to: version, head: 40)
            XCTAssertEqual(try live.replay(plan).stateValue()["n"], .int(version), "version \(version)")
        }

        var empty = HistoryWindow(length: 1_000, keepEvery: 100, keptStateBudget: 1 << 30, version: 10, state: base.state)
        empty.restore([], base: base, keptAlong: [], head: 10, headState: { XCTFail("nothing replayed: the head is the base"); return base.state },
                      byteLimit: 25_000, rebuild: { _ in nil })
        XCTAssertEqual(empty.keptStates.states.map(\.version), [10])
        XCTAssertNil(empty.history.firstVersion)
    }

    /// Recovery replays the records after the snapshot in runs that end at the `keepEvery`
    /// points and keeps the states there that the window can start from (`length` back from the
    /// head, one interval's slack), weighed by their changes and cut to the kept states' budget
    /// from the oldest; the head's is not among them (`restore` keeps it). Restored, every version
    /// the window lists, `--history` of them, can be rebuilt.
    func testRecoveryKeepsTheStatesTheLiveWindowWouldKeep() throws {
        let live = try TestWindow(history: 20, keepEvery: 5)
        try live.submit(7)
        let base = (version: live.head, state: live.store.sharedState())
        let records = (0..<53).map { _ in ActionRecord(type: "tally/add", payload: nil, at: 0, source: .client) }
        func replay(budget: Int) throws -> (runs: [Range<Int>], changes: [Change], keptAlong: [(version: Int, state: SharedState, weight: Int)]) {
            let store = try live.replay(ReplayPlan(base: base, entries: []))
            var runs: [Range<Int>] = []
            let replayed = try HistoryWindow.replayKeepingStates(records.count, after: base.version, length: 20, keepEvery: 5,
                                                                 keptStateBudget: budget, state: { store.sharedState() }) { run in
                runs.append(run)
                return try store.replay(Array(records[run]))
            }
            XCTAssertEqual(store.version, 60)
            return (runs, replayed.changes, replayed.keptAlong)
        }

        let all = try replay(budget: 1 << 30)
        XCTAssertEqual(all.runs.first, 0..<3, "the first run ends at the first point after the base, 10")
        XCTAssertEqual(all.runs.dropFirst().map(\.count), Array(repeating: 5, count: 10))
        XCTAssertEqual(all.changes.map(\.version), Array(8...60))
        XCTAssertEqual(all.keptAlong.map(\.version), [35, 40, 45, 50, 55], "the points from 60 - 20 - 5 on, not the head's")
        for kept in all.keptAlong {
            XCTAssertEqual(kept.state.jsonValue()["n"], .int(kept.version), "the state at \(kept.version)")
        }
        let weights = all.keptAlong.map { kept in
            all.changes.filter { (kept.version - 4)...kept.version ~= $0.version }.reduce(0) { $0 + HistoryWindow.changeWeight($1.patch) }
        }
        XCTAssertEqual(all.keptAlong.map(\.weight), weights, "each weighs the changes since the one before")
        let runWeight = weights.first ?? 0

        let cut = try replay(budget: 2 * runWeight)
        XCTAssertEqual(cut.keptAlong.map(\.version), [50, 55], "past the budget the oldest go")
        let one = try replay(budget: 0)
        XCTAssertEqual(one.keptAlong.map(\.version), [55], "the newest stays whatever the budget")

        let head = try live.replay(ReplayPlan(base: base, entries: []))
        _ = try head.replay(records)
        var window = HistoryWindow(length: 20, keepEvery: 5, keptStateBudget: 1 << 30, version: 60, state: head.sharedState())
        window.restore(all.changes, base: base, keptAlong: all.keptAlong, head: 60, headState: { head.sharedState() }, byteLimit: 64 << 20,
                       rebuild: { try? live.replay($0).sharedState() })
        window.trim(durable: 60, published: 60, byteLimit: 64 << 20)
        let listed = (window.history.firstVersion ?? 61) - 1
        XCTAssertLessThanOrEqual(listed, 40, "the window lists at least --history versions")
        XCTAssertEqual(window.oldestVersion(head: 60), listed)
        for version in listed...60 {
            XCTAssertEqual(try live.replay(window.replayPlan(to: version, head: 60)).stateValue()["n"], .int(version), "version \(version)")
        }
    }

    /// A stream resumes after a version when every change after it through the durable version
    /// is still listed; never after a version no client was shown (past the durable one).
    func testAStreamResumesOnlyAfterAVersionWhoseChangesAreAllListed() throws {
        let host = try TestWindow(history: 20, keepEvery: 5)
        XCTAssertTrue(host.window.canResume(after: 0, durable: 0), "nothing to send")
        XCTAssertFalse(host.window.canResume(after: 1, durable: 0))
        for _ in 1...60 { try host.submit(1) }
        try host.submit(3, durable: false)
        XCTAssertEqual(host.listed, 40...60)
        XCTAssertTrue(host.window.canResume(after: 40, durable: 60), "41...60 listed")
        XCTAssertFalse(host.window.canResume(after: 39, durable: 60), "40 left the ring")
        XCTAssertTrue(host.window.canResume(after: 60, durable: 60))
        XCTAssertFalse(host.window.canResume(after: 61, durable: 60), "applied, not durable: never shown")
        XCTAssertFalse(host.window.canResume(after: -1, durable: 60))
    }
}
