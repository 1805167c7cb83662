import Dispatch
import Synchronization
@testable import Journal

/// Appends records to a journal opened by the test (not by a server) and waits for the answer:
/// how a test writes what an older or damaged server left on disk.
func appendAndWait(_ journal: Journal, session: String, records: [(version: Int, bytes: [UInt8])]) -> Result<Void, JournalError>? {
    let appended = DispatchSemaphore(value: 0)
    let result = Mutex<Result<Void, JournalError>?>(nil)
    journal.append(session: session, records: records) { r in
        result.withLock { $0 = r }
        appended.signal()
    }
    appended.wait()
    return result.withLock { $0 }
}
