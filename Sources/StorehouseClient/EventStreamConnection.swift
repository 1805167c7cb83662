import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One `text/event-stream` request whose body is parsed as it arrives. A data delegate, not
/// `URLSession.bytes(for:)`: swift-corelibs-foundation has no `bytes(for:)`, and a delegate
/// works the same on Linux and Apple platforms.
final class EventStreamConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // `parser`, `status` and `errorBody` are touched only by the delegate callbacks, which run
    // one at a time on the session's serial delegate queue.
    private let continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation
    private var parser = ServerSentEventParser()
    private var status = 0
    private var errorBody: [UInt8] = []
    private var retryAfter: Int?

    private init(continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation) {
        self.continuation = continuation
    }

    /// Starts the request; the stream ends when the server closes it, and ending the stream
    /// (its consumer cancelled or gone) cancels the request.
    static func open(_ request: URLRequest, configuration base: URLSessionConfiguration) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        AsyncThrowingStream { continuation in
            let connection = EventStreamConnection(continuation: continuation)
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            let configuration = (base.copy() as? URLSessionConfiguration) ?? .default
            // Silence between events is normal: the server sends a keep-alive every 15 s.
            configuration.timeoutIntervalForRequest = 120
            configuration.timeoutIntervalForResource = .infinity
            let session = URLSession(configuration: configuration, delegate: connection, delegateQueue: queue)
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                task.cancel()
                session.invalidateAndCancel()
            }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        status = http?.statusCode ?? 0
        retryAfter = (http?.value(forHTTPHeaderField: "Retry-After")).flatMap { Int($0) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard status == 200 else {
            if errorBody.count < 64 << 10 { errorBody += data }
            return
        }
        for event in parser.feed(data) { continuation.yield(event) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if status != 0 && status != 200 {
            continuation.finish(throwing: StorehouseError.problem(ServerProblem(status: status, body: errorBody, retryAfter: retryAfter)))
        } else if let error {
            continuation.finish(throwing: StorehouseError.transport(String(describing: error)))
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
