import Foundation
import StoreCore
import StoreKinds

/// `storehouse-bench bigstore [--server PATH] [--tasks N] [--batch N] [--in-memory] [--decode] [--recovery-only]`: one big
/// `tasks` session over HTTP against a `storehouse` server this starts on a free loopback port
/// (default `.build/release/storehouse`, default flags but `--fsync never`, in a temporary data
/// directory). Prints RESULT lines:
/// - fill: N tasks (default 1,000,000) in batches of 2,000 with `Prefer: return=minimal`; the
///   per-action time of the batches up to 10,000 tasks and of the last five, and their ratio;
/// - toggle: `tasks/toggleDone` one per request on the big session and on a 10-task one, taking
///   turns: p50, p99, p99.9 and the p50 ratio;
/// - version: `?version=head-1000&path=/tasks/byId/7`, p50 and p99;
/// - memory: the server's RSS growth for the big session next to the same tasks held once in this
///   process (an `EntityTable`, measured the same way);
/// - recovery: the time from restarting the server on the same directory to ready (not with
///   `--in-memory`);
/// - snapshot_neighbour: a neighbour session's POST latencies while the big one takes batches of
///   toggles (of `--batch`) that, on disk, make it write a snapshot;
/// - `--decode`: only the encoding, parsing and decoding of a state of N tasks, in this process;
/// - `--recovery-only [--baseline PATH] [--runs N]`: the fill, then only restarts (see `benchRecoveries`).
func runBigStoreBench(_ arguments: [String]) {
    func value(_ flag: String) -> String? {
        arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    }
    let binary = value("--server") ?? ".build/release/storehouse"
    let tasks = value("--tasks").flatMap(Int.init) ?? 1_000_000
    let batch = value("--batch").flatMap(Int.init) ?? 2_000
    let inMemory = arguments.contains("--in-memory")
    if arguments.contains("--decode") { return benchDecode(tasks: tasks) }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bigstore-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var server = BenchServer(binary: binary, directory: inMemory ? nil : directory)
    defer { server.stop() }
    let emptyRSS = server.rssKiB()
    print("# storehouse-bench bigstore: \(tasks) tasks in batches of \(batch), \(inMemory ? "in memory" : "on disk, --fsync never"), server \(binary)")

    var client = BenchClient(port: server.port)
    let big = client.createSession(kind: "tasks")
    let small = client.createSession(kind: "tasks")
    for i in 1...10 { _ = client.post(small, [#"{"type":"tasks/add","payload":{"title":"task \#(i)"}}"#]) }

    // Fill.
    var perAction: [(tasks: Int, micros: Double)] = []
    var head = 0
    let fillStart = benchNow()
    var filled = 0
    while filled < tasks {
        let n = min(batch, tasks - filled)
        let actions = (0..<n).map { #"{"type":"tasks/add","payload":{"title":"task number \#(filled + $0 + 1)"}}"# }
        let start = benchNow()
        head = client.post(big, actions)
        perAction.append((filled + n, Double(benchNow() - start) / 1e3 / Double(n)))
        filled += n
        if filled % 100_000 == 0 { print("progress tasks=\(filled) per_action_us=\(String(format: "%.1f", perAction[perAction.count - 1].micros)) elapsed_s=\(String(format: "%.1f", Double(benchNow() - fillStart) / 1e9))") }
    }
    let early = perAction.filter { $0.tasks <= 10_000 }.map(\.micros)
    let late = perAction.suffix(5).map(\.micros)
    let earlyMean = early.reduce(0, +) / Double(max(1, early.count)), lateMean = late.reduce(0, +) / Double(max(1, late.count))
    print(String(format: "RESULT fill tasks=%d seconds=%.1f per_action_us_at_10k=%.1f per_action_us_at_end=%.1f ratio=%.2f",
                 tasks, Double(benchNow() - fillStart) / 1e9, earlyMean, lateMean, lateMean / earlyMean))

    if arguments.contains("--recovery-only") {
        server.stop()
        return benchRecoveries(tasks: tasks, big: big, directory: directory, binaries: [binary] + (value("--baseline").map { [$0] } ?? []),
                               runs: value("--runs").flatMap(Int.init) ?? 3)
    }

    // Toggles, taking turns.
    var bigLatencies: [Int64] = [], smallLatencies: [Int64] = []
    var g = SystemRandomNumberGenerator()
    for _ in 0..<10 {
        for _ in 0..<1_000 {
            let t0 = benchNow()
            _ = client.post(small, [#"{"type":"tasks/toggleDone","payload":{"id":\#(Int.random(in: 1...10, using: &g))}}"#])
            smallLatencies.append(benchNow() - t0)
        }
        for _ in 0..<1_000 {
            let t0 = benchNow()
            head = client.post(big, [#"{"type":"tasks/toggleDone","payload":{"id":\#(Int.random(in: 1...tasks, using: &g))}}"#])
            bigLatencies.append(benchNow() - t0)
        }
    }
    let p50Small = percentile(smallLatencies, 0.5), p50Big = percentile(bigLatencies, 0.5)
    print(String(format: "RESULT toggle tasks=10 p50_us=%.0f p99_us=%.0f p999_us=%.0f", p50Small, percentile(smallLatencies, 0.99), percentile(smallLatencies, 0.999)))
    print(String(format: "RESULT toggle tasks=%d p50_us=%.0f p99_us=%.0f p999_us=%.0f max_us=%.0f p50_ratio=%.2f", tasks, p50Big,
                 percentile(bigLatencies, 0.99), percentile(bigLatencies, 0.999), percentile(bigLatencies, 1), p50Big / p50Small))

    // Time travel to one entity.
    var reads: [Int64] = []
    for _ in 0..<200 {
        let t0 = benchNow()
        let (status, _) = client.request("GET", "/sessions/\(big.id)/state?version=\(head - 1_000)&path=/tasks/byId/7", token: big.token)
        reads.append(benchNow() - t0)
        if status != 200 { benchFail("GET ?version=\(head - 1_000)&path=/tasks/byId/7 answered \(status)") }
    }
    print(String(format: "RESULT version_path tasks=%d back=1000 p50_us=%.0f p99_us=%.0f", tasks, percentile(reads, 0.5), percentile(reads, 0.99)))

    // Memory: the server's growth against the same tasks held once here.
    let serverGrowth = server.rssKiB() - emptyRSS
    let before = benchSelfRSSKiB()
    let table = EntityTable((1...tasks).map { TaskItem(id: $0, title: "task number \($0)", done: false) })
    let once = benchSelfRSSKiB() - before
    print(String(format: "RESULT memory tasks=%d server_growth_mib=%.0f held_once_mib=%.0f ratio=%.2f", table.count,
                 Double(serverGrowth) / 1024, Double(once) / 1024, Double(serverGrowth) / Double(max(1, once))))

    guard !inMemory else {
        // In memory no snapshot is written: the neighbour waits only on the big batches' work.
        return neighbourPOSTs(&client, port: server.port, big: big, tasks: tasks, batch: batch)
    }

    // Recovery.
    server.stop()
    let restart = benchNow()
    server = BenchServer(binary: binary, directory: directory)
    print(String(format: "RESULT recovery tasks=%d seconds_to_ready=%.2f", tasks, Double(benchNow() - restart) / 1e9))
    var again = BenchClient(port: server.port)
    let (status, body) = again.request("GET", "/sessions/\(big.id)/state?path=/tasks/byId/\(tasks)", token: big.token)
    if status != 200 { benchFail("after recovery, task \(tasks) answered \(status): \(String(decoding: body.prefix(200), as: UTF8.self))") }

    // On disk the first snapshot after a restart is due 10,000 versions on (the default
    // --history), later ones after a quarter of the state's size in actions.
    neighbourPOSTs(&again, port: server.port, big: big, tasks: tasks, batch: batch)
}

/// A neighbour session's POSTs, one at a time, while the big session takes 30,000
/// `tasks/toggleDone` in batches of `batch` from another connection (and, on disk, writes a
/// snapshot of its state). The kernel's `SO_REUSEPORT` hash decides which event loop a
/// connection gets, so the POSTs take turns on four connections: with one loop per core, some
/// share the big session's loop in almost every run (a one-in-2⁴ miss on two cores).
private func neighbourPOSTs(_ client: inout BenchClient, port: Int, big: BenchClient.SessionRef, tasks: Int, batch: Int) {
    let other = client.createSession(kind: "counter")
    var clients = (0..<4).map { _ in BenchClient(port: port) }
    let stop = BenchFlag()
    let toggler = Thread {
        var c = BenchClient(port: port)
        var g = SystemRandomNumberGenerator()
        for _ in 0..<max(1, 30_000 / batch) {
            _ = c.post(big, (0..<batch).map { _ in #"{"type":"tasks/toggleDone","payload":{"id":\#(Int.random(in: 1...tasks, using: &g))}}"# })
        }
        stop.set()
    }
    toggler.start()
    var during: [Int64] = []
    while !stop.isSet {
        let t0 = benchNow()
        _ = clients[during.count % clients.count].post(other, [#"{"type":"counter/incrTapped"}"#])
        during.append(benchNow() - t0)
    }
    print(String(format: "RESULT snapshot_neighbour batch=%d posts=%d p50_us=%.0f p99_us=%.0f max_us=%.0f", batch, during.count,
                 percentile(during, 0.5), percentile(during, 0.99), percentile(during, 1)))
}

/// `--recovery-only`: restarts on the filled directory `runs` times, by each binary in turn (the
/// server, then `--baseline` when given: the same journal read by two builds, interleaved), and
/// prints each restart's seconds to ready (and the server's peak RSS then) and their median per binary.
private func benchRecoveries(tasks: Int, big: BenchClient.SessionRef, directory: String, binaries: [String], runs: Int) {
    var seconds: [[Double]] = Array(repeating: [], count: binaries.count)
    for run in 1...max(1, runs) {
        for (b, binary) in binaries.enumerated() {
            let restart = benchNow()
            var server = BenchServer(binary: binary, directory: directory)
            let elapsed = Double(benchNow() - restart) / 1e9
            let peak = benchPeakRSSKiB(of: String(server.process.processIdentifier))
            var client = BenchClient(port: server.port)
            let (status, body) = client.request("GET", "/sessions/\(big.id)/state?path=/tasks/byId/\(tasks)", token: big.token)
            server.stop()
            if status != 200 { benchFail("after recovery by \(binary), task \(tasks) answered \(status): \(String(decoding: body.prefix(200), as: UTF8.self))") }
            seconds[b].append(elapsed)
            print("recovery run=\(run) server=\(binary) seconds_to_ready=" + String(format: "%.2f peak_rss_mib=%.0f", elapsed, Double(peak) / 1024))
        }
    }
    for (b, binary) in binaries.enumerated() {
        let sorted = seconds[b].sorted()
        print("RESULT recovery tasks=\(tasks) server=\(binary) " + String(format: "median_s=%.2f min_s=%.2f max_s=%.2f runs=%d",
                                                                             sorted[sorted.count / 2], sorted[0], sorted[sorted.count - 1], sorted.count))
    }
}

/// `--decode`: where recovery's time goes for one big state, in this process (thread CPU time:
/// the machine is shared): the `JSONValue` path (parse, then decode) and the read straight from
/// the bytes that recovery uses.
private func benchDecode(tasks: Int) {
    func benchNow() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
    let state = TasksState(tasks: EntityTable((1...tasks).map { TaskItem(id: $0, title: "task number \($0)", done: false) }), nextId: tasks + 1)
    var t0 = benchNow()
    let bytes = state.jsonBytes(capacity: 1 << 20)
    let encode = benchNow() - t0
    t0 = benchNow()
    guard let json = try? JSONReader.parse(bytes, maxDepth: 10_000) else { benchFail("parse") }
    let parse = benchNow() - t0
    t0 = benchNow()
    guard let decoded = try? TasksState(json: json, path: "") else { benchFail("decode") }
    let decode = benchNow() - t0
    // What recovery does: the state read straight from the bytes (`TasksState.init(reading:)`).
    t0 = benchNow()
    guard let read = try? JSONStreamReader.read(bytes, maxDepth: 10_000, { (r) throws(StateDecodingError) in try TasksState(reading: &r) }),
          read.tasks.count == decoded.tasks.count else { benchFail("read") }
    let streamed = benchNow() - t0
    print(String(format: "RESULT decode tasks=%d bytes=%d encode_s=%.2f parse_s=%.2f decode_s=%.2f read_s=%.2f", decoded.tasks.count, bytes.count,
                 Double(encode) / 1e9, Double(parse) / 1e9, Double(decode) / 1e9, Double(streamed) / 1e9))
}

private func percentile(_ xs: [Int64], _ p: Double) -> Double {
    let s = xs.sorted()
    guard !s.isEmpty else { return 0 }
    return Double(s[min(s.count - 1, Int(Double(s.count) * p))]) / 1e3
}

func benchNow() -> Int64 { fanoutNow() }

func benchFail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("storehouse-bench bigstore: \(message)\n".utf8))
    exit(1)
}

/// This process's resident set, in KiB.
func benchSelfRSSKiB() -> Int { benchRSSKiB(of: "self") }

/// The peak resident set of a process so far (`VmHWM`), in KiB.
func benchPeakRSSKiB(of pid: String) -> Int { benchStatusKiB(of: pid, "VmHWM:") }

func benchRSSKiB(of pid: String) -> Int { benchStatusKiB(of: pid, "VmRSS:") }

/// A KiB figure of `/proc/PID/status`.
private func benchStatusKiB(of pid: String, _ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// Set by one thread, read by another.
final class BenchFlag: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
