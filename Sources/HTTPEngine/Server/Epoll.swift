#if canImport(Glibc)
import Glibc
#endif

/// epoll, eventfd and accept4, which the toolchain's Glibc module does not import (no sys/epoll.h).
/// They are resolved once with dlsym and called through C function pointers, so no C target or
/// package is needed and the calling convention is the C one. `package` access: storehouse-bench's
/// SSE load generator uses the same wrapper.
package enum Epoll {
    package static let IN: UInt32 = 0x001
    package static let OUT: UInt32 = 0x004
    package static let ERR: UInt32 = 0x008
    package static let HUP: UInt32 = 0x010
    package static let CTL_ADD: Int32 = 1
    package static let CTL_DEL: Int32 = 2
    package static let CTL_MOD: Int32 = 3
    package static let CLOEXEC: Int32 = 0o2000000
    package static let EFD_NONBLOCK: Int32 = 0o4000
    package static let EFD_CLOEXEC: Int32 = 0o2000000

    /// struct epoll_event is packed on x86_64 (12 bytes), naturally aligned elsewhere (16).
    #if arch(x86_64)
    package static let eventSize = 12
    package static let dataOffset = 4
    #else
    package static let eventSize = 16
    package static let dataOffset = 8
    #endif

    package typealias CreateFn = @convention(c) (Int32) -> Int32
    package typealias CtlFn = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    package typealias WaitFn = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    package typealias EventFDFn = @convention(c) (UInt32, Int32) -> Int32
    package typealias Accept4Fn = @convention(c) (Int32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32) -> Int32

    package struct Functions: @unchecked Sendable {  // immutable C function pointers resolved once
        package let create1: CreateFn
        package let ctl: CtlFn
        package let wait: WaitFn
        package let eventfd: EventFDFn
        package let accept4: Accept4Fn
    }

    package static let functions: Functions? = {
        guard let handle = dlopen(nil, RTLD_NOW),
              let create1 = dlsym(handle, "epoll_create1"),
              let ctl = dlsym(handle, "epoll_ctl"),
              let wait = dlsym(handle, "epoll_wait"),
              let eventfd = dlsym(handle, "eventfd"),
              let accept4 = dlsym(handle, "accept4") else { return nil }
        return Functions(create1: unsafeBitCast(create1, to: CreateFn.self),
                         ctl: unsafeBitCast(ctl, to: CtlFn.self),
                         wait: unsafeBitCast(wait, to: WaitFn.self),
                         eventfd: unsafeBitCast(eventfd, to: EventFDFn.self),
                         accept4: unsafeBitCast(accept4, to: Accept4Fn.self))
    }()

    package static func control(_ fns: Functions, _ epfd: Int32, _ op: Int32, _ fd: Int32, _ events: UInt32) -> Int32 {
        var raw: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &raw) { p in
            p.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            p.storeBytes(of: UInt64(UInt32(bitPattern: fd)), toByteOffset: dataOffset, as: UInt64.self)
            return fns.ctl(epfd, op, fd, p.baseAddress)
        }
    }

    package static func event(_ buffer: UnsafeMutableRawPointer, _ i: Int) -> (events: UInt32, fd: Int32) {
        let base = buffer + i * eventSize
        let events = base.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
        let data = base.loadUnaligned(fromByteOffset: dataOffset, as: UInt64.self)
        return (events, Int32(bitPattern: UInt32(truncatingIfNeeded: data)))
    }
}
