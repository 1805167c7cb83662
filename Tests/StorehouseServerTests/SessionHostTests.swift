import Foundation
import HTTPEngine
import StoreCore
@testable import StorehouseServer
import Synchronization
import XCTest

/// The session host without a socket: requests submitted straight to a `Session`, each naming
/// where its answer goes (`ReplyTo`), and the host answering them by the machine's request ids.
final class SessionHostTests: XCTestCase {
    var log: HeldLog!
    var fixture: ServerFixture!
    var session: Session!

    override func setUpWithError() throws {
        log = HeldLog()
        fixture = try ServerFixture(log: log)
        let (id, _) = try fixture.createSession()
        session = try XCTUnwrap(fixture.server.registry.lookup(id))
    }

    override func tearDown() {
        log.release()
        fixture = nil
    }

    /// Answers that arrive for one request, in order.
    final class Answers: Sendable {
        private let list = Mutex<[HTTPResponse]>([])
        let arrived = DispatchSemaphore(value: 0)

        var all: [HTTPResponse] { list.withLock { $0 } }

        var reply: ReplyTo {
            .handler { [self] response in
                list.withLock { $0.append(response) }
                arrived.signal()
            }
        }

        func wait(file: StaticString = #filePath, line: UInt = #line) -> HTTPResponse? {
            XCTAssertEqual(arrived.wait(timeout: .now() + 10), .success, "an answer arrives", file: file, line: line)
            return all.last
        }
    }

    private func increment(key: String?) -> ActionSubmission {
        let record = ActionRecord(type: "counter/incrTapped", payload: nil, meta: nil, at: SessionContext.wallClock(), source: .client)
        let body = Array(#"{"type":"counter/incrTapped"}"#.utf8)
        return ActionSubmission(records: [record], ifMatch: nil, idempotency: key.map { ($0, SHA256.hash(body)) }, minimal: false)
    }

    private var waitingRepeats: Int { session.lock.withLock { session.waitingRepeats.count } }

    /// A repeat of a request whose append is in flight is held by its request id, not answered
    /// and not applied; once the append is durable both get the first answer, the repeat marked
    /// as a replay, and nothing is left waiting.
    func testARepeatWaitsByRequestIdAndGetsTheFirstAnswerOnceDurable() throws {
        let first = Answers(), repeated = Answers()
        session.submit(increment(key: "k"), replyTo: first.reply)
        XCTAssertEqual(log.appended.wait(timeout: .now() + 10), .success, "the append waits for the journal")
        session.submit(increment(key: "k"), replyTo: repeated.reply)
        XCTAssertEqual(waitingRepeats, 1)
        XCTAssertTrue(first.all.isEmpty && repeated.all.isEmpty, "nothing is answered before the append is durable")
        log.release()
        let answer = try XCTUnwrap(first.wait())
        let replay = try XCTUnwrap(repeated.wait())
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(replay.status, 200)
        XCTAssertEqual(replay.body, answer.body)
        XCTAssertNil(answer.headers["Idempotent-Replayed"])
        XCTAssertEqual(replay.headers["Idempotent-Replayed"], "true")
        XCTAssertEqual(waitingRepeats, 0)
        XCTAssertEqual(session.lock.withLock { session.store.version }, 1, "the repeat applied nothing")
        XCTAssertEqual(first.all.count, 1)
        XCTAssertEqual(repeated.all.count, 1)
    }

    /// A failed sync answers the request in flight and the repeat waiting on it 503, each once,
    /// and rolls the head back.
    func testAFailedSyncAnswersTheRequestAndItsWaitingRepeat503AndRollsBack() throws {
        let first = Answers(), repeated = Answers()
        session.submit(increment(key: "k"), replyTo: first.reply)
        XCTAssertEqual(log.appended.wait(timeout: .now() + 10), .success)
        session.submit(increment(key: "k"), replyTo: repeated.reply)
        XCTAssertEqual(waitingRepeats, 1)
        log.fail()
        XCTAssertEqual(first.wait()?.status, 503)
        XCTAssertEqual(repeated.wait()?.status, 503)
        XCTAssertEqual(waitingRepeats, 0)
        XCTAssertEqual(session.lock.withLock { session.store.version }, 0)
        XCTAssertEqual(first.all.count, 1)
        XCTAssertEqual(repeated.all.count, 1)
    }

    /// Requests without a key in flight together are each answered once, in version order, when
    /// the journal makes them durable.
    func testRequestsInFlightAreEachAnsweredOnceWhenDurable() throws {
        let answers = (0..<3).map { _ in Answers() }
        for answer in answers {
            session.submit(increment(key: nil), replyTo: answer.reply)
            XCTAssertEqual(log.appended.wait(timeout: .now() + 10), .success)
        }
        XCTAssertTrue(answers.allSatisfy { $0.all.isEmpty })
        log.release()
        let versions = try answers.map { answer -> Int in
            let response = try XCTUnwrap(answer.wait())
            XCTAssertEqual(response.status, 200)
            guard case .int(let version)? = try JSONReader.parse(response.body)["version"] else {
                XCTFail("no version in \(String(decoding: response.body, as: UTF8.self))")
                return -1
            }
            return version
        }
        XCTAssertEqual(versions, [1, 2, 3])
        XCTAssertTrue(answers.allSatisfy { $0.all.count == 1 })
    }
}
