import Foundation
import Synchronization
import XCTest
@testable import Journal

/// A listener hears each append's outcome in call order, and `groupCompleted` once its group's
/// completions have run; one record appended without an array is written as in one.
final class AppendListenerTests: XCTestCase {
    private final class Recorder: JournalAppendListener {
        let heard = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let journal: Journal
        let expected: Int

        init(_ journal: Journal, expected: Int) {
            self.journal = journal
            self.expected = expected
        }

        func appendCompleted(_ result: Result<Void, JournalError>) {
            let count = heard.withLock { h -> Int in
                h.append((try? result.get()) != nil ? "ok" : "refused")
                return h.filter { $0 != "group" }.count
            }
            if count == 1 { journal.afterGroupCompletes(notify: self) }
        }

        func groupCompleted() {
            let count = heard.withLock { h -> Int in
                h.append("group")
                return h.filter { $0 != "group" }.count
            }
            if count == expected { done.signal() }
        }
    }

    func testOneRecordWithoutAnArrayIsWrittenAsInOneAndHeardInOrderThenTheGroupEnd() throws {
        for policy in FsyncPolicy.allCases {
            let dir = makeTempDirectory(self)
            do {
                let j = try openJournal(dir, fsync: policy, sessions: ["s"], meta: bytes("m"))
                let recorder = Recorder(j, expected: 3)
                // Queued without waking the writer, so the three form one group at the commit.
                j.append(session: "s", record: (version: 1, bytes: bytes("one")), commitLater: true, listener: recorder)
                j.append(session: "s", records: [(version: 2, bytes: bytes("two")), (version: 3, bytes: bytes("three"))],
                         commitLater: true, listener: recorder)
                j.append(session: "s", record: (version: 9, bytes: bytes("gap")), commitLater: true, listener: recorder)
                j.commit()
                XCTAssertEqual(recorder.done.wait(timeout: .now() + 10), .success, "\(policy)")
                XCTAssertEqual(recorder.heard.withLock { $0 }, ["ok", "ok", "refused", "group"], "\(policy)")
                j.close()
            }
            let r = try recoverAndClose(dir, fsync: policy)
            XCTAssertEqual(r.session("s")?.versions, [1, 2, 3], "\(policy)")
            XCTAssertEqual(r.session("s")?.recordStrings, ["one", "two", "three"], "\(policy)")
        }
    }
}
