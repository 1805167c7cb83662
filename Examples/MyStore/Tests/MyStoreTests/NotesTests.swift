// README: notes-tests
import Notes
import StoreCore
import StoreTesting
import XCTest

final class NotesTests: XCTestCase {
    func testANoteIsAddedAndAnEmptyOneRefused() {
        let store = TestStore(reducer: notesReducer)
        store.send(.add("milk")) { $0.notes = ["milk"] }                              // the whole expected change
        store.send(.add(""), refusedWith: .rejected(detail: "a note needs text"))    // refused: nothing changes
    }

    func testEveryPatchTurnsTheOldStateIntoTheNew() throws {
        // Random valid, refused and unknown actions; each patch must turn the old JSON into the new.
        try assertPatchesMatchState(of: Kind(name: "notes", reducer: notesReducer), steps: 300) { g, _ in
            let text = ["", "a", "b~/"][Int.random(in: 0..<3, using: &g)]
            let type = Int.random(in: 0..<10, using: &g) == 0 ? "notes/remove" : "notes/add"
            return ActionRecord(type: type, payload: .string(text), at: 0, source: .client)
        }
    }
}
// README: end
