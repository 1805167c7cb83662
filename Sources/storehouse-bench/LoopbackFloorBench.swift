import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `storehouse-bench loopback-floor [-n CONNECTIONS] [--rounds R] [--bytes B] [--gap-ms MS]`:
/// what one SSE delivery costs the kernel on this machine, with no server at all. N loopback TCP
/// connections (TCP_NODELAY on the sending side, as the server sets it); each round writes B bytes
/// (default 170, one `change` event as an HTTP chunk) to every connection with one send(2) each,
/// then reads every connection once with recv(2), then sleeps (default 200 ms, so caches go cold
/// as between two changes). It prints the thread CPU time per send and per recv, and what that
/// allows: with S + R µs of CPU per delivery and C cores, at most C / (S + R) deliveries per
/// second, so at most that / N actions per second with every change delivered on its own write.
func runLoopbackFloorBench(_ arguments: [String]) {
    var connections = 10_000
    var rounds = 10
    var bytes = 170
    var gapMs = 200
    var i = 0
    while i < arguments.count {
        let value = i + 1 < arguments.count ? Int(arguments[i + 1]) : nil
        switch arguments[i] {
        case "-n": connections = max(1, value ?? connections); i += 1
        case "--rounds": rounds = max(1, value ?? rounds); i += 1
        case "--bytes": bytes = max(1, value ?? bytes); i += 1
        case "--gap-ms": gapMs = max(0, value ?? gapMs); i += 1
        default:
            print("usage: storehouse-bench loopback-floor [-n CONNECTIONS] [--rounds R] [--bytes B] [--gap-ms MS]")
            exit(2)
        }
        i += 1
    }
    let nofile = fanoutRaiseNoFile(need: 2 * connections + 16, warn: false)
    if nofile != Int.max && nofile < 2 * connections + 32 {
        connections = max(1, (nofile - 32) / 2)
        print("# RLIMIT_NOFILE \(nofile): \(connections) connections")
    }
    _ = signal(SIGPIPE, SIG_IGN)

    // A listener on a free loopback port, then N connected pairs.
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else { fanoutFail("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
    guard bound == 0, listen(listener, 4096) == 0 else { fanoutFail("bind/listen: \(String(cString: strerror(errno)))") }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
    let port = Int(UInt16(bigEndian: address.sin_port))
    guard let peer = FanoutAddress.resolve(host: "127.0.0.1", port: port) else { fanoutFail("resolve") }
    var senders: [Int32] = []
    var readers: [Int32] = []
    for _ in 0..<connections {
        guard case .success(let reader) = peer.connectBlocking() else { fanoutFail("connect: \(String(cString: strerror(errno)))") }
        let sender = accept(listener, nil, nil)
        guard sender >= 0 else { fanoutFail("accept: \(String(cString: strerror(errno)))") }
        fanoutSetNoDelay(sender)
        fanoutSetNonBlocking(sender)
        fanoutSetNonBlocking(reader)
        senders.append(sender)
        readers.append(reader)
    }
    defer {
        for fd in senders + readers { _ = close(fd) }
        _ = close(listener)
    }

    func threadCPU() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
    let message = [UInt8](repeating: 0x78, count: bytes)
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    var sendNanos: [Double] = []
    var recvNanos: [Double] = []
    var failures = 0
    for _ in 0..<rounds {
        if gapMs > 0 { usleep(UInt32(gapMs * 1_000)) }
        let t0 = threadCPU()
        message.withUnsafeBytes { p in
            for fd in senders where send(fd, p.baseAddress, p.count, Int32(MSG_NOSIGNAL)) != p.count { failures += 1 }
        }
        let t1 = threadCPU()
        buffer.withUnsafeMutableBytes { p in
            for fd in readers where recv(fd, p.baseAddress, p.count, 0) <= 0 { failures += 1 }
        }
        let t2 = threadCPU()
        sendNanos.append(Double(t1 - t0) / Double(connections))
        recvNanos.append(Double(t2 - t1) / Double(connections))
    }
    func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
    let sendUs = median(sendNanos) / 1_000
    let recvUs = median(recvNanos) / 1_000
    let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
    let perSecond = cores / ((sendUs + recvUs) / 1e6)
    print("# loopback-floor: \(connections) connections, \(rounds) rounds of one \(bytes)-byte send then one recv each, \(gapMs) ms apart; thread CPU time, median of rounds")
    print(String(format: "#   send %.2f µs  recv %.2f µs  per delivery %.2f µs  (failed calls: %d)", sendUs, recvUs, sendUs + recvUs, failures))
    print(String(format: "#   on %.0f cores: at most %.0f deliveries/s, i.e. %.1f actions/s to %d subscribers, each change on its own write",
                 cores, perSecond, perSecond / Double(connections), connections))
    print(String(format: "RESULT workload=loopback-floor connections=%d bytes=%d send_us=%.3f recv_us=%.3f delivery_us=%.3f max_deliveries_s=%.0f max_actions_s=%.1f",
                 connections, bytes, sendUs, recvUs, sendUs + recvUs, perSecond, perSecond / Double(connections)))
}
