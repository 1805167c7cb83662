// README: client
import Foundation
import Notes
import StoreCore
import StorehouseClient

// The notes kind's own State and Action types: the same code the server runs.
let notes = Kind(name: "notes", reducer: notesReducer)
let client = StorehouseClient(baseURL: URL(string: CommandLine.arguments.dropFirst().first ?? "http://127.0.0.1:8080")!)

let session = try await client.createSession(notes)            // POST /sessions {"kind":"notes"}
let mirror = RemoteStore(session: session)                     // follows GET …/events, resumes after a drop
let answer = try await session.send(.add("milk"))              // Versioned<NotesState>: version 1, ["milk"]
_ = try await session.send([.add("eggs"), .add("flour")], ifMatch: answer.version)   // one batch, 412 if someone was faster

for await update in mirror.updates() {                         // typed states, each version once, in order
    print(update.version, update.state.notes)
    if update.version == 3 { break }
}
mirror.stop()
// README: end
