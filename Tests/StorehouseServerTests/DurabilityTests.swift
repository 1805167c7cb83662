import Foundation
import StoreCore
import Synchronization
import XCTest
@testable import Journal
@testable import StorehouseServer

/// API.md "Durability": sessions survive a restart; a disk that refuses an append refuses the action.
final class DurabilityTests: XCTestCase {
    func testRestartKeepsStateTokenLogAndIdempotencyKeys() throws {
        let directory = temporaryDirectory()
        var id = "", token = ""
        var firstAnswer = ""
        do {
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
            (id, token) = try fixture.createSession(#"{"kind":"tasks"}"#)
            let client = try fixture.client()
            firstAnswer = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Idempotency-Key": "add-1"]) { $1 },
                                             body: #"{"type":"tasks/add","payload":{"title":"survive"}}"#).text
            _ = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"[{"type":"tasks/toggleDone","payload":{"id":1}},{"type":"tasks/favorite","payload":{"id":1}}]"#)
            fixture.server.shutdown()
        }
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
        let client = try fixture.client()
        let state = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(state.status, 200)
        XCTAssertEqual(state.text, #"{"version":3,"state":{"tasks":{"byId":{"1":{"id":1,"title":"survive","done":true}},"allIds":[1]},"favoriteIds":[1],"nextId":2}}"#)
        let log = try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token))
        XCTAssertEqual((log.json["actions"] as? [[String: Any]])?.map { $0["version"] as? Int }, [1, 2, 3])
        let replay = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Idempotency-Key": "add-1"]) { $1 },
                                        body: #"{"type":"tasks/add","payload":{"title":"survive"}}"#)
        XCTAssertEqual(replay.header("Idempotent-Replayed"), "true")
        XCTAssertEqual(replay.json["version"] as? Int, 1)
        XCTAssertEqual(replay.text, firstAnswer)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)", headers: bearer(token)).json["version"] as? Int, 3)
        XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state", headers: bearer("wrong")).status, 401)
    }

    /// A refusal kept as a key's first answer survives a restart: journaled with the next action
    /// (and, with `--history 20`, in the snapshots that compact it away), so a retry after the
    /// restart is not applied on a state where it would now pass.
    func testAKeptRefusalSurvivesARestart() throws {
        for history in [10_000, 20] {
            let directory = temporaryDirectory()
            var id = "", token = ""
            let save = #"{"type":"primeModal/saveFavoritePrimeTapped"}"#
            var refusal = ""
            do {
                let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory; $0.history = history }
                (id, token) = try fixture.createSession()
                let client = try fixture.client()
                let first = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Idempotency-Key": "fav"]) { $1 }, body: save)
                XCTAssertEqual(first.status, 409, first.text)  // 0 is not prime
                refusal = first.text
                // 2 and 3,109 are prime: the same request would pass at the end. With --history 20,
                // enough actions for two snapshots (one per 1,000), the second compacting the
                // segment that held the record carrying the refusal.
                for _ in 0..<(history == 20 ? 3_109 : 2) {
                    _ = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
                }
                fixture.server.shutdown()
            }
            if history == 20 {
                XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/\(id).00000001.log"), "compacted")
            }
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory; $0.history = history }
            let client = try fixture.client()
            let before = try XCTUnwrap(client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).json["version"] as? Int)
            let again = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Idempotency-Key": "fav"]) { $1 }, body: save)
            XCTAssertEqual(again.status, 409, "history \(history): \(again.text)")
            XCTAssertEqual(again.header("Idempotent-Replayed"), "true", "history \(history)")
            XCTAssertEqual(again.text, refusal)
            XCTAssertEqual(again.header("Content-Type"), "application/problem+json")
            XCTAssertEqual(try client.request("GET", "/sessions/\(id)/state", headers: bearer(token)).json["version"] as? Int, before, "nothing applied")
            XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Idempotency-Key": "fav"]) { $1 },
                                              body: #"{"type":"counter/incrTapped"}"#).status, 422, "the key stays bound to its body")
        }
    }

    /// Every kept refusal rides on the next record, however many there are: that record changes
    /// the state they were decided on (a cap left the rest for records that may never come).
    func testEveryKeptRefusalRidesOnTheNextRecord() throws {
        let directory = temporaryDirectory()
        var id = "", token = ""
        let save = #"{"type":"primeModal/saveFavoritePrimeTapped"}"#
        func key(_ i: Int) -> String { String(format: "%03d", i) + String(repeating: "k", count: 252) }
        do {
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory; $0.fsync = .never }
            (id, token) = try fixture.createSession()
            let client = try fixture.client()
            _ = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
            for i in 0..<300 {
                let refused = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Idempotency-Key": key(i)]) { $1 }, body: save)
                XCTAssertEqual(refused.status, 409, refused.text)  // 1 is not prime
            }
            _ = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)  // 2 is
            fixture.server.shutdown()
        }
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory; $0.fsync = .never }
        let client = try fixture.client()
        for i in [0, 150, 299] {
            let again = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Idempotency-Key": key(i)]) { $1 }, body: save)
            XCTAssertEqual(again.status, 409, "key \(i): \(again.text)")
            XCTAssertEqual(again.header("Idempotent-Replayed"), "true", "key \(i)")
        }
    }

    /// Recovery rebuilds the keys in the order they were set live, which decides what the cache
    /// (1,000 keys) evicts: a record's refusals before its request's mark. The other way round, a
    /// restart brought back an evicted refusal and evicted a live key, whose request was applied again.
    func testRecoveryEvictsTheKeysLiveEvicted() throws {
        let directory = temporaryDirectory()
        var id = "", token = ""
        let save = #"{"type":"primeModal/saveFavoritePrimeTapped"}"#
        let incr = #"{"type":"counter/incrTapped"}"#
        func post(_ client: TestClient, _ body: String, key: String) throws -> TestResponse {
            try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token).merging(["Idempotency-Key": key]) { $1 }, body: body)
        }
        do {
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory; $0.fsync = .never }
            (id, token) = try fixture.createSession()
            let client = try fixture.client()
            XCTAssertEqual(try post(client, save, key: "R").status, 409)  // kept first
            XCTAssertEqual(try post(client, incr, key: "M").status, 200)  // its record carries R
            for i in 0..<999 { XCTAssertEqual(try post(client, incr, key: "k\(i)").status, 200) }
            // R, the oldest of 1,001 keys, was evicted; M is kept.
            XCTAssertEqual(try post(client, incr, key: "M").header("Idempotent-Replayed"), "true")
            fixture.server.shutdown()
        }
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory; $0.fsync = .never }
        let client = try fixture.client()
        let m = try post(client, incr, key: "M")
        XCTAssertEqual(m.header("Idempotent-Replayed"), "true", m.text)
        XCTAssertEqual(m.json["version"] as? Int, 1)
        XCTAssertNil(try post(client, save, key: "R").header("Idempotent-Replayed"), "R was evicted before the restart")
    }

    func testADamagedSessionAnswersItsOwner503AndCanBeDeleted() throws {
        let directory = temporaryDirectory()
        var damaged = (id: "", token: ""), healthy = (id: "", token: "")
        do {
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
            damaged = try fixture.createSession()
            healthy = try fixture.createSession()
            let client = try fixture.client()
            for session in [damaged, healthy] {
                for _ in 0..<20 {
                    _ = try client.request("POST", "/sessions/\(session.id)/actions", headers: bearer(session.token), body: #"{"type":"counter/incrTapped"}"#)
                }
            }
            fixture.server.shutdown()
        }
        // One flipped byte in the middle of the records, with good records after it.
        let segment = directory + "/\(damaged.id).00000001.log"
        var bytes = readFile(segment)
        guard !bytes.isEmpty else { return XCTFail("no segment at \(segment)") }
        let end = (bytes.lastIndex { $0 != 0 } ?? 0) + 1
        bytes[end / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: segment))

        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
        let client = try fixture.client()
        for (method, path) in [("GET", ""), ("GET", "/state"), ("GET", "/actions"), ("POST", "/actions"), ("GET", "/events")] {
            let answer = try client.request(method, "/sessions/\(damaged.id)\(path)", headers: bearer(damaged.token),
                                            body: method == "POST" ? #"{"type":"counter/incrTapped"}"# : nil)
            XCTAssertEqual(answer.status, 503, "\(method) \(path)")
            XCTAssertEqual(answer.json["type"] as? String, "/problems/session-damaged", "\(method) \(path)")
        }
        XCTAssertEqual(try client.request("GET", "/sessions/\(damaged.id)/state", headers: bearer("wrong")).status, 401, "only its owner hears of it")
        XCTAssertEqual(try client.request("GET", "/sessions/\(healthy.id)/state", headers: bearer(healthy.token)).json["version"] as? Int, 20)
        XCTAssertEqual(readFile(segment), bytes, "its files are kept as they were")
        XCTAssertEqual(try client.request("DELETE", "/sessions/\(damaged.id)", headers: bearer(damaged.token)).status, 204)
        XCTAssertFalse(FileManager.default.fileExists(atPath: segment))
        XCTAssertEqual(try client.request("GET", "/sessions/\(damaged.id)/state", headers: bearer(damaged.token)).status, 404)
    }

    func testASessionTheServerCannotReplayAlsoAnswers503() throws {
        let directory = temporaryDirectory()
        var session = (id: "", token: "")
        do {
            let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
            session = try fixture.createSession()
            _ = try fixture.client().request("POST", "/sessions/\(session.id)/actions", headers: bearer(session.token), body: #"{"type":"counter/incrTapped"}"#)
            fixture.server.shutdown()
        }
        // A record the journal keeps intact but the server cannot decode.
        do {
            let journal = try Journal(directory: directory, fsync: .always)
            XCTAssertEqual(journal.recover().sessions.first { $0.id == session.id }?.records.map(\.version), [1])
            XCTAssertNoThrow(try XCTUnwrap(appendAndWait(journal, session: session.id, records: [(version: 2, bytes: [0xFF, 0xFF, 0xFF])])).get())
            journal.close()
        }
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
        let client = try fixture.client()
        let answer = try client.request("GET", "/sessions/\(session.id)/state", headers: bearer(session.token))
        XCTAssertEqual(answer.status, 503)
        XCTAssertEqual(answer.json["type"] as? String, "/problems/session-damaged")
        XCTAssertEqual(try client.request("DELETE", "/sessions/\(session.id)", headers: bearer(session.token)).status, 204)
        XCTAssertEqual(try client.request("GET", "/sessions/\(session.id)", headers: bearer(session.token)).status, 404)
    }

    func readFile(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
    }

    func testTokenIsNeverWrittenToDisk() throws {
        let directory = temporaryDirectory()
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
        let (_, token) = try fixture.createSession()
        fixture.server.shutdown()
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        XCTAssertFalse(files.isEmpty)
        for file in files {
            let data = FileManager.default.contents(atPath: directory + "/" + file) ?? Data()
            XCTAssertNil(data.range(of: Data(token.utf8)), "\(file) holds the token")
        }
    }

    func testRefusedAppendAnswers503AndChangesNothing() throws {
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = temporaryDirectory() }
        let (id, token) = try fixture.createSession()
        let client = try fixture.client()
        XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#).status, 200)
        let journal = try XCTUnwrap(fixture.server.journal)
        journal.injectFault(.diskFull())
        let refused = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.json["type"] as? String, "/problems/journal-unavailable")
        XCTAssertNotNil(refused.header("Retry-After"))
        let state = try client.request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(state.json["version"] as? Int, 1, "reads keep working and the state did not advance")
        journal.injectFault(nil)
        let events = try fixture.client()
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token).merging(["Last-Event-ID": "0"]) { $1 })
        _ = try events.nextEvent()
        XCTAssertEqual(try events.nextEvent().id, "1")
        let accepted = try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"counter/incrTapped"}"#)
        XCTAssertEqual(accepted.status, 200, accepted.text)
        XCTAssertEqual(accepted.json["version"] as? Int, 2)
        // After the rollback, history, log and stream go on from the durable version.
        XCTAssertEqual(try events.nextEvent().id, "2")
        let log = try client.request("GET", "/sessions/\(id)/actions", headers: bearer(token))
        XCTAssertEqual((log.json["actions"] as? [[String: Any]])?.map { $0["version"] as? Int }, [1, 2])
    }

    func testEffectAnswerSurvivesATransientJournalRefusal() throws {
        let gate = Gate()
        let environment = EffectEnvironment(latency: .milliseconds(1), sleep: { _ in await gate.wait() })
        let fixture = try ServerFixture({ $0.inMemory = false; $0.dataDirectory = temporaryDirectory() }, environment: environment)
        let (id, token) = try fixture.createSession(#"{"kind":"login"}"#)
        let events = try fixture.client()
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token))
        _ = try events.nextEvent(); _ = try events.nextEvent()
        let client = try fixture.client()
        XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"login/emailChanged","payload":"a@b.c"}"#).status, 200)
        XCTAssertEqual(try events.nextEvent().id, "1")
        // The validation effect is parked; its answer's first append will be refused.
        try XCTUnwrap(fixture.server.journal).injectFault(.diskFull(count: 1))
        gate.open()
        let answer = try events.nextEvent()
        XCTAssertEqual(answer.id, "2")
        XCTAssertEqual((answer.json["action"] as? [String: Any])?["type"] as? String, "login/emailValidated")
        XCTAssertEqual((answer.json["action"] as? [String: Any])?["source"] as? String, "effect")
    }

    /// An effect cut short by the end of the process never fed its answer back: after the restart
    /// the kind's `resume` runs it again, so the state does not wait for it forever.
    func testAnEffectInFlightAtShutdownRunsAgainAfterTheRestart() throws {
        let directory = temporaryDirectory()
        var id = "", token = ""
        do {
            // The validation service never answers in this process's lifetime.
            let parked = EffectEnvironment(latency: .milliseconds(1), sleep: { _ in await Gate().wait() })
            let fixture = try ServerFixture({ $0.inMemory = false; $0.dataDirectory = directory }, environment: parked)
            (id, token) = try fixture.createSession(#"{"kind":"login"}"#)
            let posted = try fixture.client().request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: #"{"type":"login/emailChanged","payload":"a@b.c"}"#)
            XCTAssertEqual(posted.json["version"] as? Int, 1)
            XCTAssertEqual(((posted.json["state"] as? [String: Any])?["email"] as? [String: Any])?["currentValidation"] as? String, "remote")
            fixture.server.shutdown()
        }
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
        let events = try fixture.client()
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token).merging(["Last-Event-ID": "1"]) { $1 })
        XCTAssertEqual(try events.nextEvent().retry, "2000")
        let answer = try events.nextEvent()
        XCTAssertEqual(answer.event, "change")
        XCTAssertEqual(answer.id, "2")
        XCTAssertEqual((answer.json["action"] as? [String: Any])?["type"] as? String, "login/emailValidated")
        XCTAssertEqual((answer.json["action"] as? [String: Any])?["source"] as? String, "effect")
        let state = try fixture.client().request("GET", "/sessions/\(id)/state", headers: bearer(token))
        XCTAssertEqual(state.json["version"] as? Int, 2)
        XCTAssertEqual(((state.json["state"] as? [String: Any])?["email"] as? [String: Any])?["valid"] as? Bool, true)
    }

    /// Creates a session with `create` on a server whose effects never finish in its lifetime,
    /// posts `actions` (each must answer 200), stops it, starts another on the same directory and
    /// returns the first event after version `after` that has an id.
    private func firstEventAfterARestartWithEffectsCutOff(create: String, actions: [String], after: Int) throws -> SSEEvent {
        let directory = temporaryDirectory()
        var id = "", token = ""
        do {
            let parked = EffectEnvironment(latency: .milliseconds(1), sleep: { _ in await Gate().wait() })
            let fixture = try ServerFixture({ $0.inMemory = false; $0.dataDirectory = directory }, environment: parked)
            (id, token) = try fixture.createSession(create)
            let client = try fixture.client()
            for body in actions {
                XCTAssertEqual(try client.request("POST", "/sessions/\(id)/actions", headers: bearer(token), body: body).status, 200)
            }
            fixture.server.shutdown()
        }
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
        let events = try fixture.client()
        _ = try events.openEvents("/sessions/\(id)/events", headers: bearer(token).merging(["Last-Event-ID": "\(after)"]) { $1 })
        var event = try events.nextEvent()
        while event.id == nil { event = try events.nextEvent() }
        return event
    }

    /// The request runs again with the inputs of the action that started it, not with the
    /// state at the crash: a password changed while the login was in flight does not change
    /// the login's outcome after a restart any more than it would have without one.
    func testAResumedEffectKeepsTheInputsOfTheActionThatStartedIt() throws {
        let ready = #"{"online":true,"email":{"rawValue":"a@b.c","valid":true,"currentValidation":null},"password":"goodpassword1","loggingIn":false,"canLogin":true}"#
        let answer = try firstEventAfterARestartWithEffectsCutOff(
            create: #"{"kind":"login","state":\#(ready)}"#,
            actions: [#"{"type":"login/confirmationAnswered","payload":{"confirm":true}}"#, #"{"type":"login/passwordChanged","payload":"wrongpassword"}"#],
            after: 2)
        XCTAssertEqual(answer.id, "3")
        XCTAssertEqual((answer.json["action"] as? [String: Any])?["type"] as? String, "login/loginSucceeded",
                       "the login was asked with the password of its confirmation")
    }

    /// The same for a request the session was created waiting for: after a restart it runs with
    /// the created state's inputs, as it did at creation, not with the state at the crash.
    func testAResumedEffectOfACreatedStateKeepsThatStatesInputs() throws {
        let waiting = #"{"online":true,"email":{"rawValue":"a@b.c","valid":true,"currentValidation":null},"password":"goodpassword1","loggingIn":true,"canLogin":true}"#
        let answer = try firstEventAfterARestartWithEffectsCutOff(
            create: #"{"kind":"login","state":\#(waiting)}"#,
            actions: [#"{"type":"login/passwordChanged","payload":"wrongpassword"}"#],
            after: 1)
        XCTAssertEqual(answer.id, "2")
        XCTAssertEqual((answer.json["action"] as? [String: Any])?["type"] as? String, "login/loginSucceeded",
                       "the login was asked with the password of the created state")
    }

    func testDeleteRemovesTheSessionsFiles() throws {
        let directory = temporaryDirectory()
        let fixture = try ServerFixture { $0.inMemory = false; $0.dataDirectory = directory }
        let (id, token) = try fixture.createSession()
        let (other, _) = try fixture.createSession()
        let listing = { (FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []).joined(separator: "\n") }
        XCTAssertTrue(listing().contains(id))
        XCTAssertEqual(try fixture.client().request("DELETE", "/sessions/\(id)", headers: bearer(token)).status, 204)
        XCTAssertFalse(listing().contains(id))
        XCTAssertTrue(listing().contains(other))
    }

    /// A server on a new data directory and a free port, not recovered, not listening.
    private func durableServer() throws -> Storehouse {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = temporaryDirectory()
        configuration.accessLog = false
        return try Storehouse(configuration: configuration)
    }

    func testNotReadyUntilRecoveryFinishes() throws {
        let server = try durableServer()
        defer { server.shutdown() }
        try server.listen()
        let client = try TestClient(port: server.port)
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200)
        let readiness = try client.request("GET", "/readyz")
        XCTAssertEqual(readiness.status, 503)
        XCTAssertEqual(readiness.json["type"] as? String, "/problems/not-ready")
        let early = try client.request("POST", "/sessions")
        XCTAssertEqual(early.status, 503, "no session route answers before recovery, so nothing is wrongly 404")
        XCTAssertNotNil(early.header("Retry-After"))
        server.recover()
        XCTAssertEqual(try client.request("GET", "/readyz").status, 200)
        XCTAssertEqual(try client.request("POST", "/sessions").status, 201)
    }

    /// The journal sizes its descriptor budget from the soft `RLIMIT_NOFILE` as it opens, so the
    /// limit is raised before that, not only when the engine starts: with a soft limit of 1,024 the
    /// budget was 256 descriptors where the raised limit allows 2,048.
    func testTheDescriptorLimitIsRaisedBeforeTheJournalOpens() throws {
        let resource = __rlimit_resource_t(UInt32(RLIMIT_NOFILE.rawValue))
        var original = rlimit()
        XCTAssertEqual(getrlimit(resource, &original), 0)
        try XCTSkipIf(original.rlim_max <= 1_024, "the hard limit leaves nothing to raise")
        var lowered = original
        lowered.rlim_cur = 1_024
        XCTAssertEqual(setrlimit(resource, &lowered), 0)
        defer { _ = setrlimit(resource, &original) }
        let server = try durableServer()
        defer { server.shutdown() }
        var now = rlimit()
        XCTAssertEqual(getrlimit(resource, &now), 0)
        XCTAssertEqual(now.rlim_cur, original.rlim_max, "raised before listen()")
        let raised = max(32, min(2_048, Int(clamping: original.rlim_max) / 4))
        XCTAssertEqual(server.journal?.writer.fdBudget, raised, "the budget of the raised limit")
        try server.listen()
    }

    func testRestartWithTenThousandSessions() throws {
        var lines: [String] = []
        try RecoveryBenchmark.run(directory: temporaryDirectory(), sessions: 10_000, actionsPerSession: 3) { lines.append($0) }
        let recovery = try XCTUnwrap(lines.first { $0.hasPrefix("RESULT recovery ") })
        XCTAssertTrue(recovery.contains("sessions=10000 actions=30000"), recovery)
    }
}
