import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport: one `URLSession` driven through an internal session delegate.
///
/// The transport enforces the idle timeout and total deadline itself (Linux URLSession truncates
/// sub-second timeouts and ignores `timeoutIntervalForResource`), turns a `401` with a `Basic`
/// challenge into a normal response instead of the hang Linux URLSession shows, and hands redirects
/// back to NetLayer instead of following them.
///
/// On Linux, a request that must not be sent twice goes on a connection of its own. libcurl, under
/// Linux URLSession, silently resends a request whose kept-alive connection the server had closed:
/// a POST could reach the server twice, and a request with a body hangs until its idle timeout,
/// because the body cannot be replayed. So requests with a non-idempotent method (POST, PATCH, any
/// extension method) or with a body use a second session and carry `Connection: close`, so each
/// gets a new connection, which libcurl never retries. Idempotent requests without a body (GET,
/// HEAD, DELETE, OPTIONS, …) keep reusing connections; a resend of those is what RFC 9110 §9.2.2
/// allows, and the server never sees a half request.
public final class URLSessionTransport: Transport {
    /// Which requests may share kept-alive connections (matters on Linux only).
    public enum ConnectionReuse: Sendable, Hashable {
        /// Only requests libcurl may safely resend: idempotent methods without a body. Others get a
        /// connection of their own. The default: nothing is sent twice, nothing hangs.
        case replayableRequestsOnly
        /// Every request. Saves a connection (and over TLS a handshake) per POST, at the risk
        /// described on ``URLSessionTransport``: a POST resent, a request with a body hanging until
        /// its idle timeout when the server closes a kept-alive connection.
        case allRequests
    }

    /// The session; it belongs to this transport and is invalidated when the transport goes away.
    public let session: URLSession
    /// Linux only: the session for requests that must not be replayed (see the type's notes).
    private let freshConnectionSession: URLSession?
    private let delegate: SessionDelegate

    /// Creates a transport with its own session.
    /// - Parameters:
    ///   - configuration: Default `URLSessionConfiguration.default`.
    ///   - connectionReuse: Default ``ConnectionReuse/replayableRequestsOnly``.
    public init(
        configuration: URLSessionConfiguration = .default,
        connectionReuse: ConnectionReuse = .replayableRequestsOnly
    ) {
        let delegate = SessionDelegate()
        let queue = OperationQueue()
        queue.name = "NetLayer.URLSessionTransport"
        queue.maxConcurrentOperationCount = 1
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        #if canImport(FoundationNetworking)
            self.freshConnectionSession =
                connectionReuse == .allRequests
                ? nil : URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        #else
            self.freshConnectionSession = nil
        #endif
    }

    deinit {
        session.finishTasksAndInvalidate()
        freshConnectionSession?.finishTasksAndInvalidate()
    }

    /// Methods a transport may resend after a stale connection (RFC 9110 §9.2.2).
    static let idempotentMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]

    /// The session for `request`, with `Connection: close` added when it must get a connection of
    /// its own.
    private func route(_ request: inout URLRequest) -> URLSession {
        guard let freshConnectionSession else { return session }
        let replayable =
            Self.idempotentMethods.contains(request.httpMethod ?? "GET")
            && (request.httpBody?.isEmpty ?? true) && request.httpBodyStream == nil
        if replayable { return session }
        request.setValue("close", forHTTPHeaderField: "Connection")
        return freshConnectionSession
    }

    /// Sends the request through the session.
    /// - Throws: `URLError` from the session, ``NetLayerError/Code/timedOut`` when a limit elapses,
    ///   ``NetLayerError/Code/invalidValue`` for a limit of zero or less (longer than
    ///   ``Timeouts/maximum`` is clamped), `CancellationError` when the calling task is cancelled.
    public func send(_ request: URLRequest, timeouts: Timeouts) async throws -> (Data, HTTPURLResponse) {
        try Task.checkCancellation()
        // Checked here too, for callers that use the transport directly.
        let timeouts = try Timeouts.checked(idle: timeouts.idle, total: timeouts.total)
        var request = request
        let session = route(&request)
        return try await timeouts.isEmpty
            ? sendDirectly(request, session: session)
            : sendWatched(request, session: session, timeouts: timeouts)
    }

    /// No limit to enforce: URLSession's own async call, which completes without a hop through the
    /// delegate queue. Task cancellation reaches the session task through URLSession itself.
    private func sendDirectly(_ request: URLRequest, session: URLSession) async throws -> (
        Data, HTTPURLResponse
    ) {
        #if canImport(FoundationNetworking)
            // Most transports never meet a challenge: then not even the host key is computed.
            let recorder =
                request.url.map { url in delegate.hasChallenged(Self.hostKey(url)) } == true
                ? ChallengeBodyRecorder() : nil
        #endif
        do {
            #if canImport(FoundationNetworking)
                let (data, response) =
                    if let recorder {
                        try await session.data(for: request, delegate: recorder)
                    } else {
                        try await session.data(for: request)
                    }
            #else
                let (data, response) = try await session.data(for: request)
            #endif
            guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            return (data, http)
        } catch let error as URLError where error.code == .cancelled && !Task.isCancelled {
            // Cancelled by the session delegate's auth-challenge handling, not by the caller.
            #if canImport(FoundationNetworking)
                if let challenged = delegate.takeChallengeResponse(task: recorder?.task, request: request) {
                    // From now on this host's calls keep their 401 bodies (see ChallengeBodyRecorder).
                    if let url = request.url { delegate.noteChallenge(from: Self.hostKey(url)) }
                    return (recorder?.body ?? Data(), challenged)
                }
            #endif
            throw error
        }
    }

    /// `scheme://host:port` of a URL.
    private static func hostKey(_ url: URL) -> String {
        "\(url.scheme ?? "")://\(url.host ?? ""):\(url.port ?? -1)"
    }

    /// Limits to enforce: a delegate-driven task whose bytes are watched by a timer.
    private func sendWatched(_ request: URLRequest, session: URLSession, timeouts: Timeouts) async throws -> (
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
