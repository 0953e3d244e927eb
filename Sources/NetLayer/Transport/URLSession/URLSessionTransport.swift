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
/// extension method) or with a body each get a session of their own, ended with the request, and
/// carry `Connection: close`: each gets a new connection that nothing else uses, which libcurl never
/// retries. (One shared second session was not enough: libcurl keeps a connection unless the
/// *answer* says `Connection: close`, which servers may leave out, and reused it for the next such
/// request just as the server closed it.) Idempotent requests without a body (GET, HEAD, DELETE,
/// OPTIONS, …) keep reusing connections; a resend of those is what RFC 9110 §9.2.2 allows, and the
/// server never sees a half request.
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
    /// Linux only: whether requests that must not be replayed get a session of their own (see the
    /// type's notes).
    private let freshConnections: Bool
    private let delegate: SessionDelegate
    /// The delegate queue every session of this transport shares (on Linux it holds URLSession back when it falls
    /// behind; see `BackpressureOperationQueue`).
    let delegateQueue: OperationQueue

    /// The configuration a transport gets when none is given, new on each access:
    /// `URLSessionConfiguration.default` without a `URLCache`, without credential storage and
    /// without cookie storage, on every platform.
    ///
    /// NetLayer decides caching, authentication and redirects itself, so URLSession must not decide
    /// them first, and the same call must behave the same on Apple platforms and Linux:
    /// - **No `URLCache`.** On Apple platforms `URLCache.shared` adds its own `If-None-Match`, turns
    ///   a 304 into a 200, serves responses by heuristic freshness and stores responses to
    ///   authorized requests on disk. On Linux it looks every request up but never stores or serves
    ///   one (Swift 6.3.1), and the lookup costs 30–60 µs of CPU per request.
    /// - **No `URLCredentialStorage`.** Stored credentials could answer a Basic, Digest, NTLM or
    ///   Negotiate challenge before NetLayer sees the 401; a 401 always reaches validation and
    ///   the resource's authenticator.
    /// - **No `HTTPCookieStorage`.** Cookies are not kept or sent: on Linux the shared storage
    ///   writes every `Set-Cookie` a server sends to a file under the user's home directory,
    ///   rewriting it per cookie on a queue every request of the process waits for (400 cookies
    ///   stalled the process's requests for 12 s). Set ``ResourceOptions/cookieJar`` to keep
    ///   cookies, the same way over every transport.
    ///
    /// A configuration you pass to ``init(configuration:connectionReuse:bufferLimit:)`` is used as
    /// it is, except that HTTP authentication challenges are always left to NetLayer.
    public static var defaultConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCredentialStorage = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return configuration
    }

    /// Creates a transport with its own session.
    /// - Parameters:
    ///   - configuration: Default ``defaultConfiguration``: Foundation's default without a cache,
    ///     credential storage or cookie storage. A configuration you give is used as it is.
    ///   - connectionReuse: Default ``ConnectionReuse/replayableRequestsOnly``.
    ///   - bufferLimit: How many unread bytes a streamed response body holds in memory before the
    ///     task is paused (Apple platforms) or the surplus goes to a temporary file (Linux, where
    ///     URLSession cannot pause a task). Default 1 MiB; at least 16 KiB.
    public init(
        configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration,
        connectionReuse: ConnectionReuse = .replayableRequestsOnly,
        bufferLimit: Int = 1 << 20
    ) {
        self.bufferLimit = max(16 * 1024, bufferLimit)
        self.spoolDirectory = BodySpool.directoryForNewTransport()
        let delegate = SessionDelegate()
        let queue = DelegateQueue.make(name: "NetLayer.URLSessionTransport")
        self.delegateQueue = queue
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        #if canImport(FoundationNetworking)
            self.freshConnections = connectionReuse == .replayableRequestsOnly
        #else
            self.freshConnections = false
        #endif
    }

    deinit {
        session.finishTasksAndInvalidate()
        BodySpool.remove(spoolDirectory)
    }

    /// The session for `request`. One that must get a connection of its own — its method is not
    /// idempotent (RFC 9110 §9.2.2) or it has a body, which a transport must not resend after a
    /// stale connection — gets `Connection: close` and a new session (`own`), with this transport's
    /// configuration, delegate and delegate queue, that `send` invalidates on its way out (its one
    /// task then runs to its end): a session's connections are reused by its next requests whatever
    /// the request said, so only a session that never has a next request keeps libcurl from
    /// reusing (and then resending on) a connection the server is closing. A session costs far
    /// less than the new connection the request opens anyway.
    private func route(_ request: inout URLRequest, method: HTTPMethod, hasBody: Bool) -> (
        session: URLSession, own: Bool
    ) {
        guard freshConnections else { return (session, false) }
        // Foundation sends a known method in capitals whatever its case ("get" goes out as GET).
        let idempotent =
            method.isIdempotent || HTTPMethod(rawValue: method.rawValue.uppercased()).isIdempotent
        let replayable = idempotent && !hasBody
        if replayable { return (session, false) }
        request.setValue("close", forHTTPHeaderField: "Connection")
        let own = URLSession(
            configuration: session.configuration, delegate: delegate, delegateQueue: delegateQueue)
        return (own, true)
    }

    /// Bodies up to this size are assembled in memory even when they come from files: a
    /// temporary file would cost more than the bytes. Larger ones are streamed.
    static let inMemoryBodyLimit: Int64 = 256 * 1024

    /// Where bodies that must be spooled are written (Linux URLSession cannot send a stream with a
    /// known length): a directory of this transport's own, readable by the user only, removed with
    /// the transport. Each spooled file is removed when its task ends, however it ends.
    let spoolDirectory: URL

    /// How many unread response bytes a streamed body holds in memory before the task is paused
    /// (or, on Linux, the surplus spills to a temporary file).
    let bufferLimit: Int

    /// Sends the request through the session.
    ///
    /// A call that collects the body and has no limits and no progress to report goes through one
    /// `data(for:)` or `upload(for:fromFile:)` call without a delegate-queue hop. Every other call
    /// is a delegate-driven task whose body streams through a bounded buffer. File bodies are
    /// uploaded from the file (a whole file) or from a spooled copy (ranges, multipart with files).
    /// - Throws: `URLError` from the session, ``NetLayerError/Code/invalidMethod``,
    ///   ``NetLayerError/Code/invalidURL`` or ``NetLayerError/Code/invalidHeader`` for a request
    ///   that may not be sent (see ``TransportRequest``), ``NetLayerError/Code/timedOut`` when a limit elapses,
    ///   ``NetLayerError/Code/invalidValue`` for a limit of zero or less (longer than
    ///   ``Timeouts/maximum`` is clamped), ``NetLayerError/Code/encodingFailed`` when a body file
    ///   cannot be read, `CancellationError` when the calling task is cancelled.
    public func send(_ request: TransportRequest, context: TransportContext) async throws -> TransportResponse
    {
        try Task.checkCancellation()
        // A request the executor did not check (a caller of the transport built it) is checked
        // here: nothing unchecked reaches the request line or the header block.
        try request.checkForSending()
        // Checked here too, for callers that use the transport directly.
        let timeouts = try Timeouts.checked(idle: context.timeouts.idle, total: context.timeouts.total)
        var urlRequest = request.urlRequest(idleTimeout: timeouts.idle, fileBodies: false)
        let body = request.body.flatMap { $0.length > 0 ? $0 : nil }
        let (session, ownSession) = route(&urlRequest, method: request.method, hasBody: body != nil)
        guard ownSession else {
            return try await send(
                urlRequest, body: body, session: session, timeouts: timeouts, context: context)
        }
        // A session of the request's own ends with its task: after the head, invalidating it lets the
        // task finish its body; after a failure, it is cancelled with whatever task it still holds (a
        // task cancelled before it was resumed never completes on Linux, and would keep it alive).
        do {
            let response = try await send(
                urlRequest, body: body, session: session, timeouts: timeouts, context: context)
            session.finishTasksAndInvalidate()
            return response
        } catch {
            session.invalidateAndCancel()
            throw error
        }
    }

    /// Sends `urlRequest` through `session`: from memory, from the body's file, or from a spooled
    /// copy; directly when there is nothing to watch, else as a delegate-driven task.
    private func send(
        _ request: URLRequest, body: RequestBody?, session: URLSession, timeouts: Timeouts,
        context: TransportContext
    ) async throws -> TransportResponse {
        var urlRequest = request
        var upload: URL?
        var cleanup: (@Sendable () -> Void)?
        if let body, body.inMemoryBytes == nil {
            if let file = body.wholeFile, try FileRead.regularFileSize(file, what: "body file") == body.length
            {
                upload = file
            } else if body.length <= Self.inMemoryBodyLimit {
                urlRequest.httpBody = try await Self.readAll(body)
            } else {
                let spooled = try await BodySpool.write(body, into: spoolDirectory)
                upload = spooled
                cleanup = { BodySpool.discard(spooled) }
            }
        }
        #if !canImport(FoundationNetworking)
            if !context.streamsResponse && context.progress == nil && timeouts.isEmpty {
                // Nothing to watch: URLSession's own async call, also for a body uploaded from a file.
                defer { cleanup?() }
                let (data, response) = try await sendDirectly(urlRequest, upload: upload, session: session)
                return TransportResponse(head: ResponseHead(response), body: ResponseBody(data))
            }
        #endif
        // Linux: every call is a delegate-driven task. URLSession's own async calls (`data(for:)`,
        // `upload(for:fromFile:)`) cancel their task from inside Swift's task-cancellation handler,
        // which holds the Swift task's status lock, and wait there for the session's work queue;
        // when the transfer completes at that moment, the work queue resumes the same Swift task
        // and waits for that lock. Both wait forever, and every cooperative thread that then calls
        // into the session with them (CancelAtCompletionTests: the process stopped within a few
        // hundred cancelled calls). A delegate-driven task is cancelled from a thread of its own.
        // The exchange runs the cleanup once, however the call ends.
        return try await sendWatched(
            urlRequest, upload: upload, uploadLength: body?.length, session: session, timeouts: timeouts,
            progress: context.progress, cleanup: cleanup)
    }

    /// A small file-backed body, read whole.
    private static func readAll(_ body: RequestBody) async throws -> Data {
        var data = Data()
        for try await chunk in body.chunks() { data.append(chunk) }
        return data
    }

    /// Apple platforms, nothing to watch: URLSession's own async call, which completes without a
    /// hop through the delegate queue. Task cancellation reaches the session task through
    /// URLSession itself.
    #if !canImport(FoundationNetworking)
        private func sendDirectly(_ request: URLRequest, upload: URL?, session: URLSession) async throws -> (
            Data, HTTPURLResponse
        ) {
            let (data, response) =
                if let upload {
                    try await session.upload(for: request, fromFile: upload)
                } else {
                    try await session.data(for: request)
                }
            guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            return (data, http)
        }
    #endif

    /// A delegate-driven task: the head is returned as soon as it arrives; the body streams
    /// through a bounded buffer while a timer enforces the limits.
    private func sendWatched(
        _ request: URLRequest, upload: URL?, uploadLength: Int64?, session: URLSession, timeouts: Timeouts,
        progress: ProgressReporter?, cleanup: (@Sendable () -> Void)?
    ) async throws -> TransportResponse {
        let task: URLSessionTask =
            if let upload { session.uploadTask(with: request, fromFile: upload) } else {
                session.dataTask(with: request)
            }
        let exchange = TaskExchange(
            task: task, progress: progress, uploadLength: uploadLength, bufferLimit: bufferLimit,
            spillDirectory: spoolDirectory, cleanup: cleanup)
        let response = try await withTaskCancellationHandler {
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
        exchange.headTaken()
        return response
    }
}
