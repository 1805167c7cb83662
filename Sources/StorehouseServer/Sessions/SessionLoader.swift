import Dispatch
import Foundation

/// Where requests for hibernated sessions run (they block on the disk while the session loads):
/// a few serial queues, each request on the one its session id picks. A burst of first requests
/// then holds at most `width` threads, however many sessions it names, instead of one of
/// Dispatch's global pool per request (the pool stops adding threads at its limit, and every
/// other global-queue user waits behind the loads). Requests for one session take turns on one
/// queue, so none of them waits for another's load on a thread of its own: the second finds the
/// session resident.
///
/// ```swift
/// let loader = SessionLoader(width: 4)
/// loader.run(for: id) { _ = registry.lookup(id) }   // on the queue `id` picks
/// ```
final class SessionLoader: Sendable {
    private let queues: [DispatchQueue]

    /// Queues, hence threads, at most: two per core, at least two, so a slow disk read of one
    /// session leaves the others' loads going.
    static let defaultWidth = max(2, min(8, 2 * ProcessInfo.processInfo.activeProcessorCount))

    init(width: Int = SessionLoader.defaultWidth) {
        queues = (0..<max(1, width)).map { DispatchQueue(label: "storehouse.loader-\($0)", qos: .userInitiated) }
    }

    var width: Int { queues.count }

    /// Runs `work` on the queue that `id` picks (the same one for every request of that session).
    func run(for id: String, _ work: @escaping @Sendable () -> Void) {
        queues[Self.queueIndex(of: id, among: queues.count)].async(execute: work)
    }

    /// FNV-1a over the id's bytes: the same queue for an id every time, spread over the queues.
    static func queueIndex(of id: String, among count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(count))
    }
}
