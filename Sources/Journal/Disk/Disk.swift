import Glibc
import Synchronization

/// Thin POSIX layer every journal file operation goes through, so a `JournalFault` can stand in for the disk.
final class Disk: Sendable {
    let directory: String
    private let fault = Mutex<JournalFault?>(nil)

    init(directory: String) {
        self.directory = directory
    }

    /// Test hook: runs on the syncing thread before every sync, so a test can hold one open.
    private let syncGate = Mutex<(@Sendable () -> Void)?>(nil)

    func inject(_ f: JournalFault?) {
        fault.withLock { $0 = f }
    }

    func setSyncGate(_ gate: (@Sendable () -> Void)?) {
        syncGate.withLock { $0 = gate }
    }

    private func passSyncGate() {
        if let gate = syncGate.withLock({ $0 }) { gate() }
    }

    /// The errno an injected fault wants for `op` on the file `name`, consuming one use of a counted fault.
    /// `name` is built only for a fault aimed at one file: the names of the writer's hot path are
    /// built on demand (a segment's name costs more than the rest of an append's bookkeeping).
    private func injected(_ op: JournalFault.Operation, name: () -> String? = { nil }) -> Int32? {
        fault.withLock { f -> Int32? in
            guard var current = f, current.operation == op else { return nil }
            if let file = current.file, file != name() { return nil }
            if let c = current.count {
                if c <= 1 { f = nil } else { current.count = c - 1; f = current }
            }
            return current.errno
        }
    }

    func path(_ name: String) -> String { directory + "/" + name }

    func openForAppend(_ name: String, create: Bool) throws(JournalError) -> Int32 {
        let flags = O_WRONLY | O_CLOEXEC | (create ? (O_CREAT | O_EXCL) : 0)
        let fd = open(path(name), flags, 0o644)
        if fd < 0 {
            let e = errno
            if e == EEXIST { throw .sessionExists(name) }
            throw .io(operation: "open", path: path(name), errno: e)
        }
        return fd
    }

    /// Opens `name` for appending, creating it if absent: every write lands at its end (Linux's
    /// `pwrite` ignores the offset under `O_APPEND`), so a crash leaves what was there intact.
    func openAppending(_ name: String) throws(JournalError) -> Int32 {
        let fd = open(path(name), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        if fd < 0 { throw .io(operation: "open", path: path(name), errno: errno) }
        return fd
    }

    func openTruncating(_ name: String) throws(JournalError) -> Int32 {
        let fd = open(path(name), O_WRONLY | O_CLOEXEC | O_CREAT | O_TRUNC, 0o644)
        if fd < 0 { throw .io(operation: "open", path: path(name), errno: errno) }
        return fd
    }

    /// Writes all of `bytes` at `offset`; a short write that cannot continue is an error.
    func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int, name: @autoclosure () -> String) throws(JournalError) {
        if let e = injected(.write, name: { name() }) { throw .io(operation: "write", path: path(name()), errno: e) }
        var done = 0
        let failure: Int32? = bytes.withUnsafeBytes { raw -> Int32? in
            guard let base = raw.baseAddress else { return nil }
            while done < raw.count {
                let n = pwrite(fd, base + done, raw.count - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if n == 0 { return EIO }
                done += n
            }
            return nil
        }
        if let e = failure { throw .io(operation: "write", path: path(name()), errno: e) }
    }

    func dataSync(_ fd: Int32, name: @autoclosure () -> String) throws(JournalError) {
        passSyncGate()
        if let e = injected(.sync, name: { name() }) { throw .io(operation: "fdatasync", path: path(name()), errno: e) }
        while fdatasync(fd) != 0 {
            if errno != EINTR { throw .io(operation: "fdatasync", path: path(name()), errno: errno) }
        }
    }

    /// `syncfs(2)`: one call writes back every dirty file of the filesystem (looked up at run time:
    /// Glibc's Swift overlay does not export it).
    func syncFilesystem(_ fd: Int32) throws(JournalError) {
        passSyncGate()
        if let e = injected(.sync) { throw .io(operation: "syncfs", path: directory, errno: e) }
        guard let fn = Disk.syncfsFunction else { throw .io(operation: "syncfs", path: directory, errno: ENOSYS) }
        if fn(fd) != 0 { throw .io(operation: "syncfs", path: directory, errno: errno) }
    }

    private static let syncfsFunction: (@convention(c) (Int32) -> Int32)? = {
        guard let sym = dlsym(nil, "syncfs") else { return nil }
        return unsafeBitCast(sym, to: (@convention(c) (Int32) -> Int32).self)
    }()

    func truncate(_ fd: Int32, to size: Int, name: @autoclosure () -> String) throws(JournalError) {
        if ftruncate(fd, off_t(size)) != 0 { throw .io(operation: "ftruncate", path: path(name()), errno: errno) }
    }

    func rename(_ from: String, _ to: String) throws(JournalError) {
        if Glibc.rename(path(from), path(to)) != 0 { throw .io(operation: "rename", path: path(from), errno: errno) }
    }

    func unlink(_ name: String) {
        _ = Glibc.unlink(path(name))
    }

    func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Names in the directory (not `.`/`..`).
    func list() throws(JournalError) -> [String] {
        guard let dir = opendir(directory) else { throw .io(operation: "opendir", path: directory, errno: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The whole file in one read, or its first `limit` bytes.
    func readAll(_ name: String, limit: Int = .max) throws(JournalError) -> [UInt8] {
        if let e = injected(.read, name: { name }) { throw .io(operation: "read", path: path(name), errno: e) }
        let fd = open(path(name), O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw .io(operation: "open", path: path(name), errno: errno) }
        defer { Glibc.close(fd) }
        var st = stat()
        if fstat(fd, &st) != 0 { throw .io(operation: "fstat", path: path(name), errno: errno) }
        let size = min(Int(st.st_size), max(0, limit))
        if size == 0 { return [] }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
            var done = 0
            while done < size {
                guard let base = buf.baseAddress else { break }
                let n = read(fd, base + done, size - done)
                if n < 0 { if errno == EINTR { continue }; failure = errno; break }
                if n == 0 { break }
                done += n
            }
            count = done
        }
        if failure != 0 { throw .io(operation: "read", path: path(name), errno: failure) }
        return bytes
    }

    /// Cuts a file outside the writer (recovery of a torn tail).
    func truncateFile(_ name: String, to size: Int) throws(JournalError) {
        if Glibc.truncate(path(name), off_t(size)) != 0 { throw .io(operation: "truncate", path: path(name), errno: errno) }
    }
}
