import Foundation

/// An in-process HTTP/1.1 server on 127.0.0.1, for tests that want real sockets: NetLayer's own
/// `URLSessionTransport` (or any HTTP client) talks to it over TCP, and the test reads back exactly
/// what arrived.
///
/// Plain BSD sockets, one thread per connection, keep-alive, `Content-Length` and chunked request
/// bodies, `Expect: 100-continue`. It listens on 127.0.0.1 only, on a port the kernel picks, so
/// tests never collide and nothing is reachable from outside. Routes match the exact path; a
/// request no route matches gets the `fallback` answer (404 by default). Every request is
/// recorded, in arrival order, before its handler runs.
///
/// ```swift
/// let server = try LoopbackServer.start()
/// defer { server.stop() }
/// server.route("/v1/books/1") { _ in .json(#"{"id":1,"title":"Dune"}"#) }
/// let (data, _) = try await URLSession.shared.data(from: server.url("/v1/books/1"))
/// #expect(server.requests(path: "/v1/books/1").count == 1)
/// ```
public final class LoopbackServer: Sendable {
    /// The port the kernel picked on 127.0.0.1.
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL
    let core: ServerCore

    /// `127.0.0.1:<port>`, for a NetLayer `Resource`'s `domain`.
    public var hostAndPort: String { "127.0.0.1:\(port)" }

    /// Binds 127.0.0.1 on a port the kernel picks and starts accepting connections.
    /// - Parameters:
    ///   - maxBodyBytes: Request bodies longer than this are answered with 413 (and not recorded).
    ///     Default 256 MiB.
    ///   - fallback: The answer to a request whose path has no route. Runs on the connection's
    ///     thread. Default ``LoopbackResponse/notFound(_:)``; pass ``LoopbackResponse/echo(_:)`` to
    ///     have every unrouted request described back as JSON.
    /// - Throws: The socket call that failed (`socket`, `bind`, `listen`, …) with its `errno`.
    public static func start(
        maxBodyBytes: Int = 256 << 20,
        fallback: @escaping @Sendable (RecordedRequest) -> LoopbackResponse = LoopbackResponse.notFound
    ) throws -> LoopbackServer {
        try start(maxBodyBytes: maxBodyBytes, fallback: fallback, bodyStreaming: nil)
    }

    /// ``start(maxBodyBytes:fallback:)`` with bodies that are streamed instead of held (NetLayer's
    /// own transfer tests).
    static func start(
        maxBodyBytes: Int, fallback: @escaping @Sendable (RecordedRequest) -> LoopbackResponse,
        bodyStreaming: BodyStreaming?
    ) throws -> LoopbackServer {
        let listener = try LoopbackSocket.makeLoopbackListener()
        let wake: (read: Int32, write: Int32)
        do {
            wake = try LoopbackSocket.makeWakePipe()
        } catch {
            LoopbackSocket.close(listener.fd)
            throw error
        }
        let core = ServerCore(
            maxBodyBytes: max(0, maxBodyBytes), fallback: fallback, bodyStreaming: bodyStreaming,
            port: listener.port, listener: listener.fd, wakeWrite: wake.write)
        let thread = Thread { core.runAcceptLoop(listener: listener.fd, wakeRead: wake.read) }
        thread.name = "LoopbackServer.accept.\(listener.port)"
        thread.start()
        guard let baseURL = URL(string: "http://127.0.0.1:\(listener.port)") else {
            core.stop()
            throw SocketError.invalidArgument("URL of port \(listener.port)")
        }
        return LoopbackServer(port: listener.port, baseURL: baseURL, core: core)
    }

    private init(port: Int, baseURL: URL, core: ServerCore) {
        self.port = port
        self.baseURL = baseURL
        self.core = core
    }

    deinit {
        core.stop()
    }

    /// `http://127.0.0.1:<port>` followed by `pathAndQuery` exactly as given (already
    /// percent-encoded); characters a URL cannot hold (a space, a quote) are percent-encoded.
    /// - Parameter pathAndQuery: For example `/v1/books?page=2`.
    public func url(_ pathAndQuery: String) -> URL {
        if let url = URL(string: baseURL.absoluteString + pathAndQuery) { return url }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert(charactersIn: "%#")
        let encoded = pathAndQuery.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        return URL(string: baseURL.absoluteString + encoded) ?? baseURL
    }

    /// Closes the listener and every open connection (responses in flight are cut), and waits at
    /// most about two seconds for the server's threads to finish. Calling it again does nothing.
    /// Afterwards connecting fails. Also done when the server is released.
    public func stop() {
        core.stop()
    }

    /// Every request read so far, in arrival order. A request is recorded before its handler runs.
    public var requests: [RecordedRequest] {
        core.state.withLock { $0.requests }
    }

    /// The recorded requests whose path (the target without its query, percent-encoded as sent)
    /// equals `path` exactly.
    public func requests(path: String) -> [RecordedRequest] {
        core.state.withLock { $0.requests.filter { $0.path == path } }
    }

    /// Forgets the recorded requests (routes and open connections are kept).
    public func reset() {
        core.state.withLock { $0.requests.removeAll() }
    }

    /// Answers requests whose path equals `path` exactly (percent-encoded as sent, without the
    /// query) with `handler`, replacing an earlier handler for that path. The handler runs on the
    /// connection's thread; it may block (sleep) without holding up other connections.
    /// - Parameters:
    ///   - path: For example `/v1/books/1`.
    ///   - handler: Makes the response from the recorded request.
    public func route(_ path: String, _ handler: @escaping @Sendable (RecordedRequest) -> LoopbackResponse) {
        core.state.withLock { $0.routes[path] = handler }
    }

    /// Removes the route for `path`; its requests get the fallback answer again.
    public func removeRoute(_ path: String) {
        core.state.withLock { $0.routes[path] = nil }
    }

    /// The connections open now.
    public var openConnectionCount: Int {
        core.state.withLock { $0.connections.count }
    }

    /// The connections accepted since the server started.
    public var acceptedConnectionCount: Int {
        core.state.withLock { $0.acceptedConnections }
    }

    /// Requests answered with 400, 413 or 431 because they were malformed or too large; these are
    /// not in ``requests``.
    public var rejectedRequestCount: Int {
        core.state.withLock { $0.rejectedRequests }
    }

    /// Waits until at least `count` requests (to `path`, if given) were recorded, or `timeout`
    /// passes, checking every 5 ms.
    /// - Parameters:
    ///   - count: How many requests to wait for.
    ///   - path: Default `nil`: any path.
    ///   - timeout: Default 5 seconds.
    /// - Returns: The matching requests either way.
    public func waitForRequests(
        count: Int, path: String? = nil, timeout: Duration = .seconds(5)
    ) async -> [RecordedRequest] {
        let deadline = ContinuousClock.now + min(timeout, .seconds(86_400))
        while true {
            let matching = path.map { requests(path: $0) } ?? requests
            if matching.count >= count || ContinuousClock.now >= deadline { return matching }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
