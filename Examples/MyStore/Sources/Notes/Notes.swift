// README: notes-kind
import StoreCore

/// `notes`: {"notes": [...]}. A State, an Action and a reducer are a kind.
public struct NotesState: StoreState, PatchDiffable, Equatable {
    public var notes: [String] = []
    public static var initial: NotesState { NotesState() }
    public init() {}
    // JSON out (keys in the order your docs show), JSON in (errors name the path), the patch.
    public func writeJSON(to w: inout JSONWriter) { w.beginObject(); w.key("notes"); notes.writeJSON(to: &w); w.endObject() }
    public init(json: JSONValue, path: String) throws(StateDecodingError) { notes = try json.decodeMember("notes", at: path) }
    public func diff(from old: NotesState, at path: String, into patch: inout PatchWriter) { patch.field(notes, old.notes, path, "/notes") }
}

public enum NotesAction: StoreAction, Equatable {
    case add(String)
    public static let clientTypes = ["notes/add"]
    public init(type: String, payload: JSONValue?) throws(ActionError) {
        guard type == "notes/add" else { throw Self.unknown(type) }   // -> 422 with the valid types
        self = .add(try Payload.string(payload))                     // bad payload -> 422 naming the field
    }
    public var type: String { "notes/add" }
    public var payload: JSONValue? { if case .add(let text) = self { .string(text) } else { nil } }
}

public let notesReducer = Reducer<NotesState, NotesAction> { state, action, _ throws(Rejection) in
    guard case .add(let text) = action, !text.isEmpty else { throw .rejected("a note needs text") }   // -> 409, state untouched
    state.notes.append(text)
    return .none   // or .run { environment, send in … } / .output("notes/added")
}
// README: end
