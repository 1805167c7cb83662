import Foundation
import StoreCore
import StoreKinds

/// `storehouse-bench core [--runs N]`: the store core's in-process figures (see BENCHMARKS.md).
/// Every figure is the median of N runs (default 5); patches are generated for every action.
func runCoreBench(_ arguments: [String]) {
    var runs = 5
    if let i = arguments.firstIndex(of: "--runs"), i + 1 < arguments.count, let n = Int(arguments[i + 1]), n > 0 { runs = n }
    // `--only counter|tasks|encode` runs one part (for profiling).
    var only: String? = nil
    if let i = arguments.firstIndex(of: "--only"), i + 1 < arguments.count { only = arguments[i + 1] }
    print("storehouse-bench core: median of \(runs) runs, thread CPU time, patches included")
    if only == nil || only == "counter" { benchCounter(runs: runs) }
    if only == nil || only == "tasks" { benchToggleDone(runs: runs) }
    if only == nil || only == "encode" { benchEncode(runs: runs) }
}

/// CPU time of this thread: the machine these run on is shared, and wall time would charge
/// other processes' time slices to the store.
private func seconds(_ body: () -> Void) -> Double {
    func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
    let start = now()
    body()
    return now() - start
}

private func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// Keeps results alive so the optimizer cannot drop the work.
nonisolated(unsafe) private var sink = 0

private func benchCounter(runs: Int) {
    let n = 1_000_000
    let record = ActionRecord(type: "counter/incrTapped", at: 1_763_755_301_123, source: .client)
    var rates: [Double] = []
    for _ in 0..<runs {
        guard let store = try? KindRegistry.shipped.kind(named: "counter")?.makeStore(state: nil, version: 0, environment: .immediate) else { return }
        let batch = [record]
        let t = seconds {
            for _ in 0..<n {
                if let changes = try? store.apply(batch) { sink &+= changes[0].patch.count }
            }
        }
        rates.append(Double(n) / t)
    }
    print(String(format: "counter/incrTapped via AnyStore.apply (decode + reduce + patch): %.2fM actions/s", median(rates) / 1e6))
}

private func tasksStore(count: Int) -> any AnyStore {
    let table = EntityTable((1...count).map { TaskItem(id: $0, title: "task number \($0)", done: $0 % 3 == 0) })
    let state = TasksState(tasks: table, favoriteIds: [], nextId: count + 1)
    // As `Kind.makeStore` does: erased in a context where the types are concrete.
    return ErasedStore(Store(kind: "tasks", state: state, reducer: tasksReducer, environment: .immediate))
}

private func benchToggleDone(runs: Int) {
    let actions = 200_000
    let sizes = [10, 10_000, 1_000_000]
    var g = SystemRandomNumberGenerator()
    let setups: [(store: any AnyStore, records: [[ActionRecord]])] = sizes.map { size in
        // Random ids: every lookup may miss the cache, as it would for real clients.
        let records = (0..<actions).map { _ in
            [ActionRecord(type: "tasks/toggleDone", payload: .object(["id": .int(Int.random(in: 1...size, using: &g))]),
                          at: 1_763_755_301_123, source: .client)]
        }
        return (tasksStore(count: size), records)
    }
    // Sizes take turns within each run, so a change in machine load hits them alike.
    var samples = Array(repeating: [Double](), count: sizes.count)
    for _ in 0..<runs {
        for (i, setup) in setups.enumerated() {
            let t = seconds {
                for r in setup.records {
                    if let changes = try? setup.store.apply(r) { sink &+= changes[0].patch.count }
                }
            }
            samples[i].append(t / Double(actions) * 1e9)
        }
    }
    let medians = samples.map(median)
    for (size, m) in zip(sizes, medians) {
        print(String(format: "tasks/toggleDone at %9d tasks: %6.0f ns/action", size, m))
    }
    print(String(format: "tasks/toggleDone ratio 1M/10: %.2f", medians[2] / medians[0]))
}

private func benchEncode(runs: Int) {
    let count = 100_000
    let table = EntityTable((1...count).map { TaskItem(id: $0, title: "task number \($0)", done: $0 % 3 == 0) })
    let state = TasksState(tasks: table, favoriteIds: Array(stride(from: 1, through: count, by: 100)), nextId: count + 1)
    var ours: [Double] = [], foundation: [Double] = []
    var ourBytes = 0, foundationBytes = 0
    let encoder = JSONEncoder()
    for _ in 0..<runs {
        ours.append(seconds { let b = state.jsonBytes(capacity: 1 << 20); ourBytes = b.count; sink &+= b.count })
        foundation.append(seconds {
            let d = (try? encoder.encode(state)) ?? Data()
            foundationBytes = d.count
            sink &+= d.count
        })
    }
    let o = median(ours), f = median(foundation)
    print(String(format: "encode 100k-task state: JSONWriter %.1f ms (%d bytes, %.0f MB/s); JSONEncoder %.1f ms (%d bytes, %.0f MB/s); speed-up %.1fx",
                 o * 1e3, ourBytes, Double(ourBytes) / o / 1e6, f * 1e3, foundationBytes, Double(foundationBytes) / f / 1e6, f / o))
}
