import StoreCore

/// A kind the server does not ship, as a package that depends on Storehouse would write it.
struct Tally: StoreState, PatchDiffable, Equatable {
    var total = 0
    static var initial: Tally { Tally() }
    init() {}
    init(json: JSONValue, path: String) throws(StateDecodingError) { total = try json.decodeMember("total", at: path) }
    func writeJSON(to w: inout JSONWriter) { w.beginObject(); w.key("total"); w.write(total); w.endObject() }
    func diff(from old: Tally, at path: String, into patch: inout PatchWriter) { patch.field(total, old.total, path, "/total") }
}

enum TallyAction: StoreAction, Equatable {
    case add(Int)
    static let clientTypes = ["tally/add"]
    init(type: String, payload: JSONValue?) throws(ActionError) {
        guard type == "tally/add" else { throw Self.unknown(type) }
        self = .add(try Payload.int(payload, field: "payload"))
    }
    var type: String { "tally/add" }
    var payload: JSONValue? { if case .add(let n) = self { .int(n) } else { nil } }
}

let tallyReducer = Reducer<Tally, TallyAction> { state, action, _ throws(Rejection) in
    guard case .add(let n) = action, n > 0 else { throw .rejected("a tally only grows") }
    state.total += n
    return .none
}

let tallyKind = Kind(name: "tally", reducer: tallyReducer)
