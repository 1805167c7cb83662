#if canImport(Glibc)
import Glibc
#endif

/// Threads the kernel knows by name (`top -H`, `perf`, `/proc/<pid>/task/*/comm`): the event
/// loops, the journal's writer and syncer, the server's own helpers.
///
/// ```swift
/// NamedThread.start("journal-writer") { writer.run() }
/// ```
package enum NamedThread {
    /// What the new thread runs, carried through `pthread_create`'s one pointer.
    private final class Start: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    private typealias SetNameFn = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32

    /// `pthread_setname_np`, which the toolchain's Glibc module does not import (a GNU
    /// extension): resolved once with dlsym, as `Epoll` resolves epoll; nil leaves threads unnamed.
    private static let setName: SetNameFn? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "pthread_setname_np") else { return nil }
        return unsafeBitCast(symbol, to: SetNameFn.self)
    }()

    /// Runs `body` on a new detached thread named `name`. Linux keeps at most 15 bytes of a name
    /// (a longer one is refused, and the thread keeps the process's). Returns false when the
    /// system would not create a thread (`body` then never runs).
    @discardableResult
    package static func start(_ name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        assert(name.utf8.count <= 15, "Linux refuses a thread name of more than 15 bytes")
        let start = Unmanaged.passRetained(Start(name: name, body: body))
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
            // Named from the thread itself: nothing else knows its handle before it runs.
            if let setName = NamedThread.setName { _ = setName(pthread_self(), start.name) }
            start.body()
            return nil
        }, start.toOpaque())
        guard created == 0 else {
            start.release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
