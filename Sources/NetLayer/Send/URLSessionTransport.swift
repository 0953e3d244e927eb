import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport: one `URLSession` driven through an internal session delegate.
///
/// The transport enforces the idle timeout and total deadline itself (Linux URLSession truncates
/// sub-second timeouts and ignores `timeoutIntervalForResource`), and turns a `401` with a `Basic`
/// challenge into a normal response instead of the hang Linux URLSession shows.
public final class URLSessionTransport: Transport {
    /// The session; it belongs to this transport and is invalidated when the transport goes away.
    public let session: URLSession
    private let delegate: SessionDelegate

    /// Creates a transport with its own session.
    /// - Parameter configuration: Default `URLSessionConfiguration.default`.
    public init(configuration: URLSessionConfiguration = .default) {
        let delegate = SessionDelegate()
        let queue = OperationQueue()
        queue.name = "NetLayer.URLSessionTransport"
        queue.maxConcurrentOperationCount = 1
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends the request through the session.
    /// - Throws: `URLError` from the session, ``NetLayerError/Code/timedOut`` when a limit elapses,
    ///   `CancellationError` when the calling task is cancelled.
    public func send(_ request: URLRequest, timeouts: Timeouts) async throws -> (Data, HTTPURLResponse) {
        try Task.checkCancellation()
        let task = session.dataTask(with: request)
        let exchange = TaskExchange(task: task)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.register(exchange)
                guard exchange.start(continuation) else {
                    delegate.unregister(exchange)
                    continuation.resume(throwing: CancellationError())
                    return
                }
                if !timeouts.isEmpty { exchange.startWatchdog(timeouts) }
            }
        } onCancel: {
            exchange.cancel()
        }
    }
}
