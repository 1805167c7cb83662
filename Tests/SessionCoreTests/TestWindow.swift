import SessionCore
import StoreCore
import XCTest

/// A count of the actions applied: the state at version v holds n == v, so a replay that starts
/// from the wrong kept state or skips an action shows in the number.
struct Tally: StoreState, PatchDiffable {
    var n = 0
    static var initial: Tally { Tally() }
    init() {}
    init(json: JSONValue, path: String) throws(StateDecodingError) { n = try json.decodeMember("n", at: path) }
    func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("n"); w.write(n)
        w.endObject()
    }
}

/// `tally/add`, with an optional string payload that only makes the action heavier.
struct TallyAdd: StoreAction {
    static let clientTypes = ["tally/add"]
    let note: String?
    init(note: String?) { self.note = note }
    init(type: String, payload: JSONValue?) throws(ActionError) {
        guard type == "tally/add" else { throw Self.unknown(type) }
        if case .string(let note)? = payload { self.note = note } else { note = nil }
    }
    var type: String { "tally/add" }
    var payload: JSONValue? { note.map(JSONValue.string) }
}

let tallyKind = Kind(name: "tally", reducer: Reducer<Tally, TallyAdd> { state, _, _ throws(Rejection) in
    state.n += 1
    return .none
})

/// A host for `HistoryWindow` without sockets or journal, doing what `Session` does around it: a
/// batch is applied to a real store and recorded with the states kept inside it and ahead of the
/// ring; `makeDurable` moves the durable and published versions and trims; `rollBack` rebuilds
/// the head at a version from a plan, as a refused journal append does.
///
///     let host = try TestWindow(history: 20, keepEvery: 2)
///     try host.submit(5)            // versions 1...5, durable at once (in memory)
///     try host.submit(3, durable: false)
///     try host.rollBack()           // back to 5
final class TestWindow {
    private(set) var store: any AnyStore
    private(set) var window: HistoryWindow
    private(set) var durable = 0
    private(set) var published = 0
    var byteLimit: Int
    /// Set to see what the window does without its states ahead of the ring.
    var withoutStatesAhead = false

    init(history: Int, keepEvery: Int, keptStateBudget: Int = 1 << 30, byteLimit: Int = 64 << 20) throws {
        store = try tallyKind.makeStore(state: nil, version: 0, environment: .immediate)
        window = HistoryWindow(length: history, keepEvery: keepEvery, keptStateBudget: keptStateBudget, version: 0, state: store.sharedState())
        self.byteLimit = byteLimit
    }

    var head: Int { store.version }

    /// Applies `count` actions as one batch (each with a note of `noteBytes`), durable and
    /// published at once unless `durable` is false (then an append is in flight).
    func submit(_ count: Int, noteBytes: Int = 0, durable makeDurable: Bool = true) throws {
        let note = noteBytes > 0 ? String(repeating: "x", count: noteBytes) : nil
        let records = (0..<count).map { _ in ActionRecord(type: "tally/add", payload: note.map(JSONValue.string), at: 0, source: .client) }
        let ahead = withoutStatesAhead ? [] : window.statesAhead(adding: count, head: head, durable: durable, headState: { store.sharedState() },
                                                                 rebuild: { try? replay($0).sharedState() })
        let applied = try store.apply(records, keepingEvery: window.keepEvery)
        window.record(applied.changes, keptInside: applied.kept, ahead: ahead, headState: { store.sharedState() },
                      durable: durable, published: published, byteLimit: byteLimit)
        if makeDurable { self.makeDurable(through: head) }
    }

    /// The journal made the versions through `version` durable; the subscribers have them.
    func makeDurable(through version: Int) {
        durable = version
        published = version
        window.trim(durable: durable, published: published, byteLimit: byteLimit)
    }

    /// The journal refused what is in flight: the head goes back to the durable version.
    func rollBack() throws {
        store = try replay(window.replayPlan(to: durable, head: head))
        window.rollBack(to: durable)
    }

    func replay(_ plan: ReplayPlan) throws -> any AnyStore {
        let rebuilt = try tallyKind.makeStore(shared: plan.base.state, version: plan.base.version, environment: .immediate)
        _ = try rebuilt.replay(plan.entries.map(\.record))
        return rebuilt
    }

    /// The count the state at `version` holds, rebuilt as `?version=` rebuilds it.
    func count(at version: Int) throws -> Int {
        let state = try replay(window.replayPlan(to: version, head: head)).stateValue()
        guard case .object(let members) = state, case .int(let count)? = members["n"] else {
            throw VersionGone(version: version, oldest: -1)
        }
        return count
    }

    /// The versions the action log lists as the window's start and end: after `first - 1`
    /// through the durable version.
    var listed: ClosedRange<Int> { ((window.history.firstVersion ?? head + 1) - 1)...durable }

    /// Every version the log lists can be read with `?version=`, and holds the right state.
    func assertEveryListedVersionRebuilds(_ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line) {
        for version in listed {
            XCTAssertEqual(try? count(at: version), version, "version \(version) of \(listed) \(message())", file: file, line: line)
        }
        XCTAssertEqual(window.oldestVersion(head: head), listed.lowerBound, "the oldest rebuildable version is where the log starts \(message())",
                       file: file, line: line)
    }
}
