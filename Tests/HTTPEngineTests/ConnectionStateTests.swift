import XCTest
@testable import HTTPEngine

/// The connection's lifecycle without a socket: each transition of `ConnectionState`, what it
/// allows next, and the deadline clock it drives (the clock is the test's: plain milliseconds).
final class ConnectionStateTests: XCTestCase {
    typealias State = ConnectionState

    let keepAlive = AnswerFraming(omitBody: false, keepAlive: true, http10: false)
    let timeouts = ConnectionTimer.Timeouts(header: 100, idle: 1_000, body: 200, firstByte: 50, linger: 20)

    /// A keep-alive request's answer that is a stream still going out.
    func streamingState() -> State {
        var state = State(now: 0)
        _ = state.dispatch(keepAlive)
        state.startStreaming(closes: false)
        return state
    }

    func testAKeepAliveExchangeGoesBackToReadingAndALateAnswerIsNotTheCurrentOnes() {
        var state = State(now: 0)
        XCTAssertTrue(state.isReading)
        let first = state.dispatch(keepAlive)
        XCTAssertTrue(state.isAwaiting)
        XCTAssertFalse(state.isReading, "no next request while the handler has one")
        XCTAssertEqual(state.awaitedFraming(first), keepAlive)
        state.answered(closes: false)
        XCTAssertTrue(state.isReading)
        XCTAssertNil(state.awaitedFraming(first), "answered: a second answer to it is dropped")
        let second = state.dispatch(AnswerFraming(omitBody: true, keepAlive: true, http10: true))
        XCTAssertEqual(second, first + 1)
        XCTAssertNil(state.awaitedFraming(first), "an answer for the earlier request is not this one's")
        XCTAssertEqual(state.awaitedFraming(second)?.omitBody, true)
    }

    func testAnAnswerThatClosesEndsTheReadingAndLingersOnceFlushed() {
        var state = State(now: 0)
        _ = state.dispatch(keepAlive)
        state.answered(closes: true)
        XCTAssertTrue(state.closesAfterFlush)
        XCTAssertFalse(state.isReading, "a pipelined request behind a closing answer is not read")
        state.startLingering(now: 40)
        XCTAssertTrue(state.isLingering)
        XCTAssertEqual(state.timer.phase, .lingering)
        XCTAssertEqual(state.timer.expired(now: 59, timeouts: timeouts), ConnectionTimer.Action.none)
        XCTAssertEqual(state.timer.expired(now: 60, timeouts: timeouts), .close, "closed at the linger deadline")
        state.answered(closes: false)
        XCTAssertTrue(state.isLingering, "a late answer does not reopen a lingering connection")
    }

    func testAStreamIsTheAwaitedAnswerAndItsEndSaysWhetherTheConnectionCloses() {
        for closes in [false, true] {
            var state = State(now: 0)
            let sequence = state.dispatch(keepAlive)
            state.startStreaming(closes: closes)
            XCTAssertTrue(state.isStreaming)
            XCTAssertNil(state.awaitedFraming(sequence))
            XCTAssertFalse(state.isReading, "no request is read while a stream goes out")
            state.settleTimer(now: 5, outboundEmpty: true, parser: .idle, inboundEmpty: true)
            XCTAssertEqual(state.timer.phase, .streaming)
            XCTAssertEqual(state.timer.expired(now: 1_000_000, timeouts: timeouts), ConnectionTimer.Action.none, "a stream has no deadline")
            state.streamEnded()
            XCTAssertFalse(state.isStreaming)
            XCTAssertEqual(state.closesAfterFlush, closes)
            XCTAssertEqual(state.isReading, !closes)
        }
    }

    /// A refusal or a closing answer while a stream goes out lets the stream end first, then closes.
    func testARefusalDuringAStreamClosesAfterIt() {
        var state = streamingState()
        state.refused()
        XCTAssertTrue(state.isStreaming)
        state.streamEnded()
        XCTAssertTrue(state.closesAfterFlush)
    }

    func testClosingIsFinal() {
        var state = streamingState()
        state.close()
        XCTAssertTrue(state.isClosed)
        XCTAssertFalse(state.isStreaming)
        state.streamEnded()
        state.refused()
        state.answered(closes: true)
        state.withdraw()
        XCTAssertTrue(state.isClosed)
    }

    /// A request waiting for `100 Continue` is offered to the handler by its head, then withdrawn
    /// when the handler takes the whole request: the body is read next.
    func testAWithdrawnHeadGoesBackToReadingItsBody() {
        var state = State(now: 0)
        let offered = state.dispatch(AnswerFraming(omitBody: false, keepAlive: false, http10: false))
        state.withdraw()
        XCTAssertTrue(state.isReading)
        XCTAssertNil(state.awaitedFraming(offered), "the offered head's responder is spent")
        XCTAssertEqual(state.dispatch(keepAlive), offered + 1)
    }

    /// The engine's own refusal (a malformed request, a timeout) ends the connection from any
    /// phase that still has one: a request the handler had is no longer answered.
    func testARefusalClosesAfterFlushAndDropsTheAwaitedRequest() {
        var reading = State(now: 0)
        reading.refused()
        XCTAssertTrue(reading.closesAfterFlush)

        var awaiting = State(now: 0)
        let sequence = awaiting.dispatch(keepAlive)
        awaiting.refused()
        XCTAssertTrue(awaiting.closesAfterFlush)
        XCTAssertNil(awaiting.awaitedFraming(sequence))
    }

    func testTheClockFollowsThePhase() {
        var state = State(now: 0)
        XCTAssertEqual(state.timer.phase, .connected)
        XCTAssertEqual(state.timer.expired(now: 50, timeouts: timeouts), .close, "silent since accepted: the first-byte deadline")
        state.exchanged(now: 10)
        XCTAssertEqual(state.timer.phase, .idle)
        state.settleTimer(now: 20, outboundEmpty: true, parser: .head, inboundEmpty: false)
        XCTAssertEqual(state.timer.phase, .head)
        XCTAssertEqual(state.timer.expired(now: 120, timeouts: timeouts), .requestTimeout, "a header block too slow: 408")
        state.settleTimer(now: 30, outboundEmpty: true, parser: .body, inboundEmpty: true)
        XCTAssertEqual(state.timer.phase, .body)
        _ = state.dispatch(keepAlive)
        state.settleTimer(now: 40, outboundEmpty: true, parser: .idle, inboundEmpty: true)
        XCTAssertEqual(state.timer.phase, .busy)
        XCTAssertEqual(state.timer.expired(now: 1_000_000, timeouts: timeouts), ConnectionTimer.Action.none, "the handler's time is not limited")
        state.answered(closes: false)
        state.settleTimer(now: 50, outboundEmpty: false, parser: .idle, inboundEmpty: true)
        XCTAssertEqual(state.timer.phase, .writing, "an answer the client has not read yet")
        state.settleTimer(now: 60, outboundEmpty: true, parser: .idle, inboundEmpty: true)
        XCTAssertEqual(state.timer.phase, .idle)
        XCTAssertEqual(state.timer.expired(now: 1_059, timeouts: timeouts), ConnectionTimer.Action.none)
        XCTAssertEqual(state.timer.expired(now: 1_060, timeouts: timeouts), .close, "idle since the answer: closed")
    }

    func testTheFactsHoldAcrossPhases() {
        var state = State(now: 0, facts: .init(counted: false, probeOnly: true))
        state.facts.readClosed = true
        _ = state.dispatch(keepAlive)
        state.answered(closes: true)
        state.startLingering(now: 1)
        XCTAssertEqual([state.facts.readClosed, state.facts.counted, state.facts.probeOnly], [true, false, true])
    }
}
