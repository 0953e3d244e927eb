import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The bookstore API the sample talks to, running in-process on `127.0.0.1` at a port the system
/// picks.
///
/// Routes: books (list, search, create, get, change, delete), covers (multipart or raw, streamed), upload
/// parts, the inventory export (CSV with ETag and ranges), an NDJSON feed, and two Server-Sent Events
/// streams: a chat answer streamed token by token, and a live feed that drops a connection once.
/// For the resilience chapter: an OAuth-style token endpoint (`POST /v1/auth/refresh`, rotating
/// refresh tokens, access tokens that expire), a flaky warehouse (`GET /v1/books/:id/stock`: 503
/// with `Retry-After`, then 500, then 200), orders that lose their first answer
/// (`POST /v1/orders` with an `Idempotency-Key`) and an HTML page where JSON belongs
/// (`GET /v1/promotions`).
///
/// Every route but the token endpoint needs `Authorization: Bearer <token>` (the fixed token, or
/// an access token that has not expired); beyond `requestsPerSecond` requests in any one-second
/// window (less a `grace` for network jitter) the server answers 429 with `Retry-After`.
public struct BookstoreServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The jitter the rate limit forgives.
    public let grace: Duration
    private let window: SlidingWindow
    private let exports: ExportState
    private let streams: StreamState
    private let issuer: TokenIssuer
    private let warehouse: WarehouseState
    private let services: ServiceGroup
    private let task: Task<Void, any Error>

    /// Starts the server and returns once it accepts connections.
    /// - Parameters:
    ///   - token: The bearer token every request must carry.
    ///   - requestsPerSecond: The server's rate limit.
    ///   - grace: How much closer together than one second requests may arrive and still count as
    ///     keeping to the limit (see `SlidingWindow`).
    ///   - accessTokenLifetime: How long an access token from the token endpoint is good for.
    public static func start(
        token: String, requestsPerSecond: Int = 5, grace: Duration = .milliseconds(200),
        accessTokenLifetime: Duration = .seconds(300)
    ) async throws -> BookstoreServer {
        let window = SlidingWindow(limit: requestsPerSecond, window: .seconds(1), grace: grace)
        let store = BookStore()
        let exports = ExportState()
        let streams = StreamState()
        let issuer = TokenIssuer(lifetime: accessTokenLifetime)
        let warehouse = WarehouseState()

        let router = Router()
        router.add(middleware: JSONErrorMiddleware())  // outermost: every error leaves as JSON
        router.add(middleware: RateLimitMiddleware(window: window))
        router.add(middleware: BearerAuthMiddleware(token: token, issuer: issuer))
        let v1 = router.group("v1")
        BookRoutes(store: store).register(on: v1)
        CoverRoutes(store: store).register(on: v1)
        UploadRoutes().register(on: v1)
        ExportRoutes(store: store, state: exports).register(on: v1)
        StreamRoutes(store: store, state: streams).register(on: v1)
        TokenRoutes(issuer: issuer).register(on: v1)
        WarehouseRoutes(store: store, state: warehouse).register(on: v1)

        var logger = Logger(label: "bookstore-server")
        logger.logLevel = .warning
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "bookstore"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger
        )
        // Our own service group (no signal handlers): `stop()` shuts it down gracefully.
        let services = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { portContinuation.finish() }
            try await services.run()
        }
        if let port = await ports.first(where: { _ in true }), port > 0 {
            return BookstoreServer(
                port: port, grace: grace, window: window, exports: exports, streams: streams, issuer: issuer,
                warehouse: warehouse, services: services, task: task)
        }
        await services.triggerGracefulShutdown()
        try await task.value  // rethrows why the server did not start (port in use, …)
        throw ServerDidNotStart()
    }

    /// What the server's rate limiter has done so far.
    public func rateLimitStats() async -> RateLimitStats {
        await window.stats
    }

    /// Every `GET /v1/export` response so far, as it ended, oldest first.
    public func exportTransfers() async -> [ExportTransfer] {
        await exports.transfers
    }

    /// Every `POST /v1/chat` answer so far, as it ended, oldest first.
    public func chatTranscripts() async -> [ChatTranscript] {
        await streams.chats
    }

    /// Every `GET /v1/live` connection so far, as it ended, oldest first.
    public func liveConnections() async -> [LiveConnection] {
        await streams.liveConnections
    }

    /// Signs a user in, as the service's sign-in page would: a new access token and refresh token.
    public func signIn() async -> Session {
        await issuer.signIn()
    }

    /// Ends the life of every access token issued so far, as if their lifetime had run out (so the
    /// sample need not wait for it). Refresh tokens stay good.
    public func expireAccessTokens() async {
        await issuer.expireAll()
    }

    /// What the token endpoint and the token checks have done so far.
    public func sessionStats() async -> SessionStats {
        await issuer.stats
    }

    /// What the flaky routes (stock, orders) have seen so far.
    public func warehouseStats() async -> WarehouseStats {
        await warehouse.stats
    }

    /// Stops the server and waits until it has shut down.
    public func stop() async {
        await services.triggerGracefulShutdown()
        _ = await task.result
    }
}

/// The server stopped before reporting a port.
public struct ServerDidNotStart: Error, CustomStringConvertible {
    public var description: String { "the bookstore server did not report a listening port" }
}
