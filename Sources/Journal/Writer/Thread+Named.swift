import Dispatch
import Foundation

extension Thread {
    /// Runs `body` on a new thread that the kernel knows as `name` (`top -H`, `perf`, `/proc`).
    ///
    /// Foundation on Linux hands a name to the OS thread only when it is set from that thread once
    /// `start()` has stored the thread's handle: set before `start()`, or too early, it is dropped.
    /// So the new thread waits for `start()` to return. Linux keeps at most 15 bytes of a name.
    /// (The same helper is in `HTTPEngine` and in `Journal`, which share no module: change both.)
    static func startNamed(_ name: String, _ body: @escaping @Sendable () -> Void) {
        assert(name.utf8.count <= 15, "Linux refuses a thread name of more than 15 bytes")
        let started = DispatchSemaphore(value: 0)
        let thread = Thread {
            started.wait()
            Thread.current.name = name
            body()
        }
        thread.start()
        started.signal()
    }
}
