import Synchronization

/// State every loop of one server shares: configuration, handler, counters, the shutdown flag.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let handler: any HTTPHandler
    /// `handler.responder(for:answering:)` then `handler.handle`, opened once: called through the
    /// existential, every request copied it (a retain and a release of the handler's box) before
    /// the call, and the handler's own `Responder` type is known only inside.
    let handle: @Sendable (consuming HTTPRequest, HTTPResponder.Slot) -> Void
    /// `handler.handleExpectation` with a responder made the same way: whether it refused the
    /// request, and the responder (withdrawn by the loop when it did not answer).
    let offerHead: @Sendable (consuming HTTPRequest, HTTPResponder.Slot) -> (refused: Bool, responder: HTTPResponder)
    let limits: HTTPParserLimits
    let timeouts: ConnectionTimer.Timeouts
    /// `HTTPServerConfiguration.yieldAfterBusy` in microseconds; nil: never yield.
    let yieldAfterBusyMicros: Int64?
    let openConnections = Atomic<Int>(0)
    /// Connections beyond `maxConnections` read for one probe request (`probePaths`).
    let probeConnections = Atomic<Int>(0)
    let shuttingDown = Atomic<Bool>(false)
    /// Answers the thread that gave them began to write (`EventLoop+DirectAnswer.swift`), and those
    /// of them the socket did not take whole (the loop wrote the rest); for tests.
    let directAnswers = Atomic<Int>(0)
    let directAnswerRests = Atomic<Int>(0)
    /// Times a loop gave up its core after a busy stretch (`yieldAfterBusy`); for tests.
    let yields = Atomic<Int>(0)

    init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
        (self.handle, self.offerHead) = Self.opened(handler)
        self.limits = configuration.parserLimits
        func micros(_ d: Duration) -> Int64 {
            let c = d.components
            return c.seconds * 1_000_000 + c.attoseconds / 1_000_000_000_000
        }
        func ms(_ d: Duration) -> Int64 { micros(d) / 1_000 }
        self.timeouts = ConnectionTimer.Timeouts(header: ms(configuration.headerTimeout), idle: ms(configuration.idleTimeout),
                                                 body: ms(configuration.bodyTimeout),
                                                 firstByte: ms(configuration.firstByteTimeout),
                                                 linger: min(2_000, ms(configuration.idleTimeout)))
        self.yieldAfterBusyMicros = configuration.yieldAfterBusy.map { max(0, micros($0)) }
    }

    private static func opened<H: HTTPHandler>(_ handler: H)
        -> (@Sendable (consuming HTTPRequest, HTTPResponder.Slot) -> Void,
            @Sendable (consuming HTTPRequest, HTTPResponder.Slot) -> (refused: Bool, responder: HTTPResponder)) {
        // The request moves into its responder, and is read from there.
        ({ (request: consuming HTTPRequest, slot) in
             handler.handle(handler.responder(for: request, answering: slot))
         },
         { (head: consuming HTTPRequest, slot) in
             let responder = handler.responder(for: head, answering: slot)
             return (handler.handleExpectation(responder.request, responder), responder)
         })
    }
}
