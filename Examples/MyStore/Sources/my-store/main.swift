// README: main
import Notes
import SignIn
import StoreCore
import StorehouseServer

// The storehouse command (same flags, same environment variables) serving these kinds.
try Storehouse.main(kinds: [.counter, Kind(name: "notes", reducer: notesReducer), .signIn])
// README: end
