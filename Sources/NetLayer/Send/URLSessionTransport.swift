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
        return try await timeouts.isEmpty ? sendDirectly(request) : sendWatched(request, timeouts: timeouts)
    }

    /// No limit to enforce: URLSession's own async call, which completes without a hop through the
    /// delegate queue. Task cancellation reaches the session task through URLSession itself.
    private func sendDirectly(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            return (data, http)
        } catch let error as URLError where error.code == .cancelled && !Task.isCancelled {
            // Cancelled by the session delegate's auth-challenge handling, not by the caller.
            if let challenged = delegate.takeChallengeResponse(for: request) { return (Data(), challenged) }
            throw error
        }
    }

    /// Limits to enforce: a delegate-driven task whose bytes are watched by a timer.
    private func sendWatched(_ request: URLRequest, timeouts: Timeouts) async throws -> (
        Data, HTTPURLResponse
    ) {
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
                exchange.startWatchdog(timeouts)
            }
        } onCancel: {
            exchange.cancel()
        }
    }
}
