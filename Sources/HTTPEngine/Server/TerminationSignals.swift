#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import SystemSupport

/// SIGTERM / SIGINT → a callback on an ordinary thread, through the self-pipe trick: the C handler only
/// writes one byte (async-signal-safe); a watcher thread reads it and runs the callbacks.
enum TerminationSignals {
    private static let callbacks = Mutex<[@Sendable () -> Void]>([])
    private static let installed = Atomic<Bool>(false)
    /// Written by the signal handler, which may not take locks; set once before the handler is installed.
    nonisolated(unsafe) private static var writeFD: Int32 = -1

    static func onSignal(_ body: @escaping @Sendable () -> Void) {
        callbacks.withLock { $0.append(body) }
        guard !installed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        let readFD = fds[0]
        writeFD = fds[1]
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        NamedThread.start("http-signals") {
            var byte: UInt8 = 0
            while true {
                let n = read(readFD, &byte, 1)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                for body in TerminationSignals.callbacks.withLock({ $0 }) { body() }
            }
        }
        for sig in [SIGTERM, SIGINT] {
            _ = signal(sig) { _ in
                var one: UInt8 = 1
                _ = write(TerminationSignals.writeFD, &one, 1)
            }
        }
    }
}
