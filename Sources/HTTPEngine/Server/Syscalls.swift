#if canImport(Glibc)
import Glibc
#endif

/// Thin wrappers over the few Linux calls the loops use, so the loop code reads as protocol logic.
enum Syscalls {
    static func monotonicMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1_000
    }

    /// Raises the soft descriptor limit to the hard one so 10k connections fit.
    static func raiseFileLimit() {
        var limit = rlimit()
        if getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(RLIMIT_NOFILE_VALUE, &limit)
        }
    }

    static var RLIMIT_NOFILE_VALUE: __rlimit_resource_t { __rlimit_resource_t(UInt32(RLIMIT_NOFILE.rawValue)) }

    static func ignoreSIGPIPE() { _ = signal(SIGPIPE, SIG_IGN) }

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// A non-blocking TCP socket bound to `host:port` (SO_REUSEADDR, so connections of an
    /// earlier run in TIME_WAIT do not hold the port).
    private static func boundSocket(host: String, port: Int, reusePort: Bool) throws(HTTPServerError) -> Int32 {
        var addr6 = in6_addr()
        var addr4 = in_addr()
        let host = host == "localhost" ? "127.0.0.1" : host
        let isV6: Bool
        if inet_pton(AF_INET, host, &addr4) == 1 { isV6 = false }
        else if inet_pton(AF_INET6, host, &addr6) == 1 { isV6 = true }
        else { throw .invalidAddress(host) }
        let fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if reusePort { _ = setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size)) }
        var rc: Int32
        if isV6 {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = in_port_t(UInt16(port).bigEndian)
            sa.sin6_addr = addr6
            rc = withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = in_port_t(UInt16(port).bigEndian)
            sa.sin_addr = addr4
            rc = withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard rc == 0 else { let e = errno; _ = close(fd); throw .system("bind", e) }
        return fd
    }

    /// A non-blocking listening socket with SO_REUSEPORT, so each loop can own one.
    ///
    /// SO_REUSEPORT would also let a second process of the same user join the group on a port
    /// already in use, and take a share of its connections without either noticing. So the first
    /// listener on a fixed port (`exclusive`) is preceded by a probe bound without SO_REUSEPORT,
    /// which fails with EADDRINUSE while anything listens there.
    static func makeListener(host: String, port: Int, backlog: Int, exclusive: Bool = false) throws(HTTPServerError) -> (fd: Int32, port: Int) {
        if exclusive && port != 0 {
            _ = close(try boundSocket(host: host, port: port, reusePort: false))
        }
        let fd = try boundSocket(host: host, port: port, reusePort: true)
        guard listen(fd, Int32(backlog)) == 0 else { let e = errno; _ = close(fd); throw .system("listen", e) }
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        let isV6 = storage.ss_family == sa_family_t(AF_INET6)
        let boundPort: UInt16 = withUnsafePointer(to: &storage) { p in
            isV6 ? p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
                 : p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        return (fd, Int(boundPort))
    }
}
