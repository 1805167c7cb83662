// Only where a library can import XCTest (the other helpers of StoreTesting need nothing of it).
#if canImport(XCTest)
import Dispatch
import Foundation
import StoreCore
import XCTest

/// The property every kind must keep, checked over random action sequences: each change's patch
/// applied to the previous state's JSON gives exactly the next state's JSON, versions grow by one
/// per action, a refused batch changes nothing, and a state restored from its JSON encodes to the
/// same bytes. Actions come from `generate` (valid, refused and malformed ones, alone or in
/// batches); what effects send is fed back as `effect` actions.
///
/// ```swift
/// func testNotesPatches() throws {
///     try assertPatchesMatchState(of: Kind(name: "notes", reducer: notesReducer), steps: 500) { g, _ in
///         Bool.random(using: &g) ? ActionRecord(type: "notes/add", payload: .string("x"), at: 0, source: .client)
///                                : ActionRecord(type: "notes/add", payload: .string(""), at: 0, source: .client)  // refused
///     }
/// }
/// ```
public func assertPatchesMatchState(of kind: any StoreKind, steps: Int, seed: UInt64 = 0x5702_E40B,
                                    file: StaticString = #filePath, line: UInt = #line,
                                    _ generate: (inout SeededGenerator, JSONValue) -> ActionRecord) throws {
    let store = try kind.makeStore(state: nil, version: 0, environment: .immediate)
    var g = SeededGenerator(seed: seed)
    var json = store.stateValue()
    var at: Int64 = 1_763_755_301_000
    var applied = 0, refused = 0
    var feedback: [ActionRecord] = []
    for step in 0..<steps {
        var batch: [ActionRecord]
        if !feedback.isEmpty && Bool.random(using: &g) {
            batch = [feedback.removeFirst()]
        } else {
            let size = Int.random(in: 0..<6, using: &g) == 0 ? Int.random(in: 2...4, using: &g) : 1
            batch = []
            var preview = json
            for _ in 0..<size {
                batch.append(generate(&g, preview))
                // A state with a `nextId` counter (an entity table) gets the id the batch's next add will use.
                if case .object(var o) = preview, case .int(let n)? = o["nextId"] { o["nextId"] = .int(n + 1); preview = .object(o) }
            }
        }
        at += Int64.random(in: 0...2_000, using: &g)
        for i in batch.indices { batch[i].at = at }
        let beforeBytes = store.encodeState()
        let version = store.version
        let changes: [Change]
        do {
            changes = try store.apply(batch)
        } catch {
            refused += 1
            XCTAssertEqual(String(decoding: store.encodeState(), as: UTF8.self), String(decoding: beforeBytes, as: UTF8.self),
                           "refused \(batch.map(\.type)) changed the state", file: file, line: line)
            XCTAssertEqual(store.version, version, file: file, line: line)
            XCTAssertTrue(store.takePendingEffects().isEmpty, file: file, line: line)
            continue
        }
        XCTAssertEqual(changes.count, batch.count, file: file, line: line)
        for (i, change) in changes.enumerated() {
            XCTAssertEqual(change.version, version + i + 1, file: file, line: line)
            do {
                json = try JSONPatch.apply(change.patch, to: json)
            } catch {
                return XCTFail("patch \(String(decoding: change.patch, as: UTF8.self)) of \(batch[i].type) does not apply: \(error)",
                               file: file, line: line)
            }
        }
        applied += changes.count
        XCTAssertEqual(store.version, version + batch.count, file: file, line: line)
        guard json == store.stateValue() else {
            return XCTFail("after \(batch.map(\.type)) with patch \(String(decoding: changes.last?.patch ?? [], as: UTF8.self)):\n"
                           + "  patched: \(String(decoding: json.encoded(), as: UTF8.self))\n  state:   \(String(decoding: store.encodeState(), as: UTF8.self))",
                           file: file, line: line)
        }
        // Restoring from the JSON gives the same bytes (canonical order).
        if step % 25 == 0 {
            XCTAssertEqual(try kind.makeStore(state: json, version: 0, environment: .immediate).encodeState(), store.encodeState(),
                           file: file, line: line)
        }
        for effect in store.takePendingEffects() { feedback += runToEnd(effect, at: at, file: file, line: line) }
    }
    XCTAssertGreaterThan(applied, steps / 3, "the generator should mostly produce applicable actions", file: file, line: line)
    XCTAssertGreaterThan(refused, 0, "the generator should also produce refusals", file: file, line: line)
}

/// Runs one effect to its end and returns what it sent as effect records. The test thread is not
/// a concurrency-pool thread, so blocking it on the semaphore cannot starve the effect.
private func runToEnd(_ effect: PendingEffect, at: Int64, file: StaticString, line: UInt) -> [ActionRecord] {
    let sent = SentActions()
    let done = DispatchSemaphore(value: 0)
    Task {
        await effect.run { type, payload in sent.append(type, payload) }
        done.signal()
    }
    if done.wait(timeout: .now() + 10) == .timedOut { XCTFail("an effect did not finish within 10 s", file: file, line: line) }
    return sent.items.map { ActionRecord(type: $0.0, payload: $0.1, at: at, source: .effect) }
}
#endif
